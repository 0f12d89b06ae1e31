import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { createMessageConnection, IPCMessageReader, IPCMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import * as rpc from '../../../src/protocol/rpc';
import { stopBeforeRemoval, stopChild } from '../helpers';

const serverMain = path.resolve(__dirname, '../../../src/server/main.ts');

/** The backend server as the extension runs it: a forked process speaking JSON-RPC over IPC. */
export function startServer(
	t: TestContext,
	workspace: string,
	extra: string[] = [],
): { connection: MessageConnection; child: ChildProcess; changes: { external: boolean }[] } {
	const child = fork(serverMain, ['--workspace', workspace, '--poll-ms', '50', ...extra], {
		execArgv: ['--import', 'tsx'],
		stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
	});
	const connection = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
	const changes: { external: boolean }[] = [];
	connection.onNotification(rpc.dataDidChange, (c) => changes.push(c));
	connection.listen();
	// Stopped before the test's temp folders are removed: the backend writes into its workspace.
	stopBeforeRemoval(t, async () => {
		connection.dispose();
		await stopChild(child);
	});
	return { connection, child, changes };
}
