/**
 * The checkpoint records' writes: one `store.write` each, with its audit entry. The service runs git
 * and the environment probes first and hands the results in.
 */
import { and, desc, eq, inArray, ne } from 'drizzle-orm';
import { audit } from '../audit';
import type { EngineContext } from '../context';
import { BatonError } from '../errors';
import type { CheckpointMetrics, EnvironmentSnapshot, EscalationThresholds, FileStats, LinkedIssue } from '../storage/jsonShapes';
import type { BatonDb } from '../storage/journalStore';
import type { ApprovalPolicy, Checkpoint, CheckpointSessionSettings, Session } from '../storage/model';
import { approvalPolicies, checkpoints, checkpointSessionSettings } from '../storage/schema';
import { decideApproval, type ApprovalDecision, type UnchangedSince } from './approvalPolicy';
import { activeTimeMs } from '../sessions/activeTime';
import { getSession } from '../sessions/sessionQueries';
import { getCheckpoint, nextCheckpointSeq, sessionSettingsOf, setHeadCheckpoint } from './checkpointQueries';
import { actorName, isAgentActor } from '../text/actorNames';
import type { SnapshotResult } from '../shadow/shadowSnapshot';
import type { FileChange } from '../shadow/treeDiff';

interface CheckpointRecordInput {
	id: string;
	nowMs: number;
	input: {
		trigger: string;
		message?: string | null;
		tags?: string[];
		reviewRequested?: boolean;
		personsOwnEnd?: boolean;
		costUsd?: number;
		errorCount?: number;
		linkedIssues?: LinkedIssue[];
		actor: string;
	};
	session: Session | null;
	parent: Checkpoint | null;
	snapshot: SnapshotResult;
	commit: string;
	changes: FileChange[];
	environment: EnvironmentSnapshot | null;
}

/**
 * Inserts a checkpoint taken by the shadow store: its stats against the parent, the approval the
 * policy gives it (escalation first, from the session's stored and given metrics), and makes it the
 * workspace's head. Runs inside `store.write`.
 */
export function recordCheckpoint(ctx: EngineContext, db: BatonDb, args: CheckpointRecordInput): Checkpoint {
	const { id, nowMs, input, session, parent, snapshot, commit, changes, environment } = args;
	const now = ctx.nowIso();
	const stored = session ? sessionSettingsOf(db, session.id) : undefined;
	if (session && (input.costUsd !== undefined || input.errorCount !== undefined)) {
		upsertSessionSettings(db, session.id, now, {
			...(input.costUsd !== undefined ? { costUsd: input.costUsd } : {}),
			...(input.errorCount !== undefined ? { errorCount: input.errorCount } : {}),
		});
	}
	const metrics = {
		costUsd: input.costUsd ?? stored?.costUsd ?? 0,
		errorCount: input.errorCount ?? stored?.errorCount ?? 0,
		// Active time, not age: a suspended or long-imported session has not been running all along.
		sessionAgeMs: session ? activeTimeMs(db, session, nowMs) : 0,
	};
	const decision = approvalFor(ctx, db, args, stored, metrics);
	const auto = decision.status === 'auto_approved';
	const { counts, fileStats } = fileStatsOf(changes, parent, snapshot);
	const row: Checkpoint = {
		id,
		seq: nextCheckpointSeq(db),
		sessionId: session?.id ?? null,
		trigger: input.trigger,
		parentCheckpointId: parent?.id ?? null,
		commitSha: commit,
		treeSha: snapshot.tree,
		message: input.message ?? null,
		tags: input.tags ?? [],
		annotations: [],
		linkedIssues: input.linkedIssues ?? [],
		fileStats,
		environment,
		metrics,
		approvalStatus: decision.status,
		approvalUser: auto ? 'baton' : null,
		approvalAt: auto ? now : null,
		approvalReason: decision.reason,
		approvalPolicy: decision.policy,
		escalationReasons: decision.escalationReasons,
		createdAt: now,
	};
	db.insert(checkpoints).values(row).run();
	setHeadCheckpoint(db, id, now);
	audit(db, {
		at: now,
		actor: input.actor,
		operation: 'checkpoint.create',
		sessionId: row.sessionId,
		entityType: 'checkpoint',
		entityId: id,
		details: {
			trigger: row.trigger,
			approval: row.approvalStatus,
			escalation: row.escalationReasons,
			files: counts,
			degraded: fileStats.degraded,
			skipped: fileStats.skippedTotal,
		},
	});
	if (session && (input.costUsd !== undefined || input.errorCount !== undefined)) {
		emitMetrics(ctx, db, session.id, stored, metrics, input.actor);
	}
	const created = getCheckpoint(db, id);
	ctx.events.emit(db, { type: 'checkpoint.created', checkpoint: created, session: session ? getSession(db, session.id) : null, actor: input.actor });
	// Subscribers may add to the record (the session's linked issues): return it as committed.
	return getCheckpoint(db, id);
}

/**
 * The approval the policy gives a new checkpoint: the session's stored policy and thresholds over the
 * configured ones, escalation from its metrics, and nothing to judge when the tree is one already seen.
 */
function approvalFor(
	ctx: EngineContext,
	db: BatonDb,
	args: CheckpointRecordInput,
	stored: CheckpointSessionSettings | undefined,
	metrics: CheckpointMetrics,
): ApprovalDecision {
	const { input, snapshot } = args;
	const config = ctx.config.checkpoints;
	const escalation = config.escalation;
	const thresholds: EscalationThresholds = {
		costUsd: escalation.costUsd,
		durationMs: escalation.duration,
		errorCount: escalation.errorCount,
		...(stored?.thresholds ?? {}),
	};
	const policy = stored?.policy ?? config.policy;
	const personsOwnEnd = input.personsOwnEnd === true;
	return decideApproval({
		trigger: input.trigger,
		policy,
		metrics,
		thresholds,
		unchangedSince: unchangedSince(db, snapshot.tree),
		reviewRequested: input.reviewRequested === true,
		personsOwnEnd,
	});
}

/** A new checkpoint's file stats: its changes counted against the parent (lines only when it has one), and what the snapshot skipped. */
function fileStatsOf(
	changes: FileChange[],
	parent: Checkpoint | null,
	snapshot: SnapshotResult,
): { counts: ReturnType<typeof countChanges>; fileStats: FileStats } {
	const counts = countChanges(changes, parent !== null);
	const fileStats: FileStats = {
		...counts,
		totalFiles: Math.max(0, (parent?.fileStats.totalFiles ?? 0) + counts.added - counts.deleted),
		skipped: snapshot.skipped.slice(0, 200),
		skippedTotal: snapshot.skipped.length,
		degraded: snapshot.degradedReason !== null,
		degradedReason: snapshot.degradedReason,
		nestedRepos: snapshot.nestedRepos,
		durationMs: snapshot.durationMs,
	};
	return { counts, fileStats };
}

/**
 * What a checkpoint's review is for — a person deciding what an agent did — holds only while no agent
 * decides it: an agent's hook, MCP tools or `baton` run through its shell tool (the CLI names that
 * actor `agent:<agent>` from the variables the agents set there) may not approve, reject or loosen
 * the review. It guards an agent that follows a prompt to approve its own work, not one that hides
 * what it is (an agent able to run any command can edit files too).
 */
function refuseAgent(actor: string, what: string): void {
	if (isAgentActor(actor)) {
		throw new BatonError(
			'personOnly',
			`${actorName(actor, null)} may not ${what}: that is a person’s decision — make it in the editor or in your own terminal`,
			{ actor },
		);
	}
}

export async function decideCheckpoint(
	ctx: EngineContext,
	id: string,
	status: 'approved' | 'rejected',
	input: { actor: string; reason?: string | null },
): Promise<Checkpoint> {
	const reason = input.reason?.trim() || null;
	refuseAgent(input.actor, `${status === 'approved' ? 'approve' : 'reject'} a checkpoint`);
	return ctx.store.write((db) => {
		const cp = getCheckpoint(db, id);
		if (cp.approvalStatus === status) {
			throw new BatonError('invalidTransition', `checkpoint ${id} is already ${status}${cp.approvalUser ? ` (by ${cp.approvalUser})` : ''}`, {
				checkpointId: id,
				status,
			});
		}
		const now = ctx.nowIso();
		db.update(checkpoints)
			.set({ approvalStatus: status, approvalUser: input.actor, approvalAt: now, approvalReason: reason })
			.where(eq(checkpoints.id, id))
			.run();
		audit(db, {
			at: now,
			actor: input.actor,
			operation: status === 'approved' ? 'checkpoint.approve' : 'checkpoint.reject',
			sessionId: cp.sessionId,
			entityType: 'checkpoint',
			entityId: id,
			details: { from: cp.approvalStatus, reason },
		});
		const decided = getCheckpoint(db, id);
		ctx.events.emit(db, { type: 'checkpoint.decided', checkpoint: decided, status, previous: cp.approvalStatus, actor: input.actor });
		return decided;
	});
}

/** One change to a checkpoint's record (tags, annotations, links) with its audit entry; no write when `change` returns null. */
export async function updateCheckpoint(
	ctx: EngineContext,
	id: string,
	actor: string,
	operation: string,
	details: Record<string, unknown>,
	change: (cp: Checkpoint) => Partial<Checkpoint> | null,
): Promise<Checkpoint> {
	return ctx.store.write((db) => {
		const cp = getCheckpoint(db, id);
		const set = change(cp);
		if (!set) {
			return cp;
		}
		const now = ctx.nowIso();
		db.update(checkpoints).set(set).where(eq(checkpoints.id, id)).run();
		audit(db, { at: now, actor, operation, sessionId: cp.sessionId, entityType: 'checkpoint', entityId: id, details });
		return getCheckpoint(db, id);
	});
}

/** Cost and error count of a session so far: they replace the stored figures. */
export async function writeSessionMetrics(
	ctx: EngineContext,
	input: { sessionId: string; costUsd?: number; errorCount?: number; actor: string },
): Promise<void> {
	validateMetrics(input);
	await ctx.store.write((db) => {
		getSession(db, input.sessionId);
		const now = ctx.nowIso();
		const before = sessionSettingsOf(db, input.sessionId);
		upsertSessionSettings(db, input.sessionId, now, {
			...(input.costUsd !== undefined ? { costUsd: input.costUsd } : {}),
			...(input.errorCount !== undefined ? { errorCount: input.errorCount } : {}),
		});
		audit(db, {
			at: now,
			actor: input.actor,
			operation: 'checkpoint.metrics',
			sessionId: input.sessionId,
			entityType: 'session',
			entityId: input.sessionId,
			details: { costUsd: input.costUsd ?? null, errorCount: input.errorCount ?? null },
		});
		emitMetrics(
			ctx,
			db,
			input.sessionId,
			before,
			{ costUsd: input.costUsd ?? before?.costUsd ?? 0, errorCount: input.errorCount ?? before?.errorCount ?? 0 },
			input.actor,
		);
	});
}

/** Tells subscribers (budget notifications) that a session's cost or error count moved. */
function emitMetrics(
	ctx: EngineContext,
	db: BatonDb,
	sessionId: string,
	before: { costUsd: number; errorCount: number } | undefined,
	after: { costUsd: number; errorCount: number },
	actor: string,
): void {
	const previousCostUsd = before?.costUsd ?? 0;
	const previousErrorCount = before?.errorCount ?? 0;
	if (previousCostUsd === after.costUsd && previousErrorCount === after.errorCount) {
		return;
	}
	ctx.events.emit(db, {
		type: 'session.metrics',
		sessionId,
		costUsd: after.costUsd,
		previousCostUsd,
		errorCount: after.errorCount,
		previousErrorCount,
		actor,
	});
}

/** A session's own approval policy and escalation thresholds (null: back to the workspace's). */
export async function writeSessionConfig(
	ctx: EngineContext,
	input: { sessionId: string; policy?: ApprovalPolicy | null; thresholds?: Partial<EscalationThresholds> | null; actor: string },
): Promise<void> {
	refuseAgent(input.actor, 'set a session’s review policy or thresholds');
	if (input.policy && !(approvalPolicies as readonly string[]).includes(input.policy)) {
		throw new BatonError('invalidInput', `policy must be one of ${approvalPolicies.join(', ')}`);
	}
	for (const value of Object.values(input.thresholds ?? {})) {
		if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
			throw new BatonError('invalidInput', 'escalation thresholds are numbers ≥ 0');
		}
	}
	await ctx.store.write((db) => {
		getSession(db, input.sessionId);
		const now = ctx.nowIso();
		upsertSessionSettings(db, input.sessionId, now, {
			...(input.policy !== undefined ? { policy: input.policy } : {}),
			...(input.thresholds !== undefined ? { thresholds: input.thresholds } : {}),
		});
		audit(db, {
			at: now,
			actor: input.actor,
			operation: 'checkpoint.configure',
			sessionId: input.sessionId,
			entityType: 'session',
			entityId: input.sessionId,
			details: { policy: input.policy ?? null, thresholds: input.thresholds ?? null },
		});
	});
}

/** Line counts only when asked (the first checkpoint is diffed without them: every file would be read); binary files count no lines. */
function countChanges(changes: FileChange[], lines: boolean): Pick<FileStats, 'added' | 'modified' | 'deleted' | 'linesAdded' | 'linesRemoved'> {
	let added = 0;
	let modified = 0;
	let deleted = 0;
	let linesAdded = 0;
	let linesRemoved = 0;
	for (const c of changes) {
		if (c.change === 'added') added++;
		else if (c.change === 'deleted') deleted++;
		else modified++;
		linesAdded += c.additions ?? 0;
		linesRemoved += c.deletions ?? 0;
	}
	return { added, modified, deleted, linesAdded: lines ? linesAdded : null, linesRemoved: lines ? linesRemoved : null };
}

export function validateMetrics(input: { costUsd?: number; errorCount?: number }): void {
	if (input.costUsd !== undefined && (!Number.isFinite(input.costUsd) || input.costUsd < 0)) {
		throw new BatonError('invalidInput', 'cost is a number of US dollars ≥ 0');
	}
	if (input.errorCount !== undefined && (!Number.isInteger(input.errorCount) || input.errorCount < 0)) {
		throw new BatonError('invalidInput', 'the error count is a whole number ≥ 0');
	}
}

function upsertSessionSettings(
	db: BatonDb,
	sessionId: string,
	now: string,
	set: { costUsd?: number; errorCount?: number; policy?: ApprovalPolicy | null; thresholds?: Partial<EscalationThresholds> | null },
): void {
	const existing = sessionSettingsOf(db, sessionId);
	if (existing) {
		db.update(checkpointSessionSettings)
			.set({ ...set, updatedAt: now })
			.where(eq(checkpointSessionSettings.sessionId, sessionId))
			.run();
	} else {
		db.insert(checkpointSessionSettings)
			.values({
				sessionId,
				costUsd: set.costUsd ?? 0,
				errorCount: set.errorCount ?? 0,
				policy: set.policy ?? null,
				thresholds: set.thresholds ?? null,
				updatedAt: now,
			})
			.run();
	}
}

/**
 * The latest approved checkpoint (safety snapshots aside), when the new tree is exactly its tree:
 * such a checkpoint holds nothing a person has not already judged.
 */
function unchangedSince(db: BatonDb, tree: string): UnchangedSince | null {
	const last = db
		.select({ seq: checkpoints.seq, treeSha: checkpoints.treeSha, trigger: checkpoints.trigger })
		.from(checkpoints)
		.where(and(inArray(checkpoints.approvalStatus, ['approved', 'auto_approved']), ne(checkpoints.trigger, 'pre-rollback')))
		.orderBy(desc(checkpoints.seq))
		.limit(1)
		.get();
	return last && last.treeSha === tree ? { seq: last.seq, label: `checkpoint #${last.seq} (${last.trigger})` } : null;
}
