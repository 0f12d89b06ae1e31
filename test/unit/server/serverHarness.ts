/** The real backend process (src/server/main.ts under tsx) on an IPC JSON-RPC connection, for server tests. */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { createMessageConnection, IPCMessageReader, IPCMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import * as rpc from '../../../src/protocol/rpc';
import { stopBeforeRemoval, stopChild } from '../helpers';

const serverMain = path.resolve(__dirname, '../../../src/server/main.ts');

export interface ServerOptions {
	extra?: string[];
	env?: NodeJS.ProcessEnv;
	/** Answers the server's `secret/get` as the extension's SecretStorage would. */
	secrets?: Record<string, string>;
}

export function startServer(
	t: TestContext,
	workspace: string,
	options: ServerOptions = {},
): { connection: MessageConnection; child: ChildProcess; changes: { external: boolean }[] } {
	const child = fork(serverMain, ['--workspace', workspace, '--poll-ms', '50', ...(options.extra ?? [])], {
		execArgv: ['--import', 'tsx'],
		stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
		...(options.env ? { env: options.env } : {}),
	});
	const connection = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
	const changes: { external: boolean }[] = [];
	connection.onNotification(rpc.dataDidChange, (c) => changes.push(c));
	connection.onRequest(rpc.secretGet, ({ name }) => ({ value: options.secrets?.[name] ?? null }));
	connection.listen();
	// Stopped before the test's temp folders are removed: the backend writes into its workspace.
	stopBeforeRemoval(t, async () => {
		connection.dispose();
		await stopChild(child);
	});
	return { connection, child, changes };
}

export async function until(predicate: () => boolean, timeoutMs = 5_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!predicate()) {
		if (Date.now() > deadline) {
			throw new Error('timed out waiting');
		}
		await new Promise((r) => setTimeout(r, 20));
	}
}
