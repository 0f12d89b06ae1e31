/**
 * Sessions shared through the repository's git remote (docs/sync.md): enable/disable per remote,
 * push (export this machine's new events into its own refs, then push exactly those refs), pull
 * (fetch every machine's refs into a namespace of their own, merge the events by union, derive the
 * tables), status. Nothing here touches the user's refs, index, work tree or `.git/config`.
 */
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { pushAll } from '../arrays';
import type { ShadowRepo } from '../shadow/shadowRepo';
import type { EngineContext } from '../context';
import { BatonError } from '../errors';
import { isoTime } from '../ids';
import { LockFile } from '../storage/lockFile';
import { mkdirPrivate } from '../workspace';
import { sharedEvents } from '../storage/schema';
import { machineIdentity } from '../shared/machineIdentity';
import { EventRefs } from './eventRefs';
import { takeLeftOut } from './leftOut';
import { pushWorthy, type AutoPushTarget } from './autoPush';
import { addRetracted, cannotUndo, chooseRetracted, readRetracted, retractedKind, type RetractRequest } from './retraction';
import { appendSharedEvent } from '../shared/sharedEvents';
import type { EnabledRemote, LeftOutFile, RemoteStatus, Retractable, RetractResult, SyncRemote } from './syncShapes';
import { freshByIds, writeExportMark } from './exportMark';
import { TranscriptSync } from './transcriptSync';
import type { TranscriptArchive } from '../transcripts/transcriptArchive';
import { TimelineSync } from './timelineSync';
import { SyncExport } from './syncExport';
import { mergeFetched, type MergeParts, type SyncPaging } from './syncMerge';
import type { RecordTable } from './recordEvents';
import { sessionOrigins, type SessionOrigin } from './sessionOrigins';
import { addPull, emptyPull, type PullResult } from './pullResult';
import { fetchBatonRefs, pushRefs, remoteNames, remoteTransport, remoteUrl, type PushedRef, type RemoteTransport } from './remoteGit';
import { emptyRemote, readSyncState, syncDir, updateSyncState, type RemoteState } from './syncState';
import { withoutUrlCredentials } from '../text/urlCredentials';
import { opinionsAbout, opinionsFor, type TeammateOpinion } from './authority';

interface PushResult {
	pushed: PushedRef[];
	remote: string;
	/** Files of checkpoints shared since the last push that were kept off the remote, and why (sharedTrees.ts). */
	leftOut?: LeftOutFile[];
}

const networkTimeoutMs = 5 * 60_000;

export class SyncService {
	private refsCache: EventRefs | undefined;
	private transcriptsCache: TranscriptSync | undefined;
	private timelineCache: TimelineSync | undefined;
	/** The export job (syncExport.ts): what a push writes into this machine's refs first. */
	private readonly exporter: SyncExport;
	/** How many times a sync compared `table`'s records with their events, each a read of its every record (tests watch it stay put). */
	readonly recordComparisons = (table: RecordTable): number => this.exporter.recordComparisons.get(table) ?? 0;
	/**
	 * The record tables not known to owe nothing compared with their events a chunk a turn, with no lock
	 * held (SyncExport.settleRecords): every export does this first, so its comparison under the shadow
	 * lock reads only what owes.
	 */
	readonly settleRecords = (): Promise<void> => this.exporter.settleRecords();
	/** What the pull's merge (syncMerge.ts) works through. */
	private readonly merging: MergeParts;

	constructor(
		private readonly ctx: EngineContext,
		private readonly shadow: ShadowRepo,
		/**
		 * Runs before each export (engine.ts hands in line provenance's `attributePending`): commits made or
		 * rewritten since (an amend, a rebase, a cherry-pick) get their attribution events now, so they
		 * travel with this push instead of waiting for someone's next blame here.
		 */
		beforeExport: () => Promise<unknown>,
		/** The engine's transcript archive (engine.ts: one rule for the agents' homes). */
		private readonly openArchive: () => TranscriptArchive,
		paging: SyncPaging = {},
	) {
		const parts = { refs: () => this.refs, transcripts: () => this.transcripts, timeline: () => this.timeline };
		this.exporter = new SyncExport(ctx, shadow, parts, beforeExport, paging.pageEvents);
		this.merging = { ctx, root: ctx.workspaceRoot, ...parts, recordPending: () => this.exporter.recordPending(), ...paging };
	}

	private get root(): string {
		return this.ctx.workspaceRoot;
	}

	private get refs(): EventRefs {
		this.refsCache ??= new EventRefs(this.shadow, machineIdentity(this.root).id);
		return this.refsCache;
	}

	private get transcripts(): TranscriptSync {
		this.transcriptsCache ??= new TranscriptSync(this.ctx, this.shadow, this.refs, this.openArchive);
		return this.transcriptsCache;
	}

	private get timeline(): TimelineSync {
		this.timelineCache ??= new TimelineSync(this.ctx, this.shadow, this.refs);
		return this.timelineCache;
	}

	/** This machine's refs a remote is sent: events and checkpoints always; transcripts and the timeline where enabled. */
	private refsFor(remote: Pick<RemoteState, 'transcripts' | 'timeline'>): string[] {
		const optional = [...(remote.transcripts ? [this.transcripts.ref] : []), ...(remote.timeline ? [this.timeline.ref] : [])];
		return [this.refs.eventsRef, this.refs.checkpointsRef, ...optional];
	}

	async enable(remote: string, options: { transcripts?: boolean; untracked?: boolean; timeline?: boolean } = {}): Promise<EnabledRemote> {
		// Shown to the person (CLI, editor): never with the credential a URL may carry.
		const url = withoutUrlCredentials(await remoteUrl(this.root, remote));
		return this.withSyncLock(async () => {
			updateSyncState(this.root, (state) => {
				const current = state.remotes[remote] ?? emptyRemote();
				state.remotes[remote] = {
					...current,
					enabled: true,
					transcripts: options.transcripts ?? false,
					untracked: options.untracked ?? false,
					timeline: options.timeline ?? false,
				};
			});
			return {
				remote,
				url,
				enabled: true as const,
				transcripts: options.transcripts ?? false,
				untracked: options.untracked ?? false,
				timeline: options.timeline ?? false,
			};
		});
	}

	/** The repository's git remotes and the ones sharing was enabled for (a remote since removed from git still shows). */
	async remotes(): Promise<SyncRemote[]> {
		const names = await remoteNames(this.root);
		const state = readSyncState(this.root);
		const all = [...new Set([...names, ...Object.keys(state.remotes)])].sort();
		return all.map((name) => {
			const r = state.remotes[name];
			return {
				name,
				enabled: r?.enabled ?? false,
				transcripts: r?.transcripts ?? false,
				untracked: r?.untracked ?? false,
				timeline: r?.timeline ?? false,
				inGit: names.includes(name),
			};
		});
	}

	/** Stops sharing with `remote`; `wasEnabled` says whether it was on. A name that is neither a git remote nor one sharing knows is an error. */
	async disable(remote: string): Promise<{ remote: string; enabled: false; wasEnabled: boolean }> {
		return this.withSyncLock(async () => {
			let wasEnabled = false;
			let known = false;
			updateSyncState(this.root, (state) => {
				const current = state.remotes[remote];
				if (current) {
					known = true;
					wasEnabled = current.enabled;
					current.enabled = false;
				}
			});
			if (!known && !(await remoteNames(this.root)).includes(remote)) {
				throw new BatonError(
					'notFound',
					`there is no remote "${remote}": the repository has no such git remote and Baton never shared with one of that name (baton sync status lists the remotes)`,
				);
			}
			return { remote, enabled: false as const, wasEnabled };
		});
	}

	/** The enabled remotes (all of them when `remote` is not given); a named remote must be enabled. */
	private enabledRemotes(remote: string | undefined): string[] {
		const state = readSyncState(this.root);
		if (remote !== undefined) {
			if (!state.remotes[remote]?.enabled) {
				throw new BatonError(
					'invalidInput',
					`sync is not enabled for remote "${remote}"; run \`baton sync enable ${remote}\` first (nothing was sent)`,
				);
			}
			return [remote];
		}
		const names = Object.entries(state.remotes)
			.filter(([, r]) => r.enabled)
			.map(([name]) => name);
		if (names.length === 0) {
			throw new BatonError('invalidInput', 'sync is off: no remote is enabled (`baton sync enable origin`)');
		}
		return names;
	}

	/**
	 * The export a push would do, run ahead (the backend calls it when idle): only while some remote is
	 * enabled and local events are waiting, so the next push is little more than git's own. Returns
	 * the events exported (0 when there was nothing to do).
	 */
	async exportAhead(): Promise<number> {
		if (!Object.values(readSyncState(this.root).remotes).some((r) => r.enabled) || (await this.exporter.unexportedCount()) === 0) {
			return 0;
		}
		return (await this.export()).events;
	}

	/** Writes this machine's new local events (and their checkpoints' commits) into its own refs (syncExport.ts). */
	async export(): Promise<{ events: number; checkpoints: number }> {
		return this.exporter.export();
	}

	async push(remote?: string): Promise<PushResult[]> {
		const names = this.enabledRemotes(remote);
		// The remotes' URLs and transport settings (one read of the user's config) are read while the export runs.
		const transports = new Map(names.map((name) => [name, remoteTransport(this.root, name)]));
		for (const t of transports.values()) {
			t.catch(() => undefined);
		}
		await this.export();
		const results: PushResult[] = [];
		for (const name of names) {
			results.push(await this.pushOne(name, transports.get(name) as Promise<RemoteTransport>));
		}
		return results;
	}

	private async pushOne(name: string, transport: Promise<RemoteTransport>): Promise<PushResult> {
		return this.withSyncLock(async () => {
			const { url, config } = await transport;
			const state = readSyncState(this.root).remotes[name] ?? emptyRemote();
			const updates: PushedRef[] = [];
			// Transcripts and the timeline only to a remote enabled with them: any other is never sent those refs.
			for (const ref of this.refsFor(state)) {
				const oid = await this.refs.tip(ref);
				if (oid && state.pushed[ref] !== oid) {
					updates.push({ ref, oid });
				}
			}
			const leftOut = await this.shadow.withLock(async () => takeLeftOut(this.root));
			const withLeftOut = leftOut.length > 0 ? { leftOut } : {};
			if (updates.length === 0) {
				this.record(name, { lastPush: isoTime(this.ctx.clock.now()), lastError: null });
				return { pushed: [], remote: name, ...withLeftOut };
			}
			try {
				const { confirmed, rejected, remoteSaid } = await pushRefs(this.shadow, url, name, config, updates, networkTimeoutMs);
				const refusal =
					rejected.length > 0
						? `remote "${name}" refused ${rejected.map((x) => `${x.ref} ${x.reason}`).join(', ')}${remoteSaid ? ` — it said: ${remoteSaid}` : ''}; the records stay queued and go with the next push`
						: null;
				// Each confirmation is recorded on its own: a ref confirmed before a failure stays confirmed.
				updateSyncState(this.root, (s) => {
					const r = (s.remotes[name] ??= emptyRemote());
					for (const c of confirmed) {
						r.pushed[c.ref] = c.oid;
					}
					r.lastPush = isoTime(this.ctx.clock.now());
					r.lastError = refusal;
				});
				if (refusal) {
					throw new BatonError('gitFailed', refusal, { remote: name, rejected });
				}
				return { pushed: confirmed, remote: name, ...withLeftOut };
			} catch (error) {
				if (!BatonError.is(error) || !(error.details as { rejected?: unknown } | undefined)?.rejected) {
					this.record(name, { lastError: (error as Error).message });
				}
				throw error;
			}
		});
	}

	/**
	 * Takes back what this machine shared (retraction.ts): the chosen records leave its events and
	 * checkpoints refs, which are written again without them, a tombstone tells the other machines to
	 * drop them, and every enabled remote is pushed (forced, Baton's own refs only). A remote that
	 * cannot be reached keeps the rewritten refs queued for the next push; the answer says so.
	 */
	async retract(request: RetractRequest, actor: string): Promise<RetractResult> {
		const what =
			'checkpoint' in request
				? `checkpoint ${request.checkpoint}`
				: 'session' in request
					? `session ${request.session}`
					: `everything shared since ${request.since}`;
		const selection = await this.withSyncLock(() =>
			this.shadow.withLock(async () => {
				await this.shadow.ensureInit(this.ctx.config.checkpoints.excludes);
				const machine = machineIdentity(this.root);
				const chosen = await this.ctx.store.read((db) => chooseRetracted(db, this.root, request, what, machine.id));
				if (chosen.eventIds.length === 0) {
					throw new BatonError('notFound', `this machine shared nothing that matches ${what}; nothing was changed`);
				}
				const nowMs = this.ctx.clock.now();
				const subject = 'checkpoint' in request ? request.checkpoint : 'session' in request ? request.session : `since:${request.since}`;
				await this.ctx.store.write((db) => appendSharedEvent(db, machine, nowMs, { kind: retractedKind, subject, actor, body: { ...chosen.body } }));
				addRetracted(this.root, chosen);
				const retracted = readRetracted(this.root);
				const refs = this.refs;
				refs.clearStaleRefLocks('baton');
				// Both refs are written again from what remains: nothing retracted stays in their history.
				const plan = await this.ctx.store.read((db) => freshByIds(db, new Set(), retracted.events, this.exporter.pageEvents));
				await this.exporter.rewriteEvents(plan);
				const newTip = await refs.tip(refs.eventsRef);
				if (newTip && plan.upTo) {
					writeExportMark(this.exporter.markFile, { tip: newTip, ...plan.upTo });
				}
				const kept = (await refs.allSharedPairs()).filter((p) => !retracted.snapshots.has(p.snapshot));
				await refs.rewriteCheckpoints(kept, nowMs);
				// A session's transcripts leave the transcripts ref with it.
				await this.transcripts.drop(chosen.body.sessions, nowMs);
				// So do the taken-back steps' files.
				await this.timeline.drop(new Set(chosen.eventIds), nowMs);
				// What the next shared tree is built from is gone with the old chain.
				this.exporter.forgetSharedTrees();
				this.exporter.forgetRecordsSettled();
				return chosen;
			}),
		);
		const { pushed, unreached } = await this.pushEnabled();
		return {
			retracted: what,
			events: selection.eventIds.length,
			checkpoints: selection.body.checkpoints,
			sessions: selection.body.sessions,
			since: selection.body.since,
			pushed,
			unreached,
			cannotUndo: [...cannotUndo],
		};
	}

	/** Pushes every enabled remote (a retraction's rewritten refs): what each took, and the remotes that could not be reached. */
	private async pushEnabled(): Promise<Pick<RetractResult, 'pushed' | 'unreached'>> {
		const names = Object.entries(readSyncState(this.root).remotes)
			.filter(([, r]) => r.enabled)
			.map(([name]) => name);
		const pushed: { remote: string; ref: string; oid: string }[] = [];
		const unreached: { remote: string; error: string }[] = [];
		for (const name of names) {
			try {
				for (const result of await this.push(name)) {
					pushAll(pushed, [...result.pushed.map((p) => ({ remote: result.remote, ...p }))]);
				}
			} catch (error) {
				unreached.push({ remote: name, error: (error as Error).message });
			}
		}
		return { pushed, unreached };
	}

	/** What the backend's background push asks (autoPush.ts). */
	autoPushTarget(): AutoPushTarget {
		return {
			sharing: () => Object.values(readSyncState(this.root).remotes).some((r) => r.enabled),
			worthy: () => this.ctx.store.read((db) => pushWorthy(db)),
			push: () => this.push(),
		};
	}

	/** What this machine recorded that a retraction can name (newest first): its checkpoints and its sessions. */
	async retractable(limit = 200): Promise<Retractable> {
		const own = machineIdentity(this.root).id;
		const retracted = readRetracted(this.root).events;
		return this.ctx.store.read((db) => {
			const rows = (kind: string, field: string) =>
				db
					.all<{ id: string; eventId: string; label: string | null; at: string }>(
						sql`SELECT subject AS id, id AS "eventId", json_extract(body_json, ${`$.${field}`}) AS label, at FROM shared_events WHERE kind = ${kind} AND source = 'local' AND machine = ${own} ORDER BY id DESC LIMIT ${limit}`,
					)
					.filter((r) => !retracted.has(r.eventId));
			return {
				checkpoints: rows('checkpoint.recorded', 'message').map((r) => ({ id: r.id, message: typeof r.label === 'string' ? r.label : null, at: r.at })),
				sessions: rows('session.started', 'name').map((r) => ({ id: r.id, name: typeof r.label === 'string' ? r.label : null, at: r.at })),
			};
		});
	}

	async pull(remote?: string): Promise<PullResult> {
		const names = this.enabledRemotes(remote);
		const total = emptyPull();
		for (const name of names) {
			addPull(total, await this.pullOne(name));
		}
		return total;
	}

	private async pullOne(name: string): Promise<PullResult> {
		return this.withSyncLock(async () => {
			const { url, config } = await remoteTransport(this.root, name);
			await this.shadow.withLock(() => this.shadow.ensureInit(this.ctx.config.checkpoints.excludes));
			this.refs.clearStaleRefLocks('baton-remotes');
			try {
				await fetchBatonRefs(this.shadow, url, name, config, networkTimeoutMs);
			} catch (error) {
				this.record(name, { lastError: (error as Error).message });
				throw error;
			}
			return this.exporter.afterMerge(mergeFetched(this.merging, name));
		});
	}

	/** Teammates' decisions about checkpoint `id` when it is this machine's: kept and shown, never applied. */
	async opinions(checkpointId: string): Promise<TeammateOpinion[]> {
		const own = machineIdentity(this.root).id;
		return this.ctx.store.read((db) => opinionsAbout(db, checkpointId, own));
	}

	/** The same for each of a list's checkpoints, in one read (the editor's views). */
	async opinionsFor(checkpointIds: readonly string[]): Promise<Map<string, TeammateOpinion[]>> {
		const own = machineIdentity(this.root).id;
		return this.ctx.store.read((db) => opinionsFor(db, checkpointIds, own));
	}

	/** Where sessions ran: the writer of each one's `session.started` event (null for sessions from before sync). */
	async origins(sessionIds: readonly string[]): Promise<SessionOrigin[]> {
		const own = machineIdentity(this.root).id;
		return this.ctx.store.read((db) => sessionOrigins(db, sessionIds, own));
	}

	async status(): Promise<{ remotes: RemoteStatus[]; machine: string }> {
		const state = readSyncState(this.root);
		const remotes: RemoteStatus[] = [];
		const exists = this.shadow.exists();
		const refs = this.refs;
		const tips = new Map<string, string | null>();
		for (const ref of exists ? this.refsFor({ transcripts: true, timeline: true }) : []) {
			tips.set(ref, await refs.tip(ref));
		}
		const unexported = exists
			? await this.exporter.unexportedCount()
			: await this.ctx.store.read((db) => db.select({ id: sharedEvents.id }).from(sharedEvents).where(eq(sharedEvents.source, 'local')).all().length);
		for (const [name, r] of Object.entries(state.remotes)) {
			let behind = 0;
			if (exists) {
				for (const [ref, oid] of await refs.refs(`refs/baton-remotes/${name}/events/`)) {
					if (!ref.endsWith(`/${refs.machine}`)) {
						behind += await refs.countEvents(r.pulled[ref] ?? null, oid);
					}
				}
			}
			const queuedRefs = this.refsFor(r).filter((ref) => {
				const tip = tips.get(ref) ?? null;
				return tip !== null && r.pushed[ref] !== tip;
			});
			const ahead = unexported + (exists ? await refs.countEvents(r.pushed[refs.eventsRef] ?? null, tips.get(refs.eventsRef) ?? null) : 0);
			remotes.push({
				name,
				enabled: r.enabled,
				transcripts: r.transcripts,
				untracked: r.untracked,
				timeline: r.timeline,
				ahead,
				behind,
				lastPush: r.lastPush,
				lastPull: r.lastPull,
				queued: queuedRefs.length + (unexported > 0 && !queuedRefs.includes(refs.eventsRef) ? 1 : 0),
				lastError: r.lastError,
			});
		}
		return { remotes, machine: refs.machine };
	}

	private record(name: string, change: Partial<RemoteState>): void {
		updateSyncState(this.root, (s) => {
			Object.assign((s.remotes[name] ??= emptyRemote()), change);
		});
	}

	/** One sync operation at a time per workspace, across processes (the state file is read-modify-write). */
	private async withSyncLock<T>(fn: () => Promise<T>): Promise<T> {
		mkdirPrivate(syncDir(this.root));
		const lock = new LockFile(path.join(syncDir(this.root), 'sync.lock'), 10 * 60_000);
		LockFile.removeDeadOwnerFiles(lock.file);
		await lock.acquire();
		try {
			return await fn();
		} finally {
			lock.dispose();
		}
	}
}
