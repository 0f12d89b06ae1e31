/**
 * The timeline's read and revert side (docs/replay.md), for the CLI and the editor: a session's axis,
 * one step with its diff and where its files stand now, a file at a step's tree, and reverting a step.
 */
import type { CheckpointService } from '../checkpoints/checkpointService';
import { readFileAt } from '../shadow/treeDiff';
import type { EngineContext } from '../context';
import { BatonError } from '../errors';
import { activeSessions, getSession } from '../sessions/sessionQueries';
import { filesNow, revertStep, type FileNow } from './stepRevert';
import { findStep, latestTimelineSession, readTimeline, stepOf, stepsNamingTree, type StepRecord } from './timelineQueries';
import { recordedBlobs, recordedChanges, resolveTree, stepChanges, stepOnlyTrees } from './stepTrees';
import { sessionEvents } from '../shared/sharedEvents';
import { missingObjects, readPruned } from './timelineRetention';
import { stepKind, type RevertResult, type SessionTimeline, type TimelineEntry, type TimelineStep } from './timelineShapes';
import { assertRealFolders, assertWorkspacePaths } from '../shadow/workspacePaths';

export class TimelineService {
	constructor(
		private readonly ctx: EngineContext,
		private readonly checkpoints: CheckpointService,
	) {}

	/** The session given, else the one active session, else the session with the latest timeline record. */
	async resolveSession(sessionId?: string | null): Promise<string> {
		return this.ctx.store.read((db) => {
			if (sessionId) {
				return getSession(db, sessionId).id;
			}
			const active = activeSessions(db);
			if (active.length === 1 && active[0]) {
				return active[0].id;
			}
			const latest = latestTimelineSession(db);
			if (!latest) {
				throw new BatonError('notFound', 'no session has a timeline yet; pass --session ID');
			}
			return latest;
		});
	}

	async timeline(sessionId?: string | null): Promise<SessionTimeline> {
		const session = await this.resolveSession(sessionId);
		const entries = await this.ctx.store.read((db) => readTimeline(db, session));
		await this.markTreesGone(
			entries.filter((e): e is Extract<TimelineEntry, { type: 'step' }> => e.type === 'step'),
			session,
		);
		return { session, entries };
	}

	async step(ref: string, sessionId?: string | null): Promise<StepRecord> {
		const session = ref.trim().startsWith('evt_') ? null : await this.resolveSession(sessionId);
		const step = await this.ctx.store.read((db) => findStep(db, ref, session));
		await this.markTreesGone([step], step.sessionId);
		return step;
	}

	/**
	 * A captured step whose files this store can no longer show (pruned by the retention, or recorded
	 * on another machine) keeps its record and says why its diff is gone: `treesGone`. A step that
	 * lists its blob ids needs those blobs (its trees are rebuilt on demand); an older one its trees.
	 */
	private async markTreesGone(steps: TimelineStep[], sessionId: string): Promise<void> {
		const captured = steps.filter((s) => s.treeBefore && s.treeAfter);
		if (captured.length === 0) {
			return;
		}
		const prunedAt = readPruned(this.ctx.workspaceRoot)[sessionId];
		const prunedHere = (s: TimelineStep) => (prunedAt !== undefined && s.startedAt <= prunedAt ? prunedAt : undefined);
		// A pruned session's keyframes are gone, so its steps need their own trees (a checkpoint may share them).
		const needs = (s: TimelineStep) =>
			recordedChanges(s) && !prunedHere(s) ? recordedBlobs(s) : [s.treeBefore as string, s.treeAfter as string, ...recordedBlobs(s)];
		// A tree a checkpoint shares outlives the pruning of the timeline: only what is missing is gone.
		const missing = await missingObjects(this.checkpoints.shadow, captured.flatMap(needs));
		if (missing.size === 0) {
			return;
		}
		for (const step of captured) {
			if (needs(step).some((sha) => missing.has(sha))) {
				const at = prunedHere(step);
				step.treesGone = at
					? `its trees were pruned on ${at.slice(0, 10)} by the timeline retention (checkpoints.timelineKeep); the record stays, the diff is gone`
					: "its trees are not in this workspace's store (recorded on another machine, or pruned); the record stays, the diff is gone";
			}
		}
	}

	/** The session's steps in step order (to rebuild a tree from its keyframe). */
	private async sessionSteps(sessionId: string): Promise<TimelineStep[]> {
		const steps = await this.ctx.store.read((db) => sessionEvents(db, sessionId, [stepKind]).map(stepOf));
		return steps.sort((a, b) => a.step - b.step);
	}

	/** The step's two trees in the store, rebuilt from the nearest keyframe when not kept; a clear error when they cannot be. */
	async stepTrees(step: StepRecord): Promise<{ before: string; after: string }> {
		if (!step.treeBefore || !step.treeAfter) {
			throw new BatonError('invalidInput', `step ${step.step} of ${step.sessionId} was not captured (${step.reason ?? 'no trees'})`);
		}
		const steps = await this.sessionSteps(step.sessionId);
		const shadow = this.checkpoints.shadow;
		const before = await resolveTree(shadow, steps, step.treeBefore);
		const after = before ? await resolveTree(shadow, steps, step.treeAfter) : null;
		if (!before || !after) {
			throw new BatonError(
				'notFound',
				`step ${step.step} of ${step.sessionId}: its ${before ? 'after' : 'before'} tree (${before ? step.treeAfter : step.treeBefore}) is not kept and cannot be rebuilt exactly from the session's keyframes; its record and files stay`,
			);
		}
		return { before, after };
	}

	/** The step's patch (`git diff` between its trees), '' when it changed nothing or was not captured. */
	async diff(step: StepRecord): Promise<string> {
		if (!step.treeBefore || !step.treeAfter || step.treesGone || step.treeBefore === step.treeAfter) {
			return '';
		}
		const shadow = this.checkpoints.shadow;
		// A step whose trees this store cannot give (a teammate's, shared with its blobs) is diffed from its own files.
		const trees = await this.stepTrees(step).catch(async (error: unknown) => {
			const own = BatonError.is(error) && error.code === 'notFound' ? await stepOnlyTrees(shadow, step) : null;
			if (!own) {
				throw error;
			}
			return own;
		});
		return (await shadow.git(['diff-tree', '-p', '-r', '--no-color', '--no-renames', '--no-ext-diff', trees.before, trees.after])).stdout.toString('utf8');
	}

	/** Where each of the step's files stands now: unchanged since the step, changed later, deleted. */
	async filesNow(step: StepRecord): Promise<{ path: string; now: FileNow }[]> {
		if (!step.treeBefore || !step.treeAfter || step.treesGone) {
			return [];
		}
		return filesNow(this.checkpoints.shadow, await stepChanges(this.checkpoints.shadow, step, { lines: false }));
	}

	/**
	 * A file's bytes at one of a step's trees; null when that tree does not hold it. A tree the store
	 * does not keep is read through the blob ids of the step that names it, else rebuilt.
	 */
	async fileAt(tree: string, file: string): Promise<Buffer | null> {
		if (!/^[0-9a-f]{40,64}$/.test(tree)) {
			throw new BatonError('invalidInput', `not a tree id: ${tree}`);
		}
		const shadow = this.checkpoints.shadow;
		if ((await missingObjects(shadow, [tree])).size === 0) {
			return readFileAt(shadow, tree, file);
		}
		const named = await this.ctx.store.read((db) => stepsNamingTree(db, tree));
		for (const step of named) {
			const change = recordedChanges(step)?.find((c) => c.path === file);
			const sha = change ? (step.treeAfter === tree ? change.newSha : change.oldSha) : undefined;
			if (change && !sha) {
				return null;
			}
			if (sha && (await missingObjects(shadow, [sha])).size === 0) {
				return (await shadow.git(['cat-file', 'blob', sha])).stdout;
			}
		}
		for (const step of named) {
			const rebuilt = await resolveTree(shadow, await this.sessionSteps(step.sessionId), tree);
			if (rebuilt) {
				return readFileAt(shadow, rebuilt, file);
			}
		}
		throw new BatonError(
			'notFound',
			`tree ${tree} is no longer in Baton's store and cannot be rebuilt (its session's replay was pruned, or it was recorded elsewhere); the step's record stays`,
		);
	}

	/** Reverts one step where its lines are untouched since; a safety checkpoint first (not in a dry run). */
	async revert(ref: string, input: { sessionId?: string | null; dryRun?: boolean; actor: string }): Promise<RevertResult> {
		const step = await this.step(ref, input.sessionId);
		if (!step.treeBefore || !step.treeAfter) {
			throw new BatonError(
				'invalidInput',
				`step ${step.step} of ${step.sessionId} was not captured (${step.reason ?? 'no trees'}); there is nothing Baton can revert`,
			);
		}
		if (step.treesGone) {
			throw new BatonError('invalidInput', `step ${step.step} of ${step.sessionId} cannot be reverted: ${step.treesGone}`);
		}
		// The changes first: a step whose files cannot be read is refused before any safety checkpoint.
		const changes = await stepChanges(this.checkpoints.shadow, step);
		const paths = changes.map((c) => c.path);
		assertWorkspacePaths(paths, `step ${step.step} of ${step.sessionId}`);
		assertRealFolders(this.checkpoints.shadow.workTree, paths, `step ${step.step} of ${step.sessionId}`);
		const dryRun = input.dryRun ?? false;
		let checkpoint: string | null = null;
		if (!dryRun) {
			// The same safety snapshot rollback takes (and treated alike: approved, never a resume point, no prompt).
			const safety = await this.checkpoints.create({
				trigger: 'pre-rollback',
				message: `before reverting step ${step.step} (${step.tool ?? step.actor})`,
				sessionId: step.sessionId,
				actor: input.actor,
			});
			checkpoint = safety.id;
		}
		const outcome = await revertStep(this.checkpoints.shadow, changes, { dryRun });
		return { step: step.step, sessionId: step.sessionId, dryRun, checkpoint, ...outcome };
	}
}
