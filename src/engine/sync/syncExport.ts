/**
 * The export job of sync (docs/sync.md, "How it travels"): this machine's new local events, the
 * records that become events at a sync, and its checkpoints' shared trees written into its own refs
 * above the durable "exported up to" mark. SyncService runs it before each push and, through
 * exportAhead, when the backend is idle.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readCacheFile, writeCacheFile, type CacheKind } from '../storage/cacheFile';
import { batonDir } from '../workspace';
import type { ShadowRepo } from '../shadow/shadowRepo';
import type { EngineContext } from '../context';
import { batchCheck, type ObjectInfo } from '../git/objectReader';
import type { BatonDb } from '../storage/capturingDrizzle';
import type { NewSharedEvent } from '../shared/sharedEvents';
import type { EventRefs } from './eventRefs';
import { keepLeftOut } from './leftOut';
import { readRetracted } from './retraction';
import { SharedTrees, type PlannedTree } from './sharedTrees';
import {
	countAboveMark,
	exportPageEvents,
	freshAboveMark,
	freshByIds,
	localCheckpointCommits,
	readExportMark,
	wirePage,
	writeExportMark,
	type FreshEvents,
} from './exportMark';
import type { TimelineSync } from './timelineSync';
import type { TranscriptSync } from './transcriptSync';
import { ownEventWriter } from './localEvents';
import { recordEventStream, recordTables, tableComparison, type RecordTable, type ResumePoints } from './recordEvents';
import { take } from '../arrays';
import { nextTurn } from '../ports';
import { readSyncState, syncDir } from './syncState';
import type { PullResult } from './pullResult';

/** The parts of SyncService the export writes through, built lazily there and shared with the pull. */
interface ExportParts {
	refs(): EventRefs;
	transcripts(): TranscriptSync;
	timeline(): TimelineSync;
}

/** The record tables found settled, by content mark, kept for the next process (cacheFile.ts). */
const settledKind: CacheKind = { magic: Buffer.from('BATONSETTLEDRECS', 'latin1'), format: 1, name: 'a settled-records cache' };

export class SyncExport {
	private writeOwn: ReturnType<typeof ownEventWriter> | undefined;
	/** Each record table's version at which none of its records was waiting to become an event (recordPending). */
	private readonly recordsSettled = new Map<RecordTable, number>();
	/** The content marks of the tables a process found settled (`settle`), as saved for the next one. */
	private savedSettled: Partial<Record<RecordTable, string>> | undefined;
	/** How many times each record table was compared with its events (each a read of its every record). */
	readonly recordComparisons = new Map<RecordTable, number>();
	/** Bumped by `forgetRecordsSettled`: a comparison running across it settles nothing. */
	private forgets = 0;
	/** Where the comparison of a table that owes events may start, at the version it was found at (`settleRecords`). */
	private readonly owingFrom = new Map<RecordTable, { version: number; after: number; forgets: number }>();
	/** Kept: what it knows of the last shared tree it built lets the next one be built from the changes alone. */
	private sharedTrees: SharedTrees | undefined;

	constructor(
		private readonly ctx: EngineContext,
		private readonly shadow: ShadowRepo,
		private readonly parts: ExportParts,
		/** Runs before each export (engine.ts hands in line provenance's `attributePending`). */
		private readonly beforeExport: () => Promise<unknown>,
		/** Local events per page of an export (exportMark.ts). */
		readonly pageEvents: number = exportPageEvents,
	) {}

	private get root(): string {
		return this.ctx.workspaceRoot;
	}

	/** `.baton/sync/exported.json`: the events ref's tip and the last event exported (exportMark.ts). */
	get markFile(): string {
		return path.join(syncDir(this.root), 'exported.json');
	}

	/** After a retraction rewrote the checkpoints ref: the next shared tree is built afresh, not from the old chain. */
	forgetSharedTrees(): void {
		this.sharedTrees = undefined;
	}

	/** Writes this machine's new local events (and their checkpoints' commits) into its own refs. */
	async export(): Promise<{ events: number; checkpoints: number }> {
		await this.beforeExport().catch((error: Error) =>
			this.ctx.log.warn(`sync: the commits made since the last push could not be attributed before it: ${error.message}`),
		);
		// Outside the shadow lock, which a hook's capture waits for: the comparison of the records a chunk a turn.
		await this.settleRecords();
		return this.shadow.withLock(async () => {
			await this.shadow.ensureInit(this.ctx.config.checkpoints.excludes);
			const refs = this.parts.refs();
			refs.clearStaleRefLocks('baton');
			await this.recordPending();
			// Only the events above the durable "exported up to" mark are read (exportMark.ts).
			const tip = await refs.tip(refs.eventsRef);
			const mark = tip ? readExportMark(this.markFile, tip) : null;
			const retracted = readRetracted(this.root);
			let plan = await this.ctx.store.read((db) => (tip && !mark ? null : freshAboveMark(db, mark, retracted.events, this.pageEvents)));
			if (!plan) {
				const exported = await refs.idsInRef(tip as string);
				plan = await this.ctx.store.read((db) => freshByIds(db, exported, retracted.events, this.pageEvents));
			}
			const { upTo } = plan;
			const recorded = (await this.ctx.store.read((db) => localCheckpointCommits(db))).filter((c) => !retracted.snapshots.has(c));
			const shared = await refs.sharedCheckpoints();
			const commits = recorded.filter((c) => !shared.commits.has(c));
			const present = await this.presentCommits(commits);
			// What each checkpoint shares: the files the user's git would commit that pass the credential scan.
			const enabled = Object.values(readSyncState(this.root).remotes).filter((r) => r.enabled);
			const rules = { untracked: enabled.length > 0 && enabled.every((r) => r.untracked) };
			this.sharedTrees ??= new SharedTrees(this.shadow, this.root);
			const trees = await this.sharedTrees.build(present, rules, shared.last);
			const exported = await this.writeEvents(plan, trees.trees, shared.last?.shared ?? null);
			// Each step's files travel only while some enabled remote takes them (`--timeline`), under the same rules.
			const steps = enabled.some((r) => r.timeline)
				? await this.parts.timeline().export(this.sharedTrees, rules, retracted.events, this.ctx.clock.now())
				: { steps: 0, leftOut: [] };
			const leftOut = [...trees.leftOut, ...steps.leftOut];
			if (leftOut.length > 0) {
				keepLeftOut(this.root, leftOut);
				for (const f of leftOut.slice(0, 20)) {
					const where = f.step ? `step ${f.step.step} of session ${f.step.sessionId}` : `checkpoint snapshot ${(f.snapshot ?? '').slice(0, 10)}`;
					this.ctx.log.warn(`sync: ${f.path} (${where}) was left out of what is shared: it ${f.reason}`);
				}
			}
			if (upTo && (exported > 0 || !mark || mark.rowid !== upTo.rowid)) {
				const newTip = await refs.tip(refs.eventsRef);
				if (newTip) {
					writeExportMark(this.markFile, { tip: newTip, ...upTo });
				}
			}
			// Transcripts are written only while some enabled remote takes them (`--transcripts`).
			if (Object.values(readSyncState(this.root).remotes).some((r) => r.enabled && r.transcripts)) {
				await this.parts.transcripts().export(this.ctx.clock.now());
			}
			return { events: exported, checkpoints: present.length };
		});
	}

	/**
	 * Appends `plan`'s events to this machine's events ref, a page at a time (each read from the store
	 * and written by its own `fast-import`, so a first push of a long history never holds it whole),
	 * and `trees` with the last page. A crash between pages leaves the ref holding some: the mark is
	 * not written, so the next export compares ids (`freshByIds`) and sends the rest. Needs the shadow
	 * lock. Returns how many events went in.
	 */
	async writeEvents(plan: FreshEvents, trees: readonly PlannedTree[], lastShared: string | null): Promise<number> {
		const refs = this.parts.refs();
		let written = 0;
		for (let i = 0; i < Math.max(1, plan.pages.length); i++) {
			const where = plan.pages[i];
			const page = where ? await this.ctx.store.read((db) => wirePage(db, where)) : { count: 0, text: '', lastId: null };
			const last = i >= plan.pages.length - 1;
			await refs.append(page, last ? trees : [], this.ctx.clock.now(), last ? lastShared : null);
			written += page.count;
		}
		return written;
	}

	/** This machine's events ref written again from nothing with `plan`'s events (a retraction). Needs the shadow lock. */
	async rewriteEvents(plan: FreshEvents): Promise<void> {
		await this.parts.refs().dropEvents();
		await this.writeEvents(plan, [], null);
	}

	/** Decisions, labels, facts, tasks and imports changed since the last sync become events (recordEvents.ts). */
	async recordPending(): Promise<void> {
		this.writeOwn ??= ownEventWriter(this.ctx);
		const write = this.writeOwn;
		const store = this.ctx.store;
		await this.settleRecords();
		// A read first: most syncs have nothing to add, and a write is a commit. Nothing changed since a
		// sync that found nothing (the store's data version says so) is not compared again.
		const first = await store.read((db) => this.firstPendingPage(db));
		if (!first) {
			return;
		}
		// A page a write, each computed as the one before it is written: the first push of 100,000
		// sessions' history owed 820,000 record events, computed at once they took the daemon past 1.4 GB
		// (and in one write, one journal record of about 400 MB). The stream goes on across this
		// process's own writes; anyone else's (the data version moved otherwise) starts it again.
		let { stream, page, version, compared } = first;
		let settled = false;
		while (page.length > 0) {
			page = await store.write((db) => {
				if (store.dataVersion !== version) {
					compared = this.staleRecordTables();
					stream = recordEventStream(db, [...compared.keys()], this.resumePoints(compared));
					page = take(stream, this.pageEvents);
				}
				if (page.length > 0) {
					write(db, page);
				}
				const next = page.length < this.pageEvents ? [] : take(stream, this.pageEvents);
				// The stream ran to its end: every record of the tables compared has its events now (these
				// writes touch events alone, so those tables stay at the versions they were compared at).
				settled = next.length === 0;
				return next;
			});
			version = store.dataVersion;
			// The daemon answers others between pages (a first push writes thousands of them).
			await nextTurn();
		}
		if (settled) this.settle(compared);
	}

	/**
	 * The first page of the records waiting to become events, or undefined when none are. Only the
	 * record tables that changed since they were last found settled are compared: a comparison reads
	 * every record of its table and their events (2.8 s at 50,000 imported sessions, on the daemon's
	 * event loop), and keyed on the whole store's data version it ran again after every hook's write,
	 * at the first idle export after any activity, holding up the next tool call's hook that long.
	 * What a table owes changes only when a record of it does (its version says so), or when a merge
	 * brings or takes back events (`forgetRecordsSettled`).
	 */
	private firstPendingPage(
		db: BatonDb,
	): { stream: Iterator<NewSharedEvent>; page: NewSharedEvent[]; version: number; compared: Map<RecordTable, number> } | undefined {
		const version = this.ctx.store.dataVersion;
		const compared = this.staleRecordTables();
		if (compared.size === 0) {
			return undefined;
		}
		compared.forEach((_, table) => this.recordComparisons.set(table, (this.recordComparisons.get(table) ?? 0) + 1));
		const stream = recordEventStream(db, [...compared.keys()], this.resumePoints(compared));
		const page = take(stream, this.pageEvents);
		if (page.length === 0) {
			this.settle(compared);
			return undefined;
		}
		return { stream, page, version, compared };
	}

	/**
	 * The stale record tables compared with their events a chunk (1,000 records) a turn, each chunk in a
	 * read of its own, with no lock held: a table found to owe nothing is settled, so the sync's own
	 * comparison (under the shadow lock, in one read) skips it; one that owes events is compared there
	 * from the chunk its first owed event lies in. The first sync of a process on a store whose
	 * tables it has not found settled (a new daemon, the first sync after a pull that brought events)
	 * compared every table in one read — 3.4 s at 50,000 sessions, the daemon answering nobody and a
	 * hook's capture waiting on the lock. A table that changes while it is compared (its version moves: any other process's
	 * write moves every table's), or a merge's forgetting, settles nothing: it is compared again.
	 */
	async settleRecords(): Promise<void> {
		const store = this.ctx.store;
		const forgets = this.forgets;
		const settled = new Map<RecordTable, number>();
		for (const [table, version] of this.staleRecordTables()) {
			const owing = this.owingFrom.get(table);
			if (owing?.version === version && owing.forgets === forgets) continue; // known to owe, from there
			const steps: { comparison?: Generator<void, number | null> } = {};
			let outcome: { owingAfter: number | null } | 'moved' | undefined;
			while (outcome === undefined) {
				outcome = await store.read((db) => {
					if (store.tableVersion(table) !== version || this.forgets !== forgets) return 'moved';
					steps.comparison ??= tableComparison(db, table);
					const step = steps.comparison.next();
					return step.done ? { owingAfter: step.value } : undefined;
				});
				if (outcome === undefined) await nextTurn();
			}
			if (outcome === 'moved') {
				steps.comparison?.return(null);
			} else if (outcome.owingAfter === null) {
				this.recordComparisons.set(table, (this.recordComparisons.get(table) ?? 0) + 1);
				settled.set(table, version);
			} else {
				this.owingFrom.set(table, { version, after: outcome.owingAfter, forgets });
			}
		}
		const still = [...settled].filter(([table, version]) => store.tableVersion(table) === version);
		if (still.length > 0 && this.forgets === forgets) this.settle(new Map(still));
	}

	/** Where each of `compared` may start (`settleRecords` found the records before it owe nothing, at the version compared now). */
	private resumePoints(compared: ReadonlyMap<RecordTable, number>): ResumePoints {
		const from = new Map<RecordTable, number>();
		for (const [table, version] of compared) {
			const owing = this.owingFrom.get(table);
			if (owing?.version === version && this.forgets === owing.forgets) from.set(table, owing.after);
		}
		return from;
	}

	/**
	 * `compared` owes nothing at those versions: kept for this process, and each settled table's
	 * content mark (the same in every process, tableVersions.ts) in `.baton/cache/records-settled`
	 * for the next one, whose first idle export otherwise compared every table again (3.4 s at 50,000
	 * sessions, the first tool call after a daemon started waiting on it). A cache: not synced.
	 */
	private settle(compared: ReadonlyMap<RecordTable, number>): void {
		compared.forEach((at, table) => {
			this.recordsSettled.set(table, at);
			this.owingFrom.delete(table);
		});
		const marks: Partial<Record<RecordTable, string>> = {};
		for (const table of recordTables) {
			const mark = this.recordsSettled.get(table) === this.ctx.store.tableVersion(table) ? this.ctx.store.contentMark([table]) : undefined;
			if (mark !== undefined) marks[table] = mark;
		}
		this.savedSettled = marks;
		try {
			writeCacheFile(this.settledFile, settledKind, [Buffer.from(JSON.stringify(marks), 'utf8')]);
		} catch (error) {
			this.ctx.log.warn(`sync: could not save which records owe nothing (the next process compares them again): ${(error as Error).message}`);
		}
	}

	private get settledFile(): string {
		return path.join(batonDir(this.root), 'cache', 'records-settled');
	}

	/** What a process saved of the settled tables (`settle`), read once; nothing when it is missing or not such a file. */
	private saved(): Partial<Record<RecordTable, string>> {
		if (this.savedSettled === undefined) {
			this.savedSettled = {};
			// The project's one cache reader: a FIFO or a damaged file put there is refused, never waited on or trusted.
			const read = readCacheFile(this.settledFile, settledKind);
			try {
				const parsed = 'bytes' in read ? (JSON.parse(read.bytes.toString('utf8')) as unknown) : null;
				for (const table of recordTables) {
					const mark = (parsed as Record<string, unknown> | null)?.[table];
					if (typeof mark === 'string') this.savedSettled[table] = mark;
				}
			} catch {
				// Missing or damaged: every table is compared, as with none saved.
			}
		}
		return this.savedSettled;
	}

	/** The record tables not known to owe nothing at their versions now, with those versions. */
	private staleRecordTables(): Map<RecordTable, number> {
		const stale = new Map<RecordTable, number>();
		for (const table of recordTables) {
			const at = this.ctx.store.tableVersion(table);
			if (this.recordsSettled.get(table) === at) continue;
			// This process's first look: a table another process found settled at the content it holds now owes nothing.
			const mark = this.recordsSettled.has(table) ? undefined : this.saved()[table];
			if (mark !== undefined && mark === this.ctx.store.contentMark([table])) {
				this.recordsSettled.set(table, at);
				continue;
			}
			stale.set(table, at);
		}
		return stale;
	}

	/**
	 * A pull's merge, after which what the records owe is compared again at the next sync if it brought
	 * or took back events, or failed part-way. A pull that found nothing new (the editor pulls on focus,
	 * up to once a minute) leaves the tables settled: at 50,000 sessions comparing them all is seconds
	 * of the daemon's CPU.
	 */
	async afterMerge(merging: Promise<PullResult>): Promise<PullResult> {
		let merged: PullResult | undefined;
		try {
			merged = await merging;
			return merged;
		} finally {
			if (!merged || merged.newEvents > 0 || (merged.retracted ?? 0) > 0) this.forgetRecordsSettled();
		}
	}

	/** A merge brought (or retracted) events: what the records owe is compared again at the next sync. */
	forgetRecordsSettled(): void {
		this.forgets++;
		this.owingFrom.clear();
		this.recordsSettled.clear();
		this.savedSettled = {};
		fs.rmSync(this.settledFile, { force: true });
	}

	private async presentCommits(commits: readonly string[]): Promise<string[]> {
		if (commits.length === 0) {
			return [];
		}
		const found = await batchCheck(async (args, input) => (await this.shadow.git(args, input !== undefined ? { input } : {})).stdout, commits);
		return found.filter((o): o is ObjectInfo => o?.type === 'commit').map((o) => o.oid);
	}

	/** Local events not yet in this machine's events ref. */
	async unexportedCount(): Promise<number> {
		const tip = await this.parts.refs().tip(this.parts.refs().eventsRef);
		const mark = tip ? readExportMark(this.markFile, tip) : null;
		const above = await this.ctx.store.read((db) => (tip && !mark ? null : countAboveMark(db, mark)));
		if (above !== null) {
			return above;
		}
		const known = await this.parts.refs().idsInRef(tip as string);
		return (await this.ctx.store.read((db) => freshByIds(db, known))).count;
	}
}
