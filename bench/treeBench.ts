/**
 * The Session Chains tree at 5,000 sessions through the real server process over IPC: the first
 * level right after the window's first status (a fresh backend each round, so it is served from
 * the prewarm, as in the editor), the same level warm, expanding a collapsed group, next to what
 * the tree asked for before (`session/overview` with every session, then `sync/origins` for all).
 * Rounds alternate which path runs first. Payload sizes are printed with the rows.
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createMessageConnection, IPCMessageReader, IPCMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { seedSessionChains } from '../scripts/seedSessions';
import { sessionOverview, workspaceStatus } from '../src/protocol/rpc';
import { syncOrigins } from '../src/protocol/syncRpc';
import { sessionTreeRoot, sessionTreeScope } from '../src/protocol/treeRpc';
import { median, percentile, type BenchRow } from './stats';

export async function withServer<T>(server: string, root: string, fn: (connection: MessageConnection, pid: number | undefined) => Promise<T>): Promise<T> {
	const child = fork(server, ['--workspace', root], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
	const connection = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
	connection.listen();
	try {
		return await fn(connection, child.pid);
	} finally {
		connection.dispose();
		child.kill();
	}
}

const timed = async (fn: () => Promise<unknown>): Promise<{ ms: number; bytes: number }> => {
	const t = performance.now();
	const answer = await fn();
	return { ms: performance.now() - t, bytes: JSON.stringify(answer).length };
};

export async function benchTree(sessionCount: number, repeats: number): Promise<BenchRow[]> {
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-tree-'));
	const server = path.resolve(__dirname, '../dist/backend.js');
	if (!fs.existsSync(server)) {
		throw new Error('dist/backend.js is missing: run `npm run build` first');
	}
	try {
		await seedSessionChains(root, sessionCount);
		return treeRows(sessionCount, await measureTree(server, root, repeats));
	} finally {
		fs.rmSync(root, { recursive: true, force: true });
	}
}

/** What measureTree timed (ms), and the size of the last answer of each kind. */
interface TreeSamples {
	firstLazy: number[];
	firstOld: number[];
	warmLazy: number[];
	warmOld: number[];
	expand: number[];
	lazyBytes: number;
	oldBytes: number;
	expandBytes: number;
}

/** The lazy tree (treeRoot, treeScope) and the old one (overview + origins), each in fresh servers, alternating which goes first. */
async function measureTree(server: string, root: string, repeats: number): Promise<TreeSamples> {
	const samples: TreeSamples = { firstLazy: [], firstOld: [], warmLazy: [], warmOld: [], expand: [], lazyBytes: 0, oldBytes: 0, expandBytes: 0 };
	const rounds = Math.max(3, Math.ceil(repeats / 3));
	for (let round = 0; round < rounds; round++) {
		for (const which of round % 2 === 0 ? ['lazy', 'old'] : ['old', 'lazy']) {
			await withServer(server, root, async (connection) => {
				// What the window does: the first status (it opens the engine and starts the prewarm), then the tree's first request.
				await connection.sendRequest(workspaceStatus, undefined);
				await (which === 'lazy' ? measureLazy(connection, samples) : measureOld(connection, samples));
			});
		}
	}
	return samples;
}

/** The lazy tree: its first level cold then three times warm, then three collapsed groups expanded. */
async function measureLazy(connection: MessageConnection, samples: TreeSamples): Promise<void> {
	const lazy = () => timed(() => connection.sendRequest(sessionTreeRoot, undefined));
	const first = await lazy();
	samples.firstLazy.push(first.ms);
	samples.lazyBytes = first.bytes;
	for (let i = 0; i < 3; i++) samples.warmLazy.push((await lazy()).ms);
	const { scopes } = await connection.sendRequest(sessionTreeRoot, undefined);
	for (const scope of scopes.filter((s) => !s.rows).slice(0, 3)) {
		const opened = await timed(() => connection.sendRequest(sessionTreeScope, { scopeKey: scope.scopeKey }));
		samples.expand.push(opened.ms);
		samples.expandBytes = opened.bytes;
	}
}

/** The old tree: every session (session/overview, then sync/origins of them all), cold then three times warm. */
async function measureOld(connection: MessageConnection, samples: TreeSamples): Promise<void> {
	const old = () =>
		timed(async () => {
			const { chains } = await connection.sendRequest(sessionOverview, undefined);
			const { origins } = await connection.sendRequest(syncOrigins, { sessionIds: chains.flatMap((c) => c.sessions.map((s) => s.id)) });
			return { chains, origins };
		});
	const first = await old();
	samples.firstOld.push(first.ms);
	samples.oldBytes = first.bytes;
	for (let i = 0; i < 3; i++) samples.warmOld.push((await old()).ms);
}

/** The three rows: first level cold and warm beside the old tree, and one group's expansion. */
function treeRows(sessionCount: number, { firstLazy, firstOld, warmLazy, warmOld, expand, lazyBytes, oldBytes, expandBytes }: TreeSamples): BenchRow[] {
	const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
	return [
		{
			name: `tree first level right after the first status (session/treeRoot, ${kb(lazyBytes)}) @ ${sessionCount} sessions`,
			ours: median(firstLazy),
			oursP99: percentile(firstLazy, 99),
			baseline: median(firstOld),
			baselineName: `every session: session/overview + sync/origins (${kb(oldBytes)})`,
			ratio: median(firstLazy) / median(firstOld),
			target: '≤ 100 ms',
		},
		{
			name: `tree first level, warm @ ${sessionCount} sessions`,
			ours: median(warmLazy),
			oursP99: percentile(warmLazy, 99),
			baseline: median(warmOld),
			baselineName: 'every session, warm',
			ratio: median(warmLazy) / median(warmOld),
			target: '≤ 100 ms',
		},
		{
			name: `tree: expanding a collapsed group (session/treeScope, ${kb(expandBytes)}) @ ${sessionCount} sessions`,
			ours: median(expand),
			oursP99: percentile(expand, 99),
			baseline: Number.NaN,
			baselineName: '—',
			ratio: Number.NaN,
			target: '—',
		},
	];
}
