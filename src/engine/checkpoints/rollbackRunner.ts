/**
 * A rollback with recorded phases (docs/architecture.md §1): safety checkpoint → verify target → restore →
 * done, or failed → recovered. Workspace files only: git history, other sessions and Baton's own
 * data are never touched. Runs under the shadow's lock.
 *
 * Which files may be removed: a file the target does not have is removed only when Baton's
 * snapshots prove it was created after the target: the target is complete (not degraded, the file
 * was not skipped there) and a later checkpoint descending from the target holds it. Safety
 * checkpoints do not count as proof: they capture everything, including files the user made and
 * never asked Baton to look at, which therefore survive.
 *
 * Undo is a rollback to a safety checkpoint. There the rollback that took it is the proof: a file it
 * wrote that its safety checkpoint lacks did not exist before it, so the undo removes it again and
 * the workspace is exactly as before the rollback.
 */
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { audit } from '../audit';
import type { EngineContext } from '../context';
import { BatonError } from '../errors';
import { newRollbackId } from '../ids';
import type { RollbackPhase } from '../storage/jsonShapes';
import type { Checkpoint, Rollback } from '../storage/model';
import { rollbacks } from '../storage/schema';
import { descendantsOf, setHeadCheckpoint } from './checkpointQueries';
import type { RollbackResult } from './checkpointShapes';
import { splitNul } from '../git/gitRunner';
import { planRestore, RestoreRun, type RestoreFaults, type RestorePlan } from '../shadow/restorer';
import type { ShadowRepo } from '../shadow/shadowRepo';

export type { RollbackResult } from './checkpointShapes';

interface RunnerDeps {
	ctx: EngineContext;
	shadow: ShadowRepo;
	faults: RestoreFaults;
	/** `.baton/rollbacks`: preserved content goes to `<id>/preserved/`. */
	preservedRoot: string;
}

/** At most this many later checkpoints are consulted as proof (newest first). */
const maxProofCheckpoints = 200;

/** Runs one rollback through its phases (see the file's comment), each recorded as it happens. */
export async function runRollback(deps: RunnerDeps, input: RollbackInput): Promise<RollbackResult> {
	const log = rollbackLog(deps, input);
	const safety = await takeSafetyCheckpoint(deps, log, input);
	const plan = await verifyTarget(deps, log, input.target, safety);
	const run = new RestoreRun(deps.shadow, plan, log.preservedDir);
	await restoreOrRecover(deps, log, run, safety);
	return finishRollback(deps, log, plan, run, safety);
}

interface RollbackInput {
	target: Checkpoint;
	actor: string;
	createSafety: () => Promise<Checkpoint>;
}

/** One rollback under way: its id, the phases so far, and how to write them to its row. */
interface RollbackLog {
	id: string;
	phase(name: RollbackPhase['phase'], detail: string | null): void;
	/** Writes the row (inserted on the first call) with `set` and the phases so far. */
	record(set: Partial<Rollback>): Promise<void>;
	/** Where content that would be lost is preserved: `<preservedRoot>/<id>/preserved`. */
	preservedDir: string;
}

/**
 * A new rollback's log. Its row records every phase as it happens; when the status leaves
 * 'running' it is audited, and on 'done' the target becomes the head checkpoint.
 */
function rollbackLog(deps: RunnerDeps, input: RollbackInput): RollbackLog {
	const { ctx } = deps;
	const { target } = input;
	const id = newRollbackId(ctx.clock.now());
	const phases: RollbackPhase[] = [];
	const createdAt = ctx.nowIso();
	const record = async (set: Partial<Rollback>) =>
		ctx.store.write((db) => {
			const now = ctx.nowIso();
			const existing = db.select({ id: rollbacks.id }).from(rollbacks).where(eq(rollbacks.id, id)).get();
			if (existing) {
				db.update(rollbacks)
					.set({ ...set, phases: [...phases] })
					.where(eq(rollbacks.id, id))
					.run();
			} else {
				db.insert(rollbacks)
					.values({
						id,
						targetCheckpointId: target.id,
						safetyCheckpointId: null,
						sessionId: target.sessionId,
						status: 'running',
						phases: [...phases],
						restoredPaths: [],
						removedPaths: [],
						keptPaths: [],
						preservedPaths: [],
						preservedDir: null,
						error: null,
						actor: input.actor,
						createdAt,
						finishedAt: null,
						...set,
					})
					.run();
			}
			if (set.status === 'done') {
				// The workspace now is the target: the next checkpoint descends from it.
				setHeadCheckpoint(db, target.id, now);
			}
			if (set.status && set.status !== 'running') {
				audit(db, {
					at: now,
					actor: input.actor,
					operation: 'checkpoint.rollback',
					sessionId: target.sessionId,
					entityType: 'checkpoint',
					entityId: target.id,
					details: {
						rollbackId: id,
						status: set.status,
						safetyCheckpointId: set.safetyCheckpointId ?? null,
						restored: set.restoredPaths?.length ?? 0,
						removed: set.removedPaths?.length ?? 0,
						error: set.error ?? null,
					},
				});
			}
		});
	return {
		id,
		phase: (name, detail) => {
			phases.push({ phase: name, at: ctx.nowIso(), detail });
		},
		record,
		preservedDir: path.join(deps.preservedRoot, id, 'preserved'),
	};
}

/**
 * Phase 1: the safety checkpoint, taken before anything changes. A degraded one could not put the
 * workspace back, so it fails the rollback (recorded) with nothing changed.
 */
async function takeSafetyCheckpoint(deps: RunnerDeps, log: RollbackLog, input: RollbackInput): Promise<Checkpoint> {
	let safety: Checkpoint;
	try {
		safety = await input.createSafety();
		if (safety.fileStats.degraded) {
			throw new BatonError(
				'rollbackFailed',
				`the safety checkpoint ${safety.id} is incomplete (${safety.fileStats.degradedReason ?? 'degraded'}), so the workspace could not be put back if the rollback failed; nothing was changed`,
			);
		}
	} catch (error) {
		await recordFailure(deps, log, 'safety checkpoint', error);
		throw failure(error, log.id, null, true);
	}
	log.phase('safety_checkpoint', safety.id);
	await log.record({ safetyCheckpointId: safety.id });
	return safety;
}

/** Phase 2: plans the restore from the safety checkpoint to the target; a failure is recorded, with nothing changed. */
async function verifyTarget(deps: RunnerDeps, log: RollbackLog, target: Checkpoint, safety: Checkpoint): Promise<RestorePlan> {
	let plan: RestorePlan;
	try {
		plan = await planRestore(deps.shadow, safety.commitSha, target.commitSha, () => proveCreatedAfter(deps, target, safety));
	} catch (error) {
		await recordFailure(deps, log, 'verify target', error);
		throw failure(error, log.id, safety.id, true);
	}
	log.phase(
		'verify_target',
		`${plan.restored.length} to restore, ${plan.removed.length} to remove, ${plan.kept.length} kept (no proof they are newer), ${plan.inTheWay.length} in the way`,
	);
	return plan;
}

/** Records a failure of a phase before anything changed (`what` names the phase). */
async function recordFailure(deps: RunnerDeps, log: RollbackLog, what: string, error: unknown): Promise<void> {
	log.phase('failed', `${what}: ${(error as Error).message}; nothing was changed`);
	await log.record({ status: 'failed', error: (error as Error).message, finishedAt: deps.ctx.nowIso() });
}

/**
 * Phase 3: applies the plan. When it fails the run is recovered (the workspace put back as the
 * safety checkpoint has it) and the rollback recorded 'recovered'; if recovery fails too it is
 * recorded 'failed' with what was preserved, and the error says how to undo by hand.
 */
async function restoreOrRecover(deps: RunnerDeps, log: RollbackLog, run: RestoreRun, safety: Checkpoint): Promise<void> {
	const { ctx } = deps;
	try {
		await run.apply(deps.faults);
	} catch (error) {
		log.phase('failed', `restore: ${(error as Error).message}`);
		let recoveryError: unknown;
		try {
			await run.recover();
		} catch (caught) {
			recoveryError = caught ?? new Error('recovery failed');
		}
		if (recoveryError === undefined) {
			log.phase('recovered', `the workspace is back as it was (safety checkpoint ${safety.id})`);
			const rescued = run.rescued.length ? { preservedPaths: run.rescued, preservedDir: relative(deps, log.preservedDir) } : {};
			await log.record({ status: 'recovered', error: (error as Error).message, finishedAt: ctx.nowIso(), ...rescued });
			throw failure(error, log.id, safety.id, true);
		}
		const message = `${(error as Error).message}; recovery failed too: ${(recoveryError as Error).message}`;
		await log.record({
			status: 'failed',
			error: message,
			preservedPaths: run.preserved,
			preservedDir: relative(deps, log.preservedDir),
			finishedAt: ctx.nowIso(),
		});
		throw failure(new Error(message), log.id, safety.id, false);
	}
}

/** Phase 4: records the rollback done (which makes the target the head) and returns what it did. */
async function finishRollback(deps: RunnerDeps, log: RollbackLog, plan: RestorePlan, run: RestoreRun, safety: Checkpoint): Promise<RollbackResult> {
	log.phase('restore', `${plan.restored.length} restored, ${plan.removed.length} removed`);
	const preserved = [...new Set([...plan.displaced, ...run.preserved])].sort();
	const preservedDir = preserved.length ? relative(deps, log.preservedDir) : null;
	log.phase('done', null);
	await log.record({
		status: 'done',
		restoredPaths: plan.restored,
		removedPaths: plan.removed,
		keptPaths: plan.kept,
		preservedPaths: preserved,
		preservedDir,
		finishedAt: deps.ctx.nowIso(),
	});
	return { rollbackId: log.id, safetyCheckpointId: safety.id, restored: plan.restored, removed: plan.removed, kept: plan.kept, preserved, preservedDir };
}

/**
 * Paths created after the target according to Baton's snapshots: added in some later checkpoint
 * that descends from the target (safety checkpoints excluded). A degraded target, or one whose
 * skipped list is incomplete, proves nothing; a path the target skipped (too large) is never proven.
 */
async function proveCreatedAfter(deps: RunnerDeps, target: Checkpoint, safety: Checkpoint): Promise<Set<string>> {
	const stats = target.fileStats;
	if (stats.degraded || stats.skippedTotal > stats.skipped.length) {
		return new Set();
	}
	const byRollback = target.trigger === 'pre-rollback' ? await writtenByRollbacksFrom(deps, target) : new Set<string>();
	const later = await provenByLaterCheckpoints(deps, target, safety);
	for (const rel of byRollback) {
		later.add(rel);
	}
	for (const skipped of stats.skipped) {
		// The safety checkpoint did not hold it (too large): it may well have existed before.
		later.delete(skipped.path);
	}
	return later;
}

/**
 * Paths written by the finished rollbacks whose safety checkpoint is `safetyTarget`. Only those the
 * safety checkpoint lacks reach the removal list (planRestore considers only paths it does not have).
 */
async function writtenByRollbacksFrom(deps: RunnerDeps, safetyTarget: Checkpoint): Promise<Set<string>> {
	const rows = await deps.ctx.store.read((db) =>
		db
			.select({ restoredPaths: rollbacks.restoredPaths })
			.from(rollbacks)
			.where(and(eq(rollbacks.safetyCheckpointId, safetyTarget.id), eq(rollbacks.status, 'done')))
			.all(),
	);
	return new Set(rows.flatMap((r) => r.restoredPaths));
}

async function provenByLaterCheckpoints(deps: RunnerDeps, target: Checkpoint, safety: Checkpoint): Promise<Set<string>> {
	const later = (await deps.ctx.store.read((db) => descendantsOf(db, target.id)))
		.filter((cp) => cp.id !== safety.id && cp.trigger !== 'pre-rollback')
		.slice(0, maxProofCheckpoints);
	if (!later.length) {
		return new Set();
	}
	// One process: each later checkpoint diffed against the target.
	const input = later.map((cp) => `${cp.commitSha} ${target.commitSha}\n`).join('');
	const raw = splitNul((await deps.shadow.git(['diff-tree', '--stdin', '-r', '-z', '--no-renames', '--raw'], { input })).stdout);
	return provenAdditions(raw, async (sha) => (await deps.shadow.git(['cat-file', 'blob', sha])).stdout.toString('utf8'));
}

/**
 * The paths each later checkpoint added compared with the target, from `diff-tree --stdin --raw -z`
 * output (per checkpoint: its commit id, then `:modes shas status` / path pairs).
 *
 * A checkpoint whose `.gitignore` files changed since the target in a way that can make something
 * visible (a line removed, a negation `!…` added, the file deleted) proves nothing below that
 * folder: a path it holds there may have existed at the target's time, ignored then. Changes that
 * only ignore more keep the proof. `readBlob` is asked only when a `.gitignore` changed.
 */
async function provenAdditions(tokens: string[], readBlob: (sha: string) => Promise<string>): Promise<Set<string>> {
	const proven = new Set<string>();
	const zero = /^0+$/;
	let added: string[] = [];
	let unsafeDirs: string[] = [];
	const flush = () => {
		for (const rel of added) {
			if (!unsafeDirs.some((dir) => dir === '' || rel.startsWith(`${dir}/`))) {
				proven.add(rel);
			}
		}
		added = [];
		unsafeDirs = [];
	};
	for (let i = 0; i < tokens.length; i++) {
		const token = tokens[i] as string;
		if (!token.startsWith(':')) {
			flush(); // the next checkpoint's commit id
			continue;
		}
		const rel = tokens[++i];
		if (rel === undefined) {
			break;
		}
		const [, , oldSha = '', newSha = '', status = ''] = token.slice(1).split(' ');
		if (rel === '.gitignore' || rel.endsWith('/.gitignore')) {
			const before = zero.test(oldSha) ? '' : await readBlob(oldSha);
			const after = zero.test(newSha) ? null : await readBlob(newSha);
			if (after === null || !onlyIgnoresMore(before, after)) {
				unsafeDirs.push(rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '');
			}
		} else if (status === 'A') {
			added.push(rel);
		}
	}
	flush();
	return proven;
}

/** True when every rule of `before` is still in `after` and `after` adds no negation. */
function onlyIgnoresMore(before: string, after: string): boolean {
	const rules = (text: string) =>
		new Set(
			text
				.split(/\r?\n/)
				.map((l) => l.trim())
				.filter((l) => l && !l.startsWith('#')),
		);
	const old = rules(before);
	const now = rules(after);
	return [...old].every((rule) => now.has(rule)) && [...now].every((rule) => old.has(rule) || !rule.startsWith('!'));
}

function failure(error: unknown, rollbackId: string, safetyCheckpointId: string | null, recovered: boolean): BatonError {
	const message = (error as Error).message;
	const what = recovered
		? safetyCheckpointId
			? 'the workspace was put back as it was'
			: 'nothing was changed'
		: `the workspace may be partly restored; roll back to ${safetyCheckpointId ?? 'the safety checkpoint'} to undo`;
	return new BatonError('rollbackFailed', `rollback failed: ${message} (${what})`, { rollbackId, safetyCheckpointId, recovered });
}

function relative(deps: RunnerDeps, dir: string): string {
	return path.relative(deps.ctx.workspaceRoot, dir).split(path.sep).join('/');
}
