/**
 * Checkpoints (docs/architecture.md §1 and §5): snapshots of the workspace in Baton's shadow git store, with
 * provenance, approvals (escalation first), environment capture, comparison and safe rollback.
 *
 * Like the session service, every change is one durable `store.write` that also writes the audit
 * log. git and the environment probes run before it, never inside it, and the shadow's lock is held
 * from reading the current head to recording the new checkpoint, so the provenance DAG stays
 * consistent across windows, the CLI and agent hooks.
 */
import path from 'node:path';
import type { EngineContext } from '../context';
import { BatonError } from '../errors';
import { newCheckpointId } from '../ids';
import { activeSessions, getSession } from '../sessions/sessionQueries';
import type { EnvironmentSnapshot, EscalationThresholds, LinkedIssue } from '../storage/jsonShapes';
import type { BatonDb } from '../storage/journalStore';
import type { ApprovalPolicy, ApprovalStatus, Checkpoint, Rollback, Session } from '../storage/model';
import { batonDir } from '../workspace';
import { chooseResumePoint, type ResumePoint } from './approvalPolicy';
import { getCheckpoint, headCheckpoint, lastApprovedBefore, listCheckpoints, listRollbacks } from './checkpointQueries';
import { decideCheckpoint, recordCheckpoint, updateCheckpoint, validateMetrics, writeSessionConfig, writeSessionMetrics } from './checkpointRecords';
import { captureEnvironment, type HostEnvironment } from '../environment/environmentCapture';
import { diffEnvironments } from '../environment/environmentDiff';
import { EnvironmentAttacher, pendingEnvironment, RunningCapture } from './pendingEnvironment';
import { syncIndex, type SyncProgress } from '../shadow/indexSync';
import { runRollback, type RollbackResult } from './rollbackRunner';
import { ShadowRepo } from '../shadow/shadowRepo';
import { takeSnapshot, type SnapshotResult } from '../shadow/shadowSnapshot';
import { snapshotKey } from '../environment/userGitState';
import { DirtyTracking } from '../watcher/dirtyTracking';
import type { ApprovalSummary, CheckpointFaults, Comparison, CreateCheckpointInput, PeriodicResult, PrepareResult } from './checkpointTypes';
import { diffIndex, diffTrees, readFileAt, type FileChange } from '../shadow/treeDiff';
import { assertWorkspacePaths } from '../shadow/workspacePaths';
import { isAgentActor } from '../text/actorNames';

// A tag is printable text: control characters are what the pattern exists to refuse.
// eslint-disable-next-line no-control-regex
const tagPattern = /^[^\s\u0000-\u001f][^\u0000-\u001f]{0,99}$/;
const triggerPattern = /^[a-z][a-z0-9_-]{0,39}$/;

export class CheckpointService {
	readonly shadow: ShadowRepo;
	/** What changed since the last snapshot, while the backend watches the workspace. */
	readonly dirty: DirtyTracking;
	private hostEnvironment: HostEnvironment | undefined;
	/** Environments recorded after their checkpoint (capture is off the critical path). */
	private readonly environments: EnvironmentAttacher;
	/** For tests: failure injection and a fake PATH. */
	faults: CheckpointFaults = {};

	constructor(private readonly ctx: EngineContext) {
		this.shadow = new ShadowRepo(ctx.workspaceRoot, batonDir(ctx.workspaceRoot));
		this.dirty = new DirtyTracking(ctx.workspaceRoot, batonDir(ctx.workspaceRoot), ctx.log);
		this.environments = new EnvironmentAttacher(ctx);
	}

	/** Once every checkpoint's environment is recorded: a short process waits for it before it exits (the backend does not). */
	async settled(): Promise<void> {
		await this.environments.settled();
	}

	private get config() {
		return this.ctx.config.checkpoints;
	}

	/** The editor passes the VS Code version and extensions once; every later capture includes them. */
	setHostEnvironment(host: HostEnvironment | undefined): void {
		this.hostEnvironment = host;
	}

	/** True once the workspace has a shadow store (checkpoints are in use here). */
	get enabled(): boolean {
		return this.shadow.exists();
	}

	/**
	 * Brings the shadow index up to date without creating a checkpoint: the editor runs this in the
	 * background (with progress) so that the first checkpoint of a large workspace is quick.
	 */
	async prepare(options: { budgetMs?: number; onProgress?: (progress: SyncProgress) => void } = {}): Promise<PrepareResult> {
		return this.shadow.withLock(async () => {
			const started = Date.now();
			const excludesChanged = await this.shadow.ensureInit(this.config.excludes);
			const sync = await this.dirty.sync(excludesChanged, (paths) =>
				syncIndex(this.shadow, {
					paths,
					maxFileSize: this.config.maxFileSize,
					deadline: started + (options.budgetMs ?? 10 * 60_000),
					onProgress: options.onProgress,
					...(this.faults.batchFiles ? { batchFiles: this.faults.batchFiles } : {}),
				}),
			);
			return { filesIndexed: sync.fed, skipped: sync.skipped, degradedReason: sync.degradedReason, durationMs: Date.now() - started };
		});
	}

	async create(input: CreateCheckpointInput): Promise<Checkpoint> {
		const prepared = await this.prepareCreate(input);
		return this.shadow.withLock(async () => (await this.createLocked(prepared, null)) as Checkpoint);
	}

	/**
	 * The host's timer calls this: a `periodic` checkpoint when the session is active, the interval
	 * has passed since its last checkpoint (or its start), and files changed since the latest one.
	 */
	async maybePeriodic(input: { sessionId?: string; actor: string; onProgress?: (progress: SyncProgress) => void }): Promise<PeriodicResult> {
		const due = await this.ctx.store.read((db) => {
			const session = input.sessionId ? getSession(db, input.sessionId) : soleActive(db);
			if (!session || session.status !== 'active') {
				return { session: null, reason: 'not active' };
			}
			const last = listCheckpoints(db, { sessionId: session.id, limit: 1 })[0];
			const since = Date.parse(last?.createdAt ?? session.startedAt);
			return this.ctx.clock.now() - since >= this.config.periodicInterval ? { session, reason: null } : { session: null, reason: 'not due' };
		});
		if (!due.session) {
			return { checkpoint: null, reason: due.reason };
		}
		const prepared = await this.prepareCreate({
			trigger: 'periodic',
			sessionId: due.session.id,
			actor: input.actor,
			...(input.onProgress ? { onProgress: input.onProgress } : {}),
		});
		const checkpoint = await this.shadow.withLock(() => this.createLocked(prepared, 'skip-unchanged'));
		return checkpoint ? { checkpoint, reason: null } : { checkpoint: null, reason: 'no changes' };
	}

	/**
	 * The session service calls this after a session ended: its `complete` checkpoint, unless the
	 * workspace is exactly the latest checkpoint's state (a run that changed nothing — a read-only
	 * headless run, a resumed conversation that only answered — asks no review of what was already
	 * there). Returns warnings.
	 */
	async onSessionEnded(session: Session, actor: string): Promise<string[]> {
		if (!this.config.completeOnEnd || !this.enabled) {
			return [];
		}
		try {
			// A session no agent ran, ended by a person (not through an agent's hook, MCP tools or shell), asks them nothing.
			const personsOwnEnd = !session.agent && !isAgentActor(actor);
			const prepared = await this.prepareCreate({ trigger: 'complete', sessionId: session.id, actor, personsOwnEnd });
			await this.shadow.withLock(() => this.createLocked(prepared, 'skip-unchanged'));
			return [];
		} catch (error) {
			const message = `could not take the complete checkpoint of ${session.id}: ${(error as Error).message}`;
			this.ctx.log.warn(message);
			return [message];
		}
	}

	/**
	 * Housekeeping for an idle moment (the shadow has `gc.auto=0`): packs loose objects once there
	 * are many, and rolls small packs together once there are many of them (each sync export is a
	 * pack of its own, and every pack is one more index each object lookup may search). The repack is
	 * geometric: it merges only the packs that are small next to the bigger ones (and the loose
	 * objects), so its cost follows what is new, not the store's size; packs with a `.keep` file (the
	 * replay's) stay as they are. It never prunes, and runs beside snapshots (git allows that), not
	 * under their lock.
	 */
	async maintain(
		options: { force?: boolean; looseObjectLimit?: number; packLimit?: number } = {},
	): Promise<{ looseObjects: number; packs: number; packed: boolean }> {
		if (!this.enabled) {
			return { looseObjects: 0, packs: 0, packed: false };
		}
		const counts = await this.shadow.gitText(['count-objects', '-v']);
		const count = Number(/^count: (\d+)$/m.exec(counts)?.[1] ?? 0);
		const packs = Number(/^packs: (\d+)$/m.exec(counts)?.[1] ?? 0);
		if (!options.force && count < (options.looseObjectLimit ?? 5_000) && packs < (options.packLimit ?? 50)) {
			return { looseObjects: count, packs, packed: false };
		}
		await this.shadow.withMaintenanceLock(() => this.shadow.git(['repack', '-d', '-q', '--geometric=2']));
		return { looseObjects: count, packs, packed: true };
	}

	/** Newest first; a session that does not exist is an error (an empty list would say it made none). */
	async list(filter: { sessionId?: string; status?: ApprovalStatus; limit?: number } = {}): Promise<Checkpoint[]> {
		return this.ctx.store.read((db) => {
			if (filter.sessionId) {
				getSession(db, filter.sessionId); // throws notFound, naming it
			}
			return listCheckpoints(db, filter);
		});
	}

	async get(id: string): Promise<Checkpoint> {
		return this.ctx.store.read((db) => getCheckpoint(db, id));
	}

	/** A checkpoint and where rejecting it offers to go back (`lastApprovedBefore`), null when nothing approved comes before it. */
	async rollbackTarget(id: string): Promise<{ checkpoint: Checkpoint; target: Checkpoint | null }> {
		return this.ctx.store.read((db) => {
			const checkpoint = getCheckpoint(db, id);
			return { checkpoint, target: lastApprovedBefore(db, checkpoint) ?? null };
		});
	}

	/** What the Pending Approvals view shows, newest first. */
	async pending(): Promise<Checkpoint[]> {
		return this.list({ status: 'pending' });
	}

	async head(): Promise<Checkpoint | null> {
		return this.ctx.store.read((db) => headCheckpoint(db));
	}

	async rollbacks(limit?: number): Promise<Rollback[]> {
		return this.ctx.store.read((db) => listRollbacks(db, limit));
	}

	async approve(id: string, input: { actor: string; reason?: string | null }): Promise<Checkpoint> {
		return decideCheckpoint(this.ctx, id, 'approved', input);
	}

	async reject(id: string, input: { actor: string; reason?: string | null }): Promise<Checkpoint> {
		return decideCheckpoint(this.ctx, id, 'rejected', input);
	}

	async tag(id: string, tag: string, actor: string): Promise<Checkpoint> {
		const clean = tag.trim();
		if (!tagPattern.test(clean)) {
			throw new BatonError('invalidInput', 'a tag is 1 to 100 printable characters');
		}
		return updateCheckpoint(this.ctx, id, actor, 'checkpoint.tag', { tag: clean }, (cp) =>
			cp.tags.includes(clean) ? null : { tags: [...cp.tags, clean] },
		);
	}

	async untag(id: string, tag: string, actor: string): Promise<Checkpoint> {
		return updateCheckpoint(this.ctx, id, actor, 'checkpoint.untag', { tag }, (cp) =>
			cp.tags.includes(tag) ? { tags: cp.tags.filter((t) => t !== tag) } : null,
		);
	}

	async annotate(id: string, text: string, actor: string): Promise<Checkpoint> {
		const clean = text.trim();
		if (!clean || clean.length > 5_000) {
			throw new BatonError('invalidInput', 'an annotation is 1 to 5,000 characters');
		}
		return updateCheckpoint(this.ctx, id, actor, 'checkpoint.annotate', { text: clean }, (cp) => ({
			annotations: [...cp.annotations, { at: this.ctx.nowIso(), user: actor, text: clean }],
		}));
	}

	async linkIssue(id: string, issue: { tracker: string; id: string; url?: string | null }, actor: string): Promise<Checkpoint> {
		const link: LinkedIssue = { tracker: issue.tracker.trim(), id: issue.id.trim(), url: issue.url?.trim() || null };
		if (!link.tracker || !link.id) {
			throw new BatonError('invalidInput', 'a linked issue needs a tracker and an id');
		}
		return updateCheckpoint(this.ctx, id, actor, 'checkpoint.link', { ...link }, (cp) =>
			cp.linkedIssues.some((l) => l.tracker === link.tracker && l.id === link.id) ? null : { linkedIssues: [...cp.linkedIssues, link] },
		);
	}

	/** Cost and error count of a session so far (hosts and, later, transcript parsing feed them). */
	async recordMetrics(input: { sessionId: string; costUsd?: number; errorCount?: number; actor: string }): Promise<void> {
		await writeSessionMetrics(this.ctx, input);
	}

	/** A session's own approval policy and escalation thresholds (null: back to the workspace's). */
	async configureSession(input: {
		sessionId: string;
		policy?: ApprovalPolicy | null;
		thresholds?: Partial<EscalationThresholds> | null;
		actor: string;
	}): Promise<void> {
		await writeSessionConfig(this.ctx, input);
	}

	/** The checkpoint to resume from (approved > auto-approved > pending with a warning; rejected only with the override). */
	async resumePoint(input: { sessionId?: string; allowRejected?: boolean } = {}): Promise<ResumePoint | null> {
		const candidates = await this.list(input.sessionId ? { sessionId: input.sessionId } : {});
		return chooseResumePoint(candidates, { allowRejected: input.allowRejected ?? false });
	}

	/** Files and environment changed from checkpoint `fromId` to checkpoint `toId`, or to the working tree. */
	async diff(fromId: string, toId?: string | null): Promise<Comparison & { from: Checkpoint }> {
		const [from, to] = await this.ctx.store.read((db) => [getCheckpoint(db, fromId), toId ? getCheckpoint(db, toId) : null] as const);
		let files: FileChange[];
		let environment: EnvironmentSnapshot | null;
		if (to) {
			files = await diffTrees(this.shadow, from.commitSha, to.commitSha);
			environment = to.environment;
		} else {
			const envWork = this.capture(this.hostEnvironment, undefined);
			files = await this.shadow.withLock(async () => {
				const excludesChanged = await this.shadow.ensureInit(this.config.excludes);
				await this.dirty.sync(excludesChanged, (paths) =>
					syncIndex(this.shadow, { paths, maxFileSize: this.config.maxFileSize, deadline: Date.now() + this.config.timeBudget }),
				);
				return diffIndex(this.shadow, from.commitSha);
			});
			environment = await envWork;
		}
		// A pulled tree can hold `..` or `.git` (workspacePaths.ts): its paths would open files outside the workspace.
		assertWorkspacePaths(
			files.map((f) => f.path),
			`The comparison of checkpoint ${from.id}${to ? ` with ${to.id}` : ''}`,
		);
		return {
			from,
			to,
			files,
			environment: diffEnvironments(from.environment, environment),
			approval: { from: approvalOf(from), to: to ? approvalOf(to) : null },
		};
	}

	/**
	 * What checkpoint `id` changed, the thing a review is about: the checkpoint before it (its parent,
	 * what its file counts were taken against) → it. The workspace's first checkpoint has none: it is
	 * compared with an empty workspace (`from` null), so every file it holds is listed as added.
	 */
	async changes(id: string): Promise<Comparison> {
		const to = await this.get(id);
		if (to.parentCheckpointId) {
			return this.diff(to.parentCheckpointId, id);
		}
		const environment = { ...diffEnvironments(null, null), note: 'nothing was recorded before the first checkpoint' };
		const files = await diffTrees(this.shadow, null, to.commitSha);
		assertWorkspacePaths(
			files.map((f) => f.path),
			`Checkpoint ${to.id}`,
		);
		return { from: null, to, files, environment, approval: { from: null, to: approvalOf(to) } };
	}

	/** The bytes of `file` (workspace-relative, `/`-separated) at a checkpoint; null when it did not hold it. */
	async fileAt(id: string, file: string): Promise<Buffer | null> {
		const checkpoint = await this.get(id);
		return readFileAt(this.shadow, checkpoint.commitSha, file);
	}

	/**
	 * Restores the workspace files of checkpoint `id`: safety checkpoint → verify target → restore →
	 * done, or failed → recovered (the workspace as it was). A rejected target needs `force`.
	 */
	async rollback(id: string, input: { actor: string; force?: boolean; onProgress?: (progress: SyncProgress) => void }): Promise<RollbackResult> {
		const target = await this.get(id);
		if (target.approvalStatus === 'rejected' && !input.force) {
			throw new BatonError(
				'checkpointRejected',
				`checkpoint ${id} was rejected${target.approvalUser ? ` by ${target.approvalUser}` : ''}; roll back to it only with the explicit override (--force)`,
				{
					checkpointId: id,
				},
			);
		}
		const safety = await this.prepareCreate({
			trigger: 'pre-rollback',
			message: `before rolling back to #${target.seq}`,
			sessionId: target.sessionId,
			actor: input.actor,
			...(input.onProgress ? { onProgress: input.onProgress } : {}),
		});
		return this.shadow.withLock(() =>
			runRollback(
				{ ctx: this.ctx, shadow: this.shadow, faults: this.faults, preservedRoot: path.join(batonDir(this.ctx.workspaceRoot), 'rollbacks') },
				{ target, actor: input.actor, createSafety: async () => (await this.createLocked(safety, null)) as Checkpoint },
			),
		);
	}

	/** Validation and the session lookup, before the shadow's lock is taken; starts the environment capture. */
	private async prepareCreate(input: CreateCheckpointInput): Promise<PreparedCreate> {
		const trigger = input.trigger ?? 'manual';
		if (!triggerPattern.test(trigger)) {
			throw new BatonError('invalidInput', `invalid trigger "${trigger}" (lowercase letters, digits, - and _)`);
		}
		const tags = [...new Set((input.tags ?? []).map((t) => t.trim()))];
		if (tags.some((t) => !tagPattern.test(t)) || tags.length > 50) {
			throw new BatonError('invalidInput', 'tags are 1 to 100 printable characters, at most 50 of them');
		}
		const message = input.message?.trim() || null;
		if (message && message.length > 5_000) {
			throw new BatonError('invalidInput', 'a checkpoint message is at most 5,000 characters');
		}
		validateMetrics(input);
		const session = await this.ctx.store.read((db) => {
			if (input.sessionId) {
				return getSession(db, input.sessionId);
			}
			if (input.sessionId === null) {
				return null;
			}
			const active = activeSessions(db);
			if (active.length > 1) {
				throw new BatonError('invalidInput', `${active.length} sessions are active; say which one the checkpoint belongs to (--session ID)`);
			}
			return active[0] ?? null;
		});
		this.shadow.ensureEmptyConfig();
		let snapshotTaken: (snapshot: SnapshotResult | undefined) => void = () => undefined;
		const snapshot = new Promise<SnapshotResult | undefined>((resolve) => {
			snapshotTaken = resolve;
		});
		const environment = new RunningCapture(this.capture(input.host ?? this.hostEnvironment, snapshot));
		return { input: { ...input, trigger, tags, message }, session, environment, snapshotTaken };
	}

	/** `snapshot`: the checkpoint's, once taken (undefined: none), which vouches for the work tree in the git state's cache. */
	private async capture(host: HostEnvironment | undefined, snapshot: Promise<SnapshotResult | undefined> | undefined): Promise<EnvironmentSnapshot | null> {
		const changes = await this.dirty.changeCount();
		const root = this.ctx.workspaceRoot;
		return captureEnvironment({
			workspaceState: {
				watched: changes === undefined ? undefined : `${this.dirty.watchId}:${changes}`,
				snapshot: snapshot?.then((s) => (s ? snapshotKey(root, s) : undefined)),
			},
			cacheFile: path.join(batonDir(root), 'cache', 'environment.json'),
			workspaceRoot: this.ctx.workspaceRoot,
			timeoutMs: this.config.environmentTimeout,
			nowIso: this.ctx.nowIso(),
			host,
			gitEnv: this.shadow.userRepoEnv(),
			searchPath: this.faults.searchPath,
			hashCacheFile: path.join(batonDir(this.ctx.workspaceRoot), 'cache', 'binary-hashes.json'),
		}).catch((error: unknown) => {
			// Capture must never fail a checkpoint.
			this.ctx.log.warn(`environment capture failed: ${(error as Error).message}`);
			return null;
		});
	}

	/** Snapshot and record. Caller holds the shadow's lock. Returns null when `skip-unchanged` found no change. */
	private async createLocked(prepared: PreparedCreate, mode: 'skip-unchanged' | null): Promise<Checkpoint | null> {
		try {
			// Capture's git state waits for the snapshot: told as soon as it is taken (a cached answer can then
			// go in with the row) and in every case, a failure too (undefined; a second call changes nothing).
			return await this.createLockedInner(prepared, mode, (snapshot) => prepared.snapshotTaken(snapshot.commit ? snapshot : undefined));
		} finally {
			prepared.snapshotTaken(undefined);
		}
	}

	private async createLockedInner(
		prepared: PreparedCreate,
		mode: 'skip-unchanged' | null,
		onSnapshot: (snapshot: SnapshotResult) => void,
	): Promise<Checkpoint | null> {
		const { input, session } = prepared;
		const nowMs = this.ctx.clock.now();
		const id = newCheckpointId(nowMs);
		const parent = await this.ctx.store.read((db) => headCheckpoint(db));
		const snapshot = await this.dirty.sync(false, (paths) =>
			takeSnapshot(this.shadow, {
				paths,
				excludes: this.config.excludes,
				maxFileSize: this.config.maxFileSize,
				budgetMs: this.config.timeBudget,
				message: `${id} (${input.trigger})${input.message ? `\n\n${input.message}` : ''}`,
				parentCommit: parent?.commitSha ?? null,
				refId: id,
				dateMs: nowMs,
				skipIfTree: mode === 'skip-unchanged' ? (parent?.treeSha ?? null) : null,
				onProgress: input.onProgress,
				...(this.faults.batchFiles ? { batchFiles: this.faults.batchFiles } : {}),
			}),
		);
		onSnapshot(snapshot);
		if (!snapshot.commit) {
			return null;
		}
		const commit = snapshot.commit;
		const changes = await diffTrees(this.shadow, parent?.commitSha ?? null, commit, { lines: parent !== null });
		// Not waited for: a capture that is done goes in with the row, one still running follows it.
		const finished = prepared.environment.finished;
		const environment = finished ? finished.value : pendingEnvironment(this.ctx.nowIso());
		const checkpoint = await this.ctx.store.write((db) =>
			recordCheckpoint(this.ctx, db, { id, nowMs, input, session, parent, snapshot, commit, changes, environment }),
		);
		if (!finished) {
			this.environments.attach(id, prepared.environment);
		}
		return checkpoint;
	}
}

interface PreparedCreate {
	input: CreateCheckpointInput & { trigger: string };
	session: Session | null;
	environment: RunningCapture;
	snapshotTaken: (snapshot: SnapshotResult | undefined) => void;
}

function soleActive(db: BatonDb): Session | null {
	const active = activeSessions(db);
	return active.length === 1 ? (active[0] as Session) : null;
}

function approvalOf(cp: Checkpoint): ApprovalSummary {
	return { status: cp.approvalStatus, user: cp.approvalUser, at: cp.approvalAt, reason: cp.approvalReason };
}
