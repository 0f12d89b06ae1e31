/**
 * The editor's way into a workspace daemon that already runs (started by the CLI, a hook or another
 * window): the endpoint file `.baton/daemon.json` names its socket, and `daemon/hello` proves it is
 * that daemon (its instance id and workspace), not a dead one's leftovers or a reused pid.
 */
import net from 'node:net';
import path from 'node:path';
import { createMessageConnection, SocketMessageReader, SocketMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
// The one engine file the editor reads (import-free; test/unit/architecture.test.ts `crossings`): one rule for the CLI, the daemon and the editor.
import { isOwnSocket, readDaemonEndpoint } from '../engine/ownFiles';
import { daemonHello, type DaemonHelloParams } from '../protocol/rpc';

export interface DaemonLink {
	connection: MessageConnection;
	pid: number;
	/** Resolves once the daemon hangs up (it stopped, or its window closed). */
	closed: Promise<void>;
	dispose(): void;
}

/** A daemon started without knowing its version says 'unknown': that is no version, not another one. */
function differentVersion(theirs: string | undefined, ours: string | undefined): boolean {
	return ours !== undefined && theirs !== undefined && theirs !== 'unknown' && theirs !== ours;
}

/**
 * A verified connection to the workspace's daemon, or undefined (none, stale, of another Baton version
 * than `version`, or not within `timeoutMs`). After an update the previous version's daemon may serve
 * the workspace until its windows close; it does not know the new version's requests, so a window of
 * the new version keeps a backend of its own meanwhile.
 */
export async function connectDaemon(
	workspaceRoot: string,
	timeoutMs: number,
	hello: DaemonHelloParams = { client: 'editor' },
	version?: string,
): Promise<DaemonLink | undefined> {
	// Only this user's own endpoint file and socket: one a repository carried would name anyone's.
	const endpoint = readDaemonEndpoint(workspaceRoot);
	if (!endpoint || differentVersion(endpoint.version, version) || !isOwnSocket(endpoint.socket)) {
		return undefined;
	}
	const socket = await new Promise<net.Socket | undefined>((resolve) => {
		const s = net.connect(endpoint.socket);
		const timer = setTimeout(() => {
			s.destroy();
			resolve(undefined);
		}, timeoutMs);
		s.once('connect', () => {
			clearTimeout(timer);
			resolve(s);
		});
		s.once('error', () => {
			clearTimeout(timer);
			resolve(undefined);
		});
	});
	if (!socket) {
		return undefined;
	}
	const connection = createMessageConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
	const closed = new Promise<void>((resolve) => {
		socket.once('close', () => resolve());
	});
	connection.listen();
	const dispose = (): void => {
		connection.dispose();
		socket.destroy();
	};
	try {
		const answer = await Promise.race([
			connection.sendRequest(daemonHello, hello),
			new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), timeoutMs)),
		]);
		if (
			answer &&
			answer.instance === endpoint.instance &&
			path.resolve(answer.workspace) === path.resolve(workspaceRoot) &&
			!differentVersion(answer.version, version)
		) {
			return { connection, pid: answer.pid, closed, dispose };
		}
	} catch {
		// A dead socket or another program on it: the same as no daemon.
	}
	dispose();
	return undefined;
}
