/**
 * The pull's merge (docs/sync.md, "How it travels"): what the last fetch brought into
 * `refs/baton-remotes/<remote>/` is read under bounds a group of batch files at a time, merged by
 * union into the shared events and derived into the tables a page of events a write; teammates'
 * checkpoints point at their shared trees. Run by SyncService after its own fetch, and after one the
 * pre-push/post-merge hooks did.
 */
import { sql } from 'drizzle-orm';
import type { EngineContext } from '../context';
import { isoTime } from '../ids';
import type { BatonDb } from '../storage/capturingDrizzle';
import { refuseIdentityClaims, warnOpinions } from './authority';
import { pushAll } from '../arrays';
import type { EventRefs } from './eventRefs';
import type { WireEvent } from '../shared/sharedEvents';
import { mergeWireEvents } from './mergeWire';
import { projectEvents } from './projection';
import { warnRefused, type PullResult } from './pullResult';
import type { RefRange } from './refTrees';
import { applyRetractions, retractedKind, type TakenBack } from './retraction';
import { emptyRemote, readSyncState, updateSyncState, type RemoteState } from './syncState';
import type { TranscriptSync } from './transcriptSync';

/** A teammate's shared tree for one of its local snapshots (sharedTrees.ts), with the machine that wrote it. */
type SharedTreePair = { machine: string; snapshot: string; shared: string };

/** What the merge reads and writes through: SyncService's parts. */
export interface MergeParts {
	ctx: EngineContext;
	root: string;
	refs(): EventRefs;
	transcripts(): TranscriptSync;
	/** The records changed here since the last sync become events first, so the merge derives from them too. */
	recordPending(): Promise<void>;
	/** Events per write of the merge (`mergePageEvents`; tests make it small). */
	pageEvents?: number | undefined;
	/** Bytes of batch files read at a time (eventRefs.ts `pullGroupBytes`; tests make it small). */
	groupBytes?: number | undefined;
}

/** How much a sync handles at a time (engine.ts `syncPageEvents`, `syncGroupBytes`): the export pages too. */
export type SyncPaging = Pick<MergeParts, 'pageEvents' | 'groupBytes'>;

/** Merges what the last fetch brought (also after a fetch the pre-push/post-merge hooks did). */
export async function mergeFetched(parts: MergeParts, name: string): Promise<PullResult> {
	const { ctx, root } = parts;
	const refs = parts.refs();
	const own = refs.machine;
	const state = readSyncState(root).remotes[name] ?? emptyRemote();
	// One read of every ref the fetch brought (events and transcripts).
	const tracking = await refs.refs(`refs/baton-remotes/${name}/`);
	const eventsPrefix = `refs/baton-remotes/${name}/events/`;
	const processed: Record<string, string> = {};
	let fetched = 0;
	const ranges: RefRange[] = [];
	for (const [ref, oid] of tracking) {
		if (!ref.startsWith(eventsPrefix) || ref.endsWith(`/${own}`) || state.pulled[ref] === oid) {
			continue;
		}
		fetched++;
		ranges.push({ ref, from: state.pulled[ref] ?? null, to: oid });
		processed[ref] = oid;
	}
	const sharedTrees = await pulledSharedTrees(ctx, refs, name, state, tracking, processed);
	const listed = await refs.listBatches(ranges);
	// A refused ref is not taken as pulled: the next pull names it again, and reads it once it is mended.
	listed.refusedRefs.forEach((ref) => delete processed[ref]);
	const transcripts = await parts.transcripts().import(name, state.pulled, tracking);
	// What changed here first, so the merge below derives from every machine's events, ours too.
	await parts.recordPending();
	const nowMs = ctx.clock.now();
	// The batches are read a group at a time, each merged before the next is read.
	const brokenLines = [...listed.refused];
	const claims: ReturnType<typeof refuseIdentityClaims>['refused'] = [];
	const pages = async function* () {
		for await (const group of refs.readBatchGroups(listed.blobs, parts.groupBytes, listed.owners)) {
			pushAll(brokenLines, group.refused);
			const { kept, refused } = refuseIdentityClaims(group.events, own);
			pushAll(claims, refused);
			yield { wire: kept, bodies: group.bodies, last: group.last };
		}
	};
	const result = await mergeInPages(ctx, pages(), { name, own, nowMs, sharedTrees, pageEvents: parts.pageEvents ?? mergePageEvents });
	for (const kind of result.projected.unknownKinds) {
		ctx.log.warn(`sync: kept events of kind "${kind}" from remote "${name}" that this version does not show`);
	}
	for (const type of result.projected.unknownScopes) {
		ctx.log.warn(`sync: kept sessions from remote "${name}" whose scope type "${type}" this version does not know (they show under their scope key)`);
	}
	// A teammate took sessions back: the copies of their transcripts imported here from that teammate go as well.
	if (result.taken.length > 0) {
		await parts
			.transcripts()
			.forget(result.taken)
			.catch((error: Error) => ctx.log.warn(`sync: could not remove the transcripts of sessions a teammate took back: ${error.message}`));
	}
	const refused = [...brokenLines, ...transcripts.refused, ...claims, ...result.merged.refused];
	warnRefused(ctx.log, name, refused);
	warnOpinions(ctx.log, name, result.projected.opinions);
	updateSyncState(root, (s) => {
		const r = (s.remotes[name] ??= emptyRemote());
		Object.assign(r.pulled, processed, transcripts.processed);
		forgetRewritten(r, tracking, name);
		r.lastPull = isoTime(nowMs);
		r.lastError = null;
	});
	return {
		fetched,
		newEvents: result.added,
		sessions: result.projected.sessions,
		checkpoints: result.projected.checkpoints,
		records: result.projected.records,
		transcripts: transcripts.imported,
		refused,
		opinions: result.projected.opinions,
		...(result.dropped > 0 ? { retracted: result.dropped } : {}),
	};
}

/**
 * This machine's refs the remote no longer holds as this machine pushed them (someone rewrote or
 * deleted them there; the fetch just read them) are no longer counted as pushed: the status says they
 * are queued, and the next push sends them again, by force (docs/sync.md "Push"). A push of nothing new
 * sent nothing, so a rewritten ref stayed rewritten, and fresh clones never saw this machine's history.
 */
function forgetRewritten(r: RemoteState, tracking: ReadonlyMap<string, string>, name: string): void {
	for (const [ref, oid] of Object.entries(r.pushed)) {
		if (ref.startsWith('refs/baton/') && tracking.get(`refs/baton-remotes/${name}/${ref.slice('refs/baton/'.length)}`) !== oid) {
			delete r.pushed[ref];
		}
	}
}

/**
 * Events per write of a pull's merge. One write is one journal record, written as one JSON string and
 * read back as one: a fresh clone's pull of 100,000 sessions' history (some 800,000 events, with the
 * rows derived from them) passed V8's longest string and failed (`Invalid string length`). A page is
 * also what a write holds at once beside its batch (the events, the statements' values, the record):
 * at 20,000 a page the daemon pulling 10,000 sessions' history held about 40 MB more than at 5,000.
 */
const mergePageEvents = 5_000;

type Merged = ReturnType<typeof mergeWireEvents>;
type Projected = ReturnType<typeof projectEvents>;

/** What the fetched batches bring a group at a time: their events (claims refused), their bodies, and whether it is the last. */
type WireGroups = AsyncIterable<{ wire: readonly WireEvent[]; bodies: ReadonlyMap<object, string>; last: boolean }>;

/**
 * The pages of `groups`, in order, `pageEvents` at most each, the last one marked. A group says itself
 * whether it is the last (the reader knows its groups before it reads them): reading the next one
 * ahead to find out held two groups' files and events at once (20,000 events each), the largest part
 * of a fresh clone's memory through its pull.
 */
async function* pagesOf(
	groups: WireGroups,
	pageEvents: number,
): AsyncGenerator<{ part: readonly WireEvent[]; bodies: ReadonlyMap<object, string>; last: boolean }> {
	let any = false;
	for await (const { wire, bodies, last } of groups) {
		any = true;
		const count = Math.max(1, Math.ceil(wire.length / pageEvents));
		for (let page = 0; page < count; page++) {
			yield { part: wire.slice(page * pageEvents, (page + 1) * pageEvents), bodies, last: last && page === count - 1 };
		}
		if (last) {
			return;
		}
	}
	if (!any) {
		// Nothing fetched: still one (empty) write, which applies the shared trees.
		yield { part: [], bodies: new Map(), last: true };
		return;
	}
	throw new Error('the pull’s batch groups ended with none marked the last');
}

/**
 * Merges and derives what `groups` bring a page at a time, in order, each page one write: a page is to
 * the tables what a pull of those events alone would be (the projection reads the earlier pages' rows
 * as it reads an earlier pull's). The groups are read as the pages are written, each after the one
 * before is merged: a pull holds a group's events, not every fetched one. A crash between pages
 * leaves the first ones merged; the pull's marks move only after the last, so the next pull reads the
 * same events again and the union by id adds the rest. Teammates' shared trees are applied in the last
 * write, after every page's events; retractions in each page's write and again in the last.
 */
async function mergeInPages(
	ctx: EngineContext,
	groups: WireGroups,
	pull: { name: string; own: string; nowMs: number; sharedTrees: readonly SharedTreePair[]; pageEvents: number },
): Promise<{ merged: Merged; added: number; projected: Projected; dropped: number; taken: TakenBack[] }> {
	const { name, own, nowMs, sharedTrees } = pull;
	let merged: Merged | undefined;
	let projected: Projected | undefined;
	let added = 0;
	let dropped = 0;
	const taken = new Map<string, TakenBack>();
	for await (const { part, bodies, last } of pagesOf(groups, pull.pageEvents)) {
		const done = await ctx.store.write((db) => {
			const m = mergeWireEvents(db, part, name, nowMs, bodies);
			// The merged rows are the wire events as received: no need to read them back.
			const p = projectEvents(db, m.events, own, ctx.store, { mergedAfter: m.before });
			if (last) {
				useSharedTrees(db, sharedTrees);
			}
			// A page's tombstones apply in its own write: once merged they are never new again, so a crash
			// before the last page must not leave one unapplied. The last write applies every earlier one
			// again, for the events later pages brought.
			const r = applyRetractions(db, last && merged ? [...merged.events, ...m.events] : m.events, own);
			return { m, p, r };
		});
		added += done.m.added.length;
		merged = addMerged(merged ?? { added: [], events: [], refused: [], before: done.m.before }, done.m);
		projected = projected ? addProjected(projected, done.p) : done.p;
		dropped += done.r.dropped;
		done.r.taken.forEach((one) => taken.set(`${one.machine}\u0000${one.session}`, one));
		if (last) {
			return { merged, added, projected, dropped, taken: [...taken.values()] };
		}
	}
	throw new Error('unreachable: the last page returns');
}

/**
 * Two pages' merges as one; of the events only the retractions are kept (the last write applies them
 * again), and the ids added are counted, not kept (mergeInPages): a long pull holds a page's events
 * once, and copied no growing list of every id it added at each page (820,000 at 100,000 sessions).
 */
function addMerged(a: Merged, b: Merged): Merged {
	const events = a.events.filter((e) => e.kind === retractedKind);
	for (const e of b.events) {
		if (e.kind === retractedKind) {
			events.push(e);
		}
	}
	return { added: [], events, refused: a.refused.length === 0 ? b.refused : [...a.refused, ...b.refused], before: a.before };
}

function addProjected(a: Projected, b: Projected): Projected {
	const sum = <T extends object>(x: T, y: T): T => {
		const [p, q] = [x as Record<string, number>, y as Record<string, number>];
		return Object.fromEntries(Object.keys(p).map((k) => [k, (p[k] ?? 0) + (q[k] ?? 0)])) as T;
	};
	return {
		sessions: sum(a.sessions, b.sessions),
		checkpoints: sum(a.checkpoints, b.checkpoints),
		records: sum(a.records, b.records),
		unknownKinds: [...new Set([...a.unknownKinds, ...b.unknownKinds])],
		unknownScopes: [...new Set([...a.unknownScopes, ...b.unknownScopes])],
		opinions: [...a.opinions, ...b.opinions],
	};
}

/**
 * Teammates' checkpoints are read from their shared trees (sharedTrees.ts): the pairs their checkpoints
 * refs added since the last pull. A ref read is marked in `processed`; one that cannot be read is
 * warned of and left for the next pull.
 */
async function pulledSharedTrees(
	ctx: EngineContext,
	refs: EventRefs,
	name: string,
	state: RemoteState,
	tracking: Map<string, string>,
	processed: Record<string, string>,
): Promise<SharedTreePair[]> {
	const own = refs.machine;
	const checkpointsPrefix = `refs/baton-remotes/${name}/checkpoints/`;
	const sharedTrees: { machine: string; snapshot: string; shared: string }[] = [];
	for (const [ref, oid] of tracking) {
		if (!ref.startsWith(checkpointsPrefix) || ref.endsWith(`/${own}`) || state.pulled[ref] === oid) {
			continue;
		}
		const machine = ref.slice(checkpointsPrefix.length);
		try {
			for (const pair of await refs.sharedPairsIn(state.pulled[ref] ?? null, oid)) {
				sharedTrees.push({ machine, ...pair });
			}
			processed[ref] = oid;
		} catch (error) {
			ctx.log.warn(
				`sync: the checkpoints ref of machine ${machine} from remote "${name}" cannot be read (${(error as Error).message}); its checkpoints' files are not shown`,
			);
		}
	}
	return sharedTrees;
}

/**
 * A teammate's checkpoint is read from the shared tree its machine wrote for it (sharedTrees.ts), not
 * from the local snapshot it names, which never left that machine: each pair is believed only for
 * the checkpoints that machine itself recorded. Run after the projection, so a checkpoint projected by
 * this pull or an earlier one is pointed at its tree alike.
 */
function useSharedTrees(db: BatonDb, pairs: readonly SharedTreePair[]): void {
	for (const p of pairs) {
		db.run(
			sql`UPDATE checkpoints SET commit_sha = ${p.shared} WHERE commit_sha = ${p.snapshot} AND id IN (SELECT subject FROM shared_events WHERE kind = 'checkpoint.recorded' AND machine = ${p.machine} AND source <> 'local')`,
		);
	}
}
