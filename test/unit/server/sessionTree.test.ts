import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seedSessionChains } from '../../../scripts/seedSessions';
import { Engine } from '../../../src/engine/engine';
import type { ScopeChains, SessionRow } from '../../../src/engine/sessions/sessionShapes';
import * as rpc from '../../../src/protocol/rpc';
import { opensExpanded, sessionTreeRoot, sessionTreeScope, treeRootMost, treeRootPage, type TreeRowDto } from '../../../src/protocol/treeRpc';
import { nestingOf, treeRootOf, treeScopeOf } from '../../../src/server/sessionTree';
import { MemoryLogger, noGit, tempDir } from '../helpers';
import { startServer, until } from './serverHarness';

/** The tree as the view built it before it was served lazily: every session from the overview, workers nested in the window. */
function referenceTree(chains: readonly ScopeChains[]): { scopeKey: string; count: number; active: number; rows: unknown[] }[] {
	interface Node {
		s: SessionRow;
		position: number;
		workers: Node[];
	}
	const byId = new Map<string, Node>();
	for (const c of chains) c.sessions.forEach((s, i) => byId.set(s.id, { s, position: i + 1, workers: [] }));
	const isAncestor = (id: string, from: SessionRow): boolean => {
		const seen = new Set<string>();
		let at: SessionRow | undefined = from;
		while (at && !seen.has(at.id)) {
			if (at.id === id) return true;
			seen.add(at.id);
			at = at.parentSessionId ? byId.get(at.parentSessionId)?.s : undefined;
		}
		return false;
	};
	const tops = new Map<string, Node[]>();
	for (const c of chains) {
		const top: Node[] = [];
		for (const s of c.sessions) {
			const node = byId.get(s.id) as Node;
			const orchestrator = s.parentSessionId ? byId.get(s.parentSessionId) : undefined;
			if (orchestrator && orchestrator !== node && !isAncestor(s.id, orchestrator.s)) {
				orchestrator.workers.push(node);
				node.position = orchestrator.workers.length;
			} else top.push(node);
		}
		tops.set(c.scopeKey, top);
	}
	const shapeOf = (nodes: Node[]): unknown[] =>
		nodes.map((n) => (n.workers.length ? { [`${n.s.id}#${n.position}`]: shapeOf(n.workers) } : `${n.s.id}#${n.position}`));
	return chains
		.filter((c) => (tops.get(c.scopeKey) ?? []).length > 0)
		.map((c) => ({
			scopeKey: c.scopeKey,
			count: c.sessions.length,
			active: c.sessions.filter((s) => s.status === 'active').length,
			rows: shapeOf(tops.get(c.scopeKey) ?? []),
		}));
}
const shape = (rows: readonly TreeRowDto[]): unknown[] =>
	rows.map((r) => (r.workers.length ? { [`${r.session.id}#${r.position}`]: shape(r.workers) } : `${r.session.id}#${r.position}`));

void describe('the Session Chains tree in the backend', () => {
	void it('decides nesting from the parented sessions alone: across scopes, counted where their scope is, never a cycle', () => {
		const nesting = nestingOf([
			{ id: 'w1', scopeKey: 'task:T1', parentSessionId: 'a' },
			{ id: 'w2', scopeKey: 'epic:E1', parentSessionId: 'a' },
			{ id: 'x', scopeKey: 'custom:C1', parentSessionId: 'y' },
			{ id: 'y', scopeKey: 'custom:C1', parentSessionId: 'x' },
			{ id: 'z', scopeKey: 'custom:C1', parentSessionId: 'z' },
			{ id: 'd', scopeKey: 'custom:C1', parentSessionId: 'x' },
		]);
		assert.deepEqual(Object.fromEntries(nesting.orchestratorOf), { w1: 'a', w2: 'a', d: 'x' });
		assert.deepEqual(Object.fromEntries(nesting.nestedIn), { 'task:T1': 1, 'epic:E1': 1, 'custom:C1': 1 });
		assert.deepEqual(
			nesting.workersOf.get('a')?.map((w) => w.id),
			['w1', 'w2'],
		);
	});

	void it('shows exactly what the whole overview showed: groups, counts, chain order, workers across scopes, parent cycles', async (t) => {
		const workspace = tempDir(t);
		await seedSessionChains(workspace, 900); // 250 scopes of 3 or 4; four end in an active session
		const engine = await Engine.open({ workspaceRoot: workspace, log: new MemoryLogger(), git: noGit });
		t.after(() => engine.close());
		const chains = await engine.briefings.overview();
		const at = (scope: number, index: number): string => chains[scope]?.sessions[index]?.id as string;
		const [a, b, c, d, e, f, g] = [at(0, 0), at(1, 0), at(2, 1), at(3, 0), at(5, 0), at(5, 1), at(6, 0)];
		await engine.store.write(() => {
			const setParent = (id: string, parent: string) => engine.store.execCaptured('UPDATE sessions SET parent_session_id = ? WHERE id = ?', [parent, id]);
			setParent(b, a); // a worker in another scope
			setParent(c, a); // a second one, from a third scope, in the middle of its chain
			setParent(d, b); // a worker's worker
			setParent(e, f); // a parent cycle
			setParent(f, e);
			setParent(g, g); // its own parent
			setParent(at(7, 0), 'ses_20990101000000_ffffff'); // a parent that does not exist
			// A scope whose only session works elsewhere: not listed, counted nowhere else.
			engine.store.execCaptured("UPDATE sessions SET scope_key = 'task:T9', parent_session_id = ? WHERE id = ?", [a, at(8, 0)]);
		});
		const expected = referenceTree(await engine.briefings.overview());
		const root = await treeRootOf(engine, { limit: treeRootMost });
		assert.equal(root.total, root.scopes.length, 'every group fits in the most one answer holds');
		// Page by page (the view's "show more"), the same groups in the same order.
		const paged = [];
		for (let offset = 0; offset < root.total; offset += treeRootPage) {
			const page = await treeRootOf(engine, { offset });
			assert.equal(page.total, root.total);
			assert.equal(page.scopes.length, Math.min(treeRootPage, root.total - offset));
			paged.push(...page.scopes.map((s) => s.scopeKey));
		}
		assert.deepEqual(
			paged,
			root.scopes.map((s) => s.scopeKey),
		);
		const actual = [];
		for (const scope of root.scopes) {
			assert.equal(Boolean(scope.rows), opensExpanded(scope), `${scope.scopeKey}: rows sent exactly when it opens expanded`);
			actual.push({
				scopeKey: scope.scopeKey,
				count: scope.sessionCount,
				active: scope.activeCount,
				rows: shape(scope.rows ?? (await treeScopeOf(engine, scope.scopeKey))),
			});
		}
		assert.deepEqual(actual, expected);
		assert.ok(!root.scopes.some((s) => s.scopeKey === 'task:T9'));
		assert.ok(JSON.stringify(expected).includes(`"${a}#`) && JSON.stringify(expected).includes(`"${d}#1"`), 'the data has nested workers');
		// Warm: nothing changed, the same rows; a change, new ones.
		assert.equal((await treeRootOf(engine, { limit: treeRootMost })).sent[0], root.sent[0]);
		await engine.sessions.start({ name: 'new', scope: 'global', actor: 'test' });
		const after = await treeRootOf(engine, { limit: treeRootMost });
		assert.notEqual(after.sent[0], root.sent[0]);
		assert.equal(after.scopes[0]?.scopeKey, 'global');
	});

	void it('answers the first level with the rows of the groups that open expanded only, a group on expand, from a warm tree rebuilt on change', async (t) => {
		const workspace = tempDir(t);
		// 250 scopes of 5 chained sessions; the first four scopes end in an active session.
		await seedSessionChains(workspace, 1250);
		const { connection, changes } = startServer(t, workspace);
		await connection.sendRequest(rpc.workspaceStatus, undefined);
		const root = await connection.sendRequest(sessionTreeRoot, undefined);
		assert.equal(root.scopes.length, treeRootPage, 'a page of groups');
		assert.equal(root.total, 250);
		const last = await connection.sendRequest(sessionTreeRoot, { offset: 200, limit: 100 });
		assert.deepEqual([last.scopes.length, last.total], [50, 250], 'the last page: the rest');
		const all = await connection.sendRequest(sessionTreeRoot, { limit: 10_000 });
		assert.equal(all.scopes.length, 250, 'asked for more than the most, it sends at most that (here: every group)');
		assert.deepEqual(
			all.scopes.slice(200).map((s) => [s.scopeKey, s.rows?.length]),
			last.scopes.map((s) => [s.scopeKey, s.rows?.length]),
		);
		for (const bad of [{ offset: -1 }, { limit: 0 }, { offset: 1.5 }, { limit: '5' }]) {
			await assert.rejects(
				connection.sendRequest(sessionTreeRoot, bad as never),
				(error: Error & { data?: { code?: string } }) => error.data?.code === 'invalidInput' && /whole number/.test(error.message),
			);
		}
		// The seed's active sessions are its oldest: their groups come last, on the last page, with their rows.
		assert.deepEqual(
			last.scopes.filter((s) => s.rows).map((s) => [s.scopeKey, s.activeCount, s.rows?.length]),
			[0, 1, 2, 3].map((i) => [`custom:S${i}`, 1, 5]).reverse(),
			'the active groups (newest first) come with their rows; the others collapsed, without',
		);
		assert.ok(root.scopes.every((s) => s.sessionCount === 5 && s.label === `Custom ${s.scopeKey.slice(7)}`));
		assert.deepEqual(root.origins, [], 'no session here came from another machine');
		const overview = await connection.sendRequest(rpc.sessionOverview, undefined);
		const rootBytes = JSON.stringify(root).length;
		assert.ok(rootBytes * 8 < JSON.stringify(overview).length, `the first level (${rootBytes} bytes) is a fraction of the overview`);

		const collapsed = root.scopes.find((s) => !s.rows);
		assert.ok(collapsed);
		const { rows } = await connection.sendRequest(sessionTreeScope, { scopeKey: collapsed.scopeKey });
		const chain = overview.chains.find((c) => c.scopeKey === collapsed.scopeKey)?.sessions ?? [];
		assert.deepEqual(
			rows.map((r) => [r.session.id, r.position, r.workers.length]),
			chain.map((s, i) => [s.id, i + 1, 0]),
			'its chain in order',
		);
		assert.deepEqual((await connection.sendRequest(sessionTreeScope, { scopeKey: 'epic:NOPE' })).rows, [], 'a group that is gone has no rows');

		// A worker of the newest active session, started through the backend: nested under it, and the
		// global group (its only session works elsewhere) is not listed.
		const orchestrator = last.scopes.find((s) => s.rows)?.rows?.at(-1)?.session;
		assert.equal(orchestrator?.status, 'active');
		const worker = await connection.sendRequest(rpc.sessionStart, { name: 'worker', scope: 'global', parentSessionId: orchestrator.id });
		await until(() => changes.length > 0);
		const after = await connection.sendRequest(sessionTreeRoot, { limit: 250 });
		assert.equal(after.total, 250);
		const rowsAfter = after.scopes.find((s) => s.scopeKey === orchestrator.scopeKey)?.rows ?? [];
		assert.deepEqual(
			rowsAfter.at(-1)?.workers.map((w) => [w.session.id, w.position]),
			[[worker.session.id, 1]],
		);
	});
});
