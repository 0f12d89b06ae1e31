/**
 * The timeline's read and revert side (docs/replay.md), for the CLI and the editor: a session's axis,
 * one step with its diff and where its files stand now, a file at a step's tree, and reverting a step.
 */
import type { CheckpointService } from '../checkpoints/checkpointService';
import { readFileAt } from '../checkpoints/treeDiff';
import type { EngineContext } from '../context';
import { BatonError } from '../errors';
import { activeSessions, getSession } from '../sessions/sessionQueries';
import { filesNow, revertStep, type FileNow, type RevertOutcome } from './stepRevert';
import { findStep, latestTimelineSession, readTimeline, type StepRecord } from './timelineQueries';
import type { TimelineEntry } from './timelineTypes';

export interface SessionTimeline {
	session: string;
	entries: TimelineEntry[];
}

export interface RevertResult extends RevertOutcome {
	step: number;
	sessionId: string;
	dryRun: boolean;
	/** The safety checkpoint taken first (null in a dry run). */
	checkpoint: string | null;
}

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
		return { session, entries: await this.ctx.store.read((db) => readTimeline(db, session)) };
	}

	async step(ref: string, sessionId?: string | null): Promise<StepRecord> {
		const session = ref.trim().startsWith('evt_') ? null : await this.resolveSession(sessionId);
		return this.ctx.store.read((db) => findStep(db, ref, session));
	}

	/** The step's patch (`git diff` between its trees), '' when it changed nothing or was not captured. */
	async diff(step: StepRecord): Promise<string> {
		if (!step.treeBefore || !step.treeAfter) {
			return '';
		}
		const shadow = this.checkpoints.shadow;
		return (await shadow.git(['diff-tree', '-p', '-r', '--no-color', '--no-renames', '--no-ext-diff', step.treeBefore, step.treeAfter])).stdout.toString('utf8');
	}

	/** Where each of the step's files stands now: unchanged since the step, changed later, deleted. */
	async filesNow(step: StepRecord): Promise<{ path: string; now: FileNow }[]> {
		if (!step.treeBefore || !step.treeAfter) {
			return [];
		}
		return filesNow(this.checkpoints.shadow, step.treeBefore, step.treeAfter);
	}

	/** A file's bytes at one of a step's trees; null when that tree does not hold it. */
	async fileAt(tree: string, file: string): Promise<Buffer | null> {
		if (!/^[0-9a-f]{40,64}$/.test(tree)) {
			throw new BatonError('invalidInput', `not a tree id: ${tree}`);
		}
		return readFileAt(this.checkpoints.shadow, tree, file);
	}

	/** Reverts one step where its lines are untouched since; a safety checkpoint first (not in a dry run). */
	async revert(ref: string, input: { sessionId?: string | null; dryRun?: boolean; actor: string }): Promise<RevertResult> {
		const step = await this.step(ref, input.sessionId);
		if (!step.treeBefore || !step.treeAfter) {
			throw new BatonError('invalidInput', `step ${step.step} of ${step.sessionId} was not captured (${step.reason ?? 'no trees'}); there is nothing Baton can revert`);
		}
		const dryRun = input.dryRun ?? false;
		let checkpoint: string | null = null;
		if (!dryRun) {
			// The same safety snapshot rollback takes (and treated alike: approved, never a resume point, no prompt).
			const safety = await this.checkpoints.create({ trigger: 'pre-rollback', message: `before reverting step ${step.step} (${step.tool ?? step.actor})`, sessionId: step.sessionId, actor: input.actor });
			checkpoint = safety.id;
		}
		const outcome = await revertStep(this.checkpoints.shadow, step.treeBefore, step.treeAfter, { dryRun });
		return { step: step.step, sessionId: step.sessionId, dryRun, checkpoint, ...outcome };
	}
}
