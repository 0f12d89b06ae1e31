/**
 * The Session Chains tree from the backend's warm state, one level at a time. The first level is
 * `session_scopes` (a row a scope, kept by SQLite's triggers) plus the few sessions that have a
 * parent (no session row is decoded), sent a page of groups at a time and read only as far as the
 * pages asked for go (the total is a count); a scope's rows are read when that scope is shown open.
 * Both are kept until sessions or tasks (the labels) change, also through another process's journal,
 * and each request sends only its level (its page).
 */
import type { Engine } from '../engine/engine';
import type { BatonDb } from '../engine/storage/journalStore';
import type { SessionRow } from '../engine/sessions/sessionShapes';
import {
	parentedSessions,
	scopeChainRows,
	scopeCount,
	scopeLabels,
	scopeSummariesOf,
	scopeSummaryPage,
	type ScopeSummary,
} from '../engine/sessions/treeQueries';
import type { SessionOriginDto } from '../protocol/syncRpc';
import {
	opensExpanded,
	sessionTreeRoot,
	sessionTreeScope,
	treeRootMost,
	treeRootPage,
	type TreeRootParams,
	type TreeRootResult,
	type TreeRowDto,
	type TreeScopeDto,
} from '../protocol/treeRpc';
import { BatonError } from '../engine/errors';
import type { EngineHost } from './engineHost';
import type { requestRegistrar } from './handlers';
import { pushAll } from '../engine/arrays';

interface Nesting {
	/** Worker → the orchestrator it is shown under (never a cycle). */
	orchestratorOf: ReadonlyMap<string, string>;
	/** Orchestrator → its workers (unordered: ordered once their chains are read). */
	workersOf: ReadonlyMap<string, { id: string; scopeKey: string }[]>;
	/** Per scope, how many of its sessions are shown under an orchestrator (elsewhere or not). */
	nestedIn: ReadonlyMap<string, number>;
}

/**
 * Which sessions go under an orchestrator: every session whose parent exists, unless that would
 * show a session under its own worker (a parent cycle in imported data), when it stays in its chain.
 */
export function nestingOf(parented: readonly { id: string; scopeKey: string; parentSessionId: string }[]): Nesting {
	const parentOf = new Map(parented.map((p) => [p.id, p.parentSessionId]));
	const orchestratorOf = new Map<string, string>();
	const workersOf = new Map<string, { id: string; scopeKey: string }[]>();
	const nestedIn = new Map<string, number>();
	for (const { id, scopeKey, parentSessionId } of parented) {
		if (parentSessionId === id || isAncestor(id, parentSessionId, parentOf)) continue;
		orchestratorOf.set(id, parentSessionId);
		const list = workersOf.get(parentSessionId);
		if (list) list.push({ id, scopeKey });
		else workersOf.set(parentSessionId, [{ id, scopeKey }]);
		nestedIn.set(scopeKey, (nestedIn.get(scopeKey) ?? 0) + 1);
	}
	return { orchestratorOf, workersOf, nestedIn };
}

/** Whether `id` is `from` or one of its ancestors (following parents that exist). */
function isAncestor(id: string, from: string, parentOf: ReadonlyMap<string, string>): boolean {
	const seen = new Set<string>();
	let at: string | undefined = from;
	while (at !== undefined && !seen.has(at)) {
		if (at === id) return true;
		seen.add(at);
		at = parentOf.get(at);
	}
	return false;
}

/** One version of the data: the groups, and the chains and rows read so far. */
interface TreeState {
	key: string;
	/** The first groups that have a row of their own, newest activity first, as far as pages have asked (`readScopes`; labelled when a page sends them). */
	scopes: Omit<TreeScopeDto, 'label' | 'rows'>[];
	/** Scope rows read so far, listed or not: where the next read starts. */
	read: number;
	/** Every scope row has been read. */
	complete: boolean;
	/** Scopes with no row of their own (each of their sessions is shown under an orchestrator elsewhere). */
	hidden: number;
	/** Every group the first level has. */
	total: number;
	/** The labels of the groups sent so far. */
	labels: Map<string, string>;
	/** The place in the groups' order of each scope workers come from: workers from several scopes are ordered by it. */
	rank: Map<string, number>;
	nesting: Nesting;
	chains: Map<string, SessionRow[]>;
	rows: Map<string, TreeRowDto[]>;
}

const states = new WeakMap<Engine, TreeState>();

/** Whether a scope has a row of its own: not every one of its sessions is shown under an orchestrator. */
const listed = (scope: ScopeSummary, nesting: Nesting): boolean => scope.sessionCount > (nesting.nestedIn.get(scope.scopeKey) ?? 0);

function stateOf(engine: Engine, db: BatonDb): TreeState {
	const key = `${engine.store.tableVersion('sessions')}:${engine.store.tableVersion('tasks')}`;
	let state = states.get(engine);
	if (state?.key !== key) {
		const nesting = nestingOf(parentedSessions(db));
		// The scopes workers come from (few), in the groups' order: newest activity first, then first session.
		const nested = scopeSummariesOf(db, [...nesting.nestedIn.keys()]).sort((a, b) =>
			a.lastActivity === b.lastActivity ? (a.firstSession < b.firstSession ? -1 : 1) : a.lastActivity < b.lastActivity ? 1 : -1,
		);
		const hidden = nested.filter((s) => !listed(s, nesting)).length;
		state = {
			key,
			scopes: [],
			read: 0,
			complete: false,
			hidden,
			total: scopeCount(db) - hidden,
			rank: new Map(nested.map((s, i) => [s.scopeKey, i])),
			nesting,
			labels: new Map(),
			chains: new Map(),
			rows: new Map(),
		};
		states.set(engine, state);
	}
	return state;
}

/** Reads the groups' order on until `count` groups are known (or every scope is read). */
function readScopes(db: BatonDb, state: TreeState, count: number): void {
	while (!state.complete && state.scopes.length < count) {
		// Enough rows to fill the page even if every scope without a row of its own is among them.
		const want = count - state.scopes.length + state.hidden;
		const rows = scopeSummaryPage(db, state.read, want);
		state.read += rows.length;
		state.complete = rows.length < want;
		for (const scope of rows) if (listed(scope, state.nesting)) state.scopes.push(scope);
	}
}

/** Reads the chains of these scopes and of every scope their workers (and theirs) come from. */
function readChains(db: BatonDb, state: TreeState, scopeKeys: readonly string[]): void {
	let missing = [...new Set(scopeKeys)].filter((k) => !state.chains.has(k));
	while (missing.length > 0) {
		const next = new Set<string>();
		for (const [key, chain] of scopeChainRows(db, missing)) {
			state.chains.set(key, chain);
			for (const s of chain) {
				for (const w of state.nesting.workersOf.get(s.id) ?? []) {
					if (!state.chains.has(w.scopeKey)) next.add(w.scopeKey);
				}
			}
		}
		missing = [...next].filter((k) => !state.chains.has(k));
	}
}

function rowsOf(db: BatonDb, state: TreeState, scopeKeys: readonly string[]): Map<string, TreeRowDto[]> {
	readChains(
		db,
		state,
		scopeKeys.filter((k) => !state.rows.has(k)),
	);
	const place = (id: string, scopeKey: string): { row: SessionRow; index: number } | undefined => {
		const chain = state.chains.get(scopeKey) ?? [];
		const index = chain.findIndex((s) => s.id === id);
		return index < 0 ? undefined : { row: chain[index] as SessionRow, index };
	};
	const workerRows = (id: string): TreeRowDto[] => {
		const workers = (state.nesting.workersOf.get(id) ?? []).flatMap((w) => {
			const at = place(w.id, w.scopeKey);
			return at ? [{ ...at, rank: state.rank.get(w.scopeKey) ?? Number.MAX_SAFE_INTEGER }] : [];
		});
		// As the chains list them: scopes newest first, then chain order.
		workers.sort((a, b) => a.rank - b.rank || a.index - b.index);
		return workers.map((w, i) => ({ session: w.row, position: i + 1, workers: workerRows(w.row.id) }));
	};
	const out = new Map<string, TreeRowDto[]>();
	for (const key of scopeKeys) {
		let rows = state.rows.get(key);
		if (!rows) {
			rows = (state.chains.get(key) ?? []).flatMap((s, i) =>
				state.nesting.orchestratorOf.has(s.id) ? [] : [{ session: s, position: i + 1, workers: workerRows(s.id) }],
			);
			state.rows.set(key, rows);
		}
		out.set(key, rows);
	}
	return out;
}

/** The page a request asks for, checked: whole numbers, the limit at most {@link treeRootMost}. */
function treePage(params: TreeRootParams | undefined): { offset: number; limit: number } {
	const whole = (value: unknown, name: string, fallback: number, least: number): number => {
		if (value === undefined || value === null) return fallback;
		if (typeof value !== 'number' || !Number.isInteger(value) || value < least) {
			throw new BatonError('invalidInput', `session/treeRoot: ${name} must be a whole number of at least ${least} (got ${JSON.stringify(value)})`);
		}
		return value;
	};
	return { offset: whole(params?.offset, 'offset', 0, 0), limit: Math.min(treeRootMost, whole(params?.limit, 'limit', treeRootPage, 1)) };
}

/** A page of the first level: its groups, with the rows of those that open expanded; `sent` lists those rows; `total` counts every group. */
export async function treeRootOf(engine: Engine, params?: TreeRootParams): Promise<{ scopes: TreeScopeDto[]; total: number; sent: TreeRowDto[] }> {
	const { offset, limit } = treePage(params);
	return engine.store.read((db) => {
		let state = stateOf(engine, db);
		readScopes(db, state, offset + limit);
		let page = state.scopes.slice(offset, offset + limit);
		const openKeys = page.filter(opensExpanded).map((s) => s.scopeKey);
		let open = rowsOf(db, state, openKeys);
		// A group counted with sessions of its own but sent with no row would open empty (seen once in CI,
		// cause not found): the kept state disagrees with itself, so it is read again, and the log says so.
		const empty = page.filter((s) => open.get(s.scopeKey)?.length === 0 && s.sessionCount > (state.nesting.nestedIn.get(s.scopeKey) ?? 0));
		if (empty.length > 0) {
			engine.ctx.log.warn(
				`session tree: ${empty.map((s) => `${s.scopeKey} (${s.sessionCount})`).join(', ')} counted with sessions but read with none at ${state.key}; reading again`,
			);
			states.delete(engine);
			state = stateOf(engine, db);
			readScopes(db, state, offset + limit);
			page = state.scopes.slice(offset, offset + limit);
			open = rowsOf(
				db,
				state,
				page.filter(opensExpanded).map((s) => s.scopeKey),
			);
		}
		const unlabelled = page.filter((s) => !state.labels.has(s.scopeKey)).map((s) => s.scopeKey);
		for (const [key, label] of scopeLabels(db, unlabelled)) state.labels.set(key, label);
		const sent: TreeRowDto[] = [];
		const scopes = page.map((scope): TreeScopeDto => {
			const labelled = { ...scope, label: state.labels.get(scope.scopeKey) ?? scope.scopeKey };
			const rows = open.get(scope.scopeKey);
			if (!rows) return labelled;
			pushAll(sent, rows);
			return { ...labelled, rows };
		});
		return { scopes, total: state.total, sent };
	});
}

/** One group's rows (empty when it is gone or has no row of its own). */
export async function treeScopeOf(engine: Engine, scopeKey: string): Promise<TreeRowDto[]> {
	return engine.store.read((db) => {
		const state = stateOf(engine, db);
		const [scope] = scopeSummariesOf(db, [scopeKey]);
		return scope && listed(scope, state.nesting) ? (rowsOf(db, state, [scopeKey]).get(scopeKey) ?? []) : [];
	});
}

function sessionIdsOf(rows: readonly TreeRowDto[], out: string[] = []): string[] {
	for (const row of rows) {
		out.push(row.session.id);
		sessionIdsOf(row.workers, out);
	}
	return out;
}

/** Origins of the rows sent only, and only those from other machines (a local row shows none). */
async function originsOf(engine: Engine, rows: readonly TreeRowDto[]): Promise<SessionOriginDto[]> {
	const ids = sessionIdsOf(rows);
	if (ids.length === 0) return [];
	return (await engine.sync.origins(ids)).filter((o) => !o.local);
}

/** A page's answer; the prewarm after the first status computes the first page too, so its queries are warm when the view asks. */
export async function treeRootAnswer(engine: Engine, params?: TreeRootParams): Promise<TreeRootResult> {
	const { scopes, total, sent } = await treeRootOf(engine, params);
	return { scopes, total, origins: await originsOf(engine, sent) };
}

/** Registered by the editor's handlers (which own the prewarm after the first status). */
export function registerTreeHandlers(on: ReturnType<typeof requestRegistrar>, host: EngineHost): void {
	on(sessionTreeRoot, async (params) => treeRootAnswer(await host.get(), params));
	on(sessionTreeScope, async (params) => {
		const engine = await host.get();
		const rows = await treeScopeOf(engine, params.scopeKey);
		return { rows, origins: await originsOf(engine, rows) };
	});
}
