/**
 * Which domain events become notifications, and what they say. Only moments where a person is
 * needed or wants to know: a start (info), a finish (notice), an error,
 * a review, an escalation, a budget line crossed; never every step. Reads only: the subscriber
 * writes the rows afterwards (a failing read must not leave a half-written statement behind).
 *
 * Decisions:
 * - One notification per checkpoint, the most urgent that applies: escalation (critical) > error
 *   trigger (`session.error`, warning) > pending (`checkpoint.needs_review`, warning). Safety
 *   checkpoints a rollback takes are not announced: a person is already there.
 * - `session.error` also fires when a session's error count rises *through* its escalation
 *   threshold (the workspace's `checkpoints.escalation.errorCount` or the session's own); a rise below
 *   it is noise, and a rise above it has already been announced.
 * - Budget: `budget.threshold_reached` when the cost crosses `threshold × sessionUsd`,
 *   `budget.exceeded` when it crosses `sessionUsd` (only the latter when one step crosses both).
 */
import path from 'node:path';
import type { BatonConfig, NotificationEvent } from '../config';
import type { DomainEvent } from '../events';
import { lastApprovedBefore, listCheckpoints, sessionSettingsOf } from '../checkpoints/checkpointQueries';
import { getSession } from '../sessions/sessionQueries';
import type { BatonDb } from '../storage/journalStore';
import type { Checkpoint, NotificationPriority, Session } from '../storage/model';
import { actorName } from '../text/actorNames';
import { formatUsd, type NotificationAction, type NotificationMessage } from './notificationMessage';

export interface PlannedNotification {
	event: NotificationEvent;
	priority: NotificationPriority;
	/** Same key on a channel within the de-duplication window → suppressed. */
	dedupKey: string;
	sessionId: string | null;
	message: NotificationMessage;
}

const defaultPriorities: Record<NotificationEvent, NotificationPriority> = {
	'session.started': 'info',
	'session.completed': 'notice',
	'session.error': 'warning',
	'checkpoint.needs_review': 'warning',
	'checkpoint.approved': 'notice',
	'checkpoint.rejected': 'notice',
	'escalation.triggered': 'critical',
	'budget.threshold_reached': 'warning',
	'budget.exceeded': 'critical',
};

interface RuleContext {
	db: BatonDb;
	config: BatonConfig;
	nowMs: number;
	workspaceRoot: string;
	/** Does a notification of this priority go to any channel? */
	routed: (priority: NotificationPriority) => boolean;
}

/**
 * The notifications `event` sends somewhere. Only those are worth their message's reads: every
 * session start is one (`info`, routed nowhere unless configured), and its message read the
 * session's settings and checkpoints for nothing.
 */
export function notificationsFor(event: DomainEvent, ctx: RuleContext): PlannedNotification[] {
	return candidatesFor(event, ctx)
		.filter((n) => ctx.routed(n.priority))
		.map((n) => ({ ...n, message: n.message }));
}

function candidatesFor(event: DomainEvent, ctx: RuleContext): PlannedNotification[] {
	switch (event.type) {
		case 'session.started':
			return [
				planned(
					ctx,
					'session.started',
					`session.started:${event.session.id}`,
					event.session,
					null,
					`Session started: ${event.session.name}`,
					`Session “${event.session.name}” started in scope ${event.session.scopeKey}${event.session.agent ? ` (${event.session.agent})` : ''}.`,
					[details(event.session.id)],
				),
			];
		case 'session.ended': {
			const next = event.handoff.nextAction ? ` Next: ${event.handoff.nextAction}` : '';
			const blockers = event.handoff.openBlockers.length ? ` Blockers: ${event.handoff.openBlockers.join('; ')}.` : '';
			return [
				planned(
					ctx,
					'session.completed',
					`session.completed:${event.session.id}`,
					event.session,
					null,
					`Session completed: ${event.session.name}`,
					`Session “${event.session.name}” ended; its handoff is written.${next}${blockers}`,
					[details(event.session.id)],
				),
			];
		}
		case 'checkpoint.created':
			return checkpointCreated(ctx, event.checkpoint, event.session);
		case 'checkpoint.decided': {
			const cp = event.checkpoint;
			const session = cp.sessionId ? getSession(ctx.db, cp.sessionId) : null;
			const approved = event.status === 'approved';
			const because = cp.approvalReason ? `: ${cp.approvalReason}` : '';
			// Said to teammates too (Slack, e-mail): the person's name, never "you"; the actor stays in the audit log.
			const summary = `${actorName(event.actor, null)} ${event.status} ${describe(cp)}${because}.`;
			const actions = approved
				? [{ label: 'Details', cli: `baton checkpoint show ${cp.id}`, editor: 'Baton: Compare Checkpoints' }]
				: rejectedActions(ctx.db, cp);
			return [
				planned(
					ctx,
					approved ? 'checkpoint.approved' : 'checkpoint.rejected',
					`checkpoint.${event.status}:${cp.id}`,
					session,
					cp,
					`Checkpoint ${event.status}: ${title(cp)}`,
					summary,
					actions,
				),
			];
		}
		case 'session.metrics':
			return metricsCrossed(ctx, event);
		default:
			return [];
	}
}

function checkpointCreated(ctx: RuleContext, cp: Checkpoint, session: Session | null): PlannedNotification[] {
	const subject = cp.sessionId ?? cp.id;
	if (cp.escalationReasons.length > 0) {
		const kinds = cp.escalationReasons.map(reasonKind).sort().join('+');
		return [
			planned(
				ctx,
				'escalation.triggered',
				`escalation.triggered:${subject}:${kinds}`,
				session,
				cp,
				`Escalation: ${title(cp)} needs approval`,
				`${describe(cp)} needs a person: ${cp.escalationReasons.join('; ')}.`,
				reviewActions(cp),
			),
		];
	}
	if (cp.trigger === 'error') {
		const review = cp.approvalStatus === 'pending' ? ' It waits for review.' : '';
		return [
			planned(
				ctx,
				'session.error',
				`session.error:${subject}`,
				session,
				cp,
				`Error in ${session ? `session ${session.name}` : 'a session'}`,
				`The agent stopped on an error: ${describe(cp)}.${review}`,
				cp.approvalStatus === 'pending' ? reviewActions(cp) : session ? [details(session.id)] : [],
			),
		];
	}
	if (cp.approvalStatus === 'pending' && cp.trigger !== 'pre-rollback') {
		return [
			planned(
				ctx,
				'checkpoint.needs_review',
				`checkpoint.needs_review:${subject}`,
				session,
				cp,
				`Checkpoint needs review: ${title(cp)}`,
				`${describe(cp)} needs review (${cp.approvalReason ?? 'policy'}).`,
				reviewActions(cp),
			),
		];
	}
	return [];
}

function metricsCrossed(ctx: RuleContext, event: Extract<DomainEvent, { type: 'session.metrics' }>): PlannedNotification[] {
	const out: PlannedNotification[] = [];
	const session = getSession(ctx.db, event.sessionId);
	const { sessionUsd, threshold } = ctx.config.notifications.budget;
	const crossed = (line: number) => event.previousCostUsd < line && event.costUsd >= line;
	const pause = { label: 'Pause the session', cli: `baton session suspend ${session.id}`, editor: 'Baton: Suspend Session' };
	if (sessionUsd > 0 && crossed(sessionUsd)) {
		out.push(
			planned(
				ctx,
				'budget.exceeded',
				`budget.exceeded:${session.id}`,
				session,
				null,
				`Budget exceeded: ${session.name}`,
				`Session “${session.name}” has cost ${formatUsd(event.costUsd)}, at or over its ${formatUsd(sessionUsd)} budget.`,
				[details(session.id), pause],
			),
		);
	} else if (sessionUsd > 0 && crossed(sessionUsd * threshold)) {
		out.push(
			planned(
				ctx,
				'budget.threshold_reached',
				`budget.threshold_reached:${session.id}`,
				session,
				null,
				`Budget ${Math.round(threshold * 100)}% used: ${session.name}`,
				`Session “${session.name}” has cost ${formatUsd(event.costUsd)} of its ${formatUsd(sessionUsd)} budget.`,
				[details(session.id), pause],
			),
		);
	}
	const limit = sessionSettingsOf(ctx.db, session.id)?.thresholds?.errorCount ?? ctx.config.checkpoints.escalation.errorCount;
	if (limit > 0 && event.previousErrorCount < limit && event.errorCount >= limit) {
		out.push(
			planned(
				ctx,
				'session.error',
				`session.error:${session.id}`,
				session,
				null,
				`Errors in session ${session.name}`,
				`Session “${session.name}” has hit ${event.errorCount} errors (threshold ${limit}).`,
				[details(session.id)],
			),
		);
	}
	return out;
}

function planned(
	ctx: RuleContext,
	event: NotificationEvent,
	dedupKey: string,
	session: Session | null,
	cp: Checkpoint | null,
	title: string,
	summary: string,
	actions: NotificationAction[],
): PlannedNotification {
	const priority = ctx.config.notifications.priorities[event] ?? defaultPriorities[event];
	let message: NotificationMessage | undefined;
	const build = (): NotificationMessage => ({
		event,
		priority,
		title,
		summary,
		workspace: path.basename(ctx.workspaceRoot),
		session: session ? sessionFacts(ctx, session) : null,
		filesChanged: cp
			? { added: cp.fileStats.added, modified: cp.fileStats.modified, deleted: cp.fileStats.deleted, checkpoints: 1 }
			: session
				? sessionFiles(ctx.db, session.id)
				: null,
		checkpoint: cp
			? { id: cp.id, trigger: cp.trigger, message: cp.message, approvalStatus: cp.approvalStatus, escalationReasons: cp.escalationReasons }
			: null,
		actions,
		at: new Date(ctx.nowMs).toISOString(),
	});
	return {
		event,
		priority,
		dedupKey,
		sessionId: session?.id ?? cp?.sessionId ?? null,
		// Built when first read (see notificationsFor).
		get message() {
			return (message ??= build());
		},
	};
}

function sessionFacts(ctx: RuleContext, session: Session): NonNullable<NotificationMessage['session']> {
	const end = session.endedAt ? Date.parse(session.endedAt) : ctx.nowMs;
	return {
		id: session.id,
		name: session.name,
		costUsd: sessionSettingsOf(ctx.db, session.id)?.costUsd ?? 0,
		durationMs: Math.max(0, end - Date.parse(session.startedAt)),
	};
}

/** Summed over the session's checkpoints (a file changed in two of them counts twice). */
function sessionFiles(db: BatonDb, sessionId: string): NotificationMessage['filesChanged'] {
	const cps = listCheckpoints(db, { sessionId, limit: 1000 });
	if (cps.length === 0) return null;
	return cps.reduce(
		(sum, cp) => ({
			added: sum.added + cp.fileStats.added,
			modified: sum.modified + cp.fileStats.modified,
			deleted: sum.deleted + cp.fileStats.deleted,
			checkpoints: sum.checkpoints + 1,
		}),
		{
			added: 0,
			modified: 0,
			deleted: 0,
			checkpoints: 0,
		},
	);
}

// People recognise a checkpoint by its number and label, never by its id (the actions carry the id).
const title = (cp: Checkpoint): string => `#${cp.seq} ${cp.message?.trim() ? `“${cp.message.trim()}”` : `(${cp.trigger})`}`;
const describe = (cp: Checkpoint): string => `checkpoint #${cp.seq} ${cp.message?.trim() ? `“${cp.message.trim()}”` : `(${cp.trigger})`}`;
const details = (sessionId: string): NotificationAction => ({
	label: 'Open the session',
	cli: `baton session show ${sessionId}`,
	editor: 'Baton: Show Session Details',
});

function reviewActions(cp: Checkpoint): NotificationAction[] {
	return [
		{ label: 'Review', cli: `baton checkpoint diff ${cp.id}`, editor: 'Baton: Compare Checkpoints' },
		{ label: 'Approve', cli: `baton checkpoint approve ${cp.id}`, editor: 'Baton: Approve Checkpoint' },
		{ label: 'Reject', cli: `baton checkpoint reject ${cp.id}`, editor: 'Baton: Reject Checkpoint' },
	];
}

/** The label every rejection's rollback offer carries, in the editor and on every channel. */
const rollbackOfferLabel = 'Roll Back to the Last Approved Checkpoint';

/**
 * After a rejection: roll back to the last checkpoint before it that a person or the policy approved
 * (auto-approved counts: it is a state the policy vouched for), in the same session when it has one.
 */
function rejectedActions(db: BatonDb, cp: Checkpoint): NotificationAction[] {
	const approved = lastApprovedBefore(db, cp);
	return approved
		? [{ label: rollbackOfferLabel, cli: `baton checkpoint rollback ${approved.id}`, editor: 'Baton: Roll Back to Checkpoint' }]
		: [{ label: 'Details', cli: `baton checkpoint show ${cp.id}`, editor: 'Baton: Compare Checkpoints' }];
}

/** Escalation reasons are sentences; their kind (cost, duration, errors) keys de-duplication. */
function reasonKind(reason: string): string {
	return reason.startsWith('cost') ? 'cost' : reason.startsWith('session running') ? 'duration' : reason.includes('error') ? 'errors' : 'other';
}
