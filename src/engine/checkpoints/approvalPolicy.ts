/**
 * Approval rules (docs/architecture.md §1): escalation is evaluated first, then the policy, and an unknown
 * trigger always needs review. Pure functions: the service feeds them the session's metrics.
 */
import type { CheckpointMetrics, EscalationThresholds } from '../storage/jsonShapes';
import type { ApprovalPolicy, ApprovalStatus, Checkpoint } from '../storage/model';
import { checkpointTriggers } from '../storage/schema';

export interface ApprovalDecision {
	status: ApprovalStatus;
	policy: ApprovalPolicy;
	/** Why: the escalation, the policy rule, or the unknown trigger. */
	reason: string;
	escalationReasons: string[];
}

/**
 * Triggers each policy approves by itself; every other known trigger waits for a person. Manual ones:
 * the person who took one chose that moment, so only `strict` asks them again (one rule for the
 * editor and the CLI).
 */
const autoApprovedTriggers: Readonly<Record<ApprovalPolicy, readonly string[]>> = {
	// `compact`: the snapshot taken before an agent compacts its context is a way back, not a piece of
	// work to judge (Gemini CLI compresses before every model request; Claude Code on /compact).
	auto: ['periodic', 'heartbeat', 'detach', 'manual', 'compact'],
	review: ['periodic', 'manual', 'compact'],
	strict: [],
};

export function isKnownTrigger(trigger: string): boolean {
	return (checkpointTriggers as readonly string[]).includes(trigger);
}

/**
 * A metric at or over its threshold escalates (as Parhelia's reference rules do). A threshold of 0
 * turns that check off. `sessionAgeMs` is the session's active time: suspended time does not count.
 */
function escalationReasons(metrics: CheckpointMetrics, thresholds: EscalationThresholds): string[] {
	const reasons: string[] = [];
	if (thresholds.costUsd > 0 && metrics.costUsd >= thresholds.costUsd) {
		reasons.push(`cost $${metrics.costUsd.toFixed(2)} reached the $${thresholds.costUsd.toFixed(2)} threshold`);
	}
	if (thresholds.durationMs > 0 && metrics.sessionAgeMs >= thresholds.durationMs) {
		reasons.push(`session active for ${hours(metrics.sessionAgeMs)} reached the ${hours(thresholds.durationMs)} threshold`);
	}
	if (thresholds.errorCount > 0 && metrics.errorCount >= thresholds.errorCount) {
		reasons.push(`${metrics.errorCount} error${metrics.errorCount === 1 ? '' : 's'} reached the threshold of ${thresholds.errorCount}`);
	}
	return reasons;
}

/** Checkpoints Baton takes for its own safety (before a rollback): never a review, under any policy. */
const nothingToJudgeTriggers: readonly string[] = ['pre-rollback'];

/** The last approved state the new checkpoint is identical to (same tree), if any. */
export interface UnchangedSince {
	seq: number;
	label: string;
}

export function decideApproval(input: {
	trigger: string;
	policy: ApprovalPolicy;
	metrics: CheckpointMetrics;
	thresholds: EscalationThresholds;
	unchangedSince?: UnchangedSince | null;
	reviewRequested?: boolean;
	/** A person ended their own session (no agent's, not through an agent's hook or MCP): a review would ask them about their own work. */
	personsOwnEnd?: boolean;
}): ApprovalDecision {
	const { trigger, policy } = input;
	// Someone (an agent's request_approval) asked a person to look: that is never decided for them.
	if (input.reviewRequested && !nothingToJudgeTriggers.includes(trigger)) {
		return { status: 'pending', policy, reason: 'a review was requested', escalationReasons: [] };
	}
	// Nothing for a person to judge: Baton's own safety snapshot, or the very state already approved.
	// These come before escalation: a review of them would show nothing new.
	if (nothingToJudgeTriggers.includes(trigger)) {
		return { status: 'auto_approved', policy, reason: `${trigger} checkpoints are Baton's own safety snapshots: nothing to review`, escalationReasons: [] };
	}
	if (input.personsOwnEnd && trigger === 'complete') {
		return { status: 'auto_approved', policy, reason: 'a person ended their own session: nothing for them to review', escalationReasons: [] };
	}
	if (input.unchangedSince && isKnownTrigger(trigger)) {
		return { status: 'auto_approved', policy, reason: `nothing changed since ${input.unchangedSince.label}, which was approved`, escalationReasons: [] };
	}
	const escalation = escalationReasons(input.metrics, input.thresholds);
	if (escalation.length > 0) {
		return { status: 'pending', policy, reason: `escalated: ${escalation.join('; ')}`, escalationReasons: escalation };
	}
	if (!isKnownTrigger(trigger)) {
		return { status: 'pending', policy, reason: `unknown trigger "${trigger}" needs review`, escalationReasons: [] };
	}
	if (autoApprovedTriggers[policy].includes(trigger)) {
		return {
			status: 'auto_approved',
			policy,
			reason: `${trigger} checkpoints are approved automatically under the ${policy} policy`,
			escalationReasons: [],
		};
	}
	return { status: 'pending', policy, reason: `${trigger} checkpoints need review under the ${policy} policy`, escalationReasons: [] };
}

export interface ResumePoint {
	checkpoint: Checkpoint;
	/** Set when the choice is not an approved (or auto-approved) checkpoint. */
	warning: string | null;
}

/**
 * Which checkpoint to resume from: the latest approved, else the latest auto-approved, else the
 * latest pending (with a warning); a rejected one only with the explicit override. Safety
 * checkpoints taken before a rollback are states someone chose to leave: never a resume point.
 */
export function chooseResumePoint(candidates: readonly Checkpoint[], options: { allowRejected?: boolean } = {}): ResumePoint | null {
	const usable = candidates.filter((c) => c.trigger !== 'pre-rollback');
	const latest = (status: ApprovalStatus) =>
		usable.filter((c) => c.approvalStatus === status).reduce<Checkpoint | undefined>((best, c) => (!best || c.seq > best.seq ? c : best), undefined);
	const approved = latest('approved');
	if (approved) {
		return { checkpoint: approved, warning: null };
	}
	const auto = latest('auto_approved');
	if (auto) {
		return { checkpoint: auto, warning: null };
	}
	const pending = latest('pending');
	if (pending) {
		return { checkpoint: pending, warning: `checkpoint ${pending.id} has not been reviewed yet (pending approval)` };
	}
	const rejected = latest('rejected');
	if (rejected && options.allowRejected) {
		return {
			checkpoint: rejected,
			warning: `checkpoint ${rejected.id} was rejected${rejected.approvalUser ? ` by ${rejected.approvalUser}` : ''}; resuming from it only because you said so`,
		};
	}
	return null;
}

function hours(ms: number): string {
	const h = ms / 3_600_000;
	return h >= 1 ? `${+h.toFixed(1)} h` : `${Math.round(ms / 60_000)} min`;
}
