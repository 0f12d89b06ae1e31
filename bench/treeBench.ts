/**
 * The Session Chains tree at 5,000 sessions: `session/overview` through the real server process over
 * IPC (what the tree's root getChildren awaits), next to the same overview computed in-process.
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createMessageConnection, IPCMessageReader, IPCMessageWriter } from 'vscode-jsonrpc/node';
import { Engine } from '../src/engine/engine';
import { silentLogger } from '../src/engine/ports';
import { sessionOverview } from '../src/protocol/rpc';
import { seedSessionChains } from '../scripts/seedSessions';
import { median, percentile, type BenchRow } from './stats';

export async function benchTree(sessionCount: number, repeats: number): Promise<BenchRow[]> {
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-tree-'));
	const server = path.resolve(__dirname, '../dist/server.js');
	if (!fs.existsSync(server)) {
		throw new Error('dist/server.js is missing: run `npm run build` first');
	}
	try {
		await seedSessionChains(root, sessionCount);
		const engine = await Engine.open({ workspaceRoot: root, log: silentLogger, git: { read: async () => null } });
		const inProcess: number[] = [];
		for (let i = 0; i < repeats; i++) {
			const t = performance.now();
			await engine.briefings.overview();
			inProcess.push(performance.now() - t);
		}
		engine.close();

		const child = fork(server, ['--workspace', root], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
		const connection = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
		connection.listen();
		const viaServer: number[] = [];
		try {
			await connection.sendRequest(sessionOverview, undefined); // opens the engine in the server
			for (let i = 0; i < repeats; i++) {
				const t = performance.now();
				const { chains } = await connection.sendRequest(sessionOverview, undefined);
				// What getChildren does with the answer: one node per scope group.
				chains.map((c) => ({ c }));
				viaServer.push(performance.now() - t);
			}
		} finally {
			connection.dispose();
			child.kill();
		}
		return [
			{
				name: `tree getChildren (session/overview over IPC) @ ${sessionCount} sessions`,
				ours: median(viaServer),
				oursP99: percentile(viaServer, 99),
				baseline: median(inProcess),
				baselineName: 'same overview in-process (no IPC)',
				ratio: median(viaServer) / median(inProcess),
				target: '≤ 100 ms',
			},
		];
	} finally {
		fs.rmSync(root, { recursive: true, force: true });
	}
}
