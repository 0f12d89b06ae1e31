/**
 * The trackers' domain-event subscriber (events.ts). Inside the write that caused it, and with no
 * network: it links a new session to the issues its name and branch mention, copies a session's
 * links onto its checkpoints, and queues the tracker actions (comments, closing, opening) as outbox
 * rows. A failure here is logged and never aborts the user's write.
 */
import { and, eq } from 'drizzle-orm';
import type { TrackerConfig, TrackerName } from '../config';
import type { EngineContext } from '../context';
import type { DomainEvent } from '../events';
import type { LinkedIssue } from '../storage/jsonShapes';
import type { BatonDb } from '../storage/journalStore';
import type { Checkpoint, IssueLink, Session } from '../storage/model';
import { checkpoints, notificationOutbox } from '../storage/schema';
import { findIssueRefs, type LinkPatterns } from './autoLink';
import { checkpointNoteOf, renderOpenedIssue } from './checkpointNote';
import { addLinks, listLinks } from './issueLinks';
import { currentBranch } from './repoFiles';
import { enqueueAction } from './trackerActions';

interface TrackerEventDeps {
	ctx: EngineContext;
	patterns: () => LinkPatterns;
}

export function handleTrackerEvent(deps: TrackerEventDeps, event: DomainEvent, db: BatonDb): void {
	const config = deps.ctx.config.trackers;
	try {
		switch (event.type) {
			case 'session.started':
				if (config.autoLink) {
					autoLink(deps, db, event.session, event.actor, true);
				}
				return;
			case 'session.resumed':
				// The branch may have changed while the session was away.
				if (config.autoLink) {
					autoLink(deps, db, event.session, event.actor, false);
				}
				return;
			case 'checkpoint.created':
				onCheckpoint(deps, db, event.checkpoint, event.session);
				return;
			case 'checkpoint.decided':
				if (event.status === 'approved') {
					maybeClose(deps, db, event.checkpoint);
				}
				return;
			default:
				return;
		}
	} catch (error) {
		deps.ctx.log.warn(`issue trackers: could not handle ${event.type}: ${(error as Error).message}`);
	}
}

function autoLink(deps: TrackerEventDeps, db: BatonDb, session: Session, actor: string, withName: boolean): void {
	if (deps.ctx.config.trackers.enabled.length === 0) {
		return;
	}
	const patterns = deps.patterns();
	const now = deps.ctx.nowIso();
	if (withName) {
		addLinks(db, { sessionId: session.id, refs: findIssueRefs(session.name, 'name', patterns), source: 'name', now, actor });
	}
	const branch = currentBranch(deps.ctx.workspaceRoot);
	if (branch) {
		addLinks(db, { sessionId: session.id, refs: findIssueRefs(branch, 'branch', patterns), source: 'branch', now, actor });
	}
}

function writable(config: TrackerConfig, links: IssueLink[]): (IssueLink & { tracker: TrackerName })[] {
	return links.filter((l): l is IssueLink & { tracker: TrackerName } => (config.enabled as string[]).includes(l.tracker));
}

function onCheckpoint(deps: TrackerEventDeps, db: BatonDb, checkpoint: Checkpoint, session: Session | null): void {
	if (!checkpoint.sessionId) {
		return;
	}
	const config = deps.ctx.config.trackers;
	const links = listLinks(db, { sessionId: checkpoint.sessionId });
	if (links.length > 0) {
		const merged: LinkedIssue[] = [...checkpoint.linkedIssues];
		for (const link of links) {
			if (!merged.some((l) => l.tracker === link.tracker && l.id === link.issueId)) {
				merged.push({ tracker: link.tracker, id: link.issueId, url: link.url });
			}
		}
		db.update(checkpoints).set({ linkedIssues: merged }).where(eq(checkpoints.id, checkpoint.id)).run();
	}
	const nowMs = deps.ctx.clock.now();
	const note = checkpointNoteOf(checkpoint, session);
	if (config.commentOn.includes(checkpoint.trigger)) {
		for (const link of writable(config, links)) {
			enqueueAction(db, nowMs, {
				action: { action: 'linkCheckpoint', tracker: link.tracker, issueId: link.issueId, note },
				event: 'checkpoint.linked',
				dedupKey: `checkpoint:${checkpoint.id}:${link.tracker}:${link.issueId}`,
				sessionId: checkpoint.sessionId,
			});
		}
	}
	if (checkpoint.approvalStatus === 'auto_approved' || checkpoint.approvalStatus === 'approved') {
		maybeClose(deps, db, checkpoint);
	}
	const why =
		config.openOnEscalation && checkpoint.escalationReasons.length > 0
			? `Escalation: ${checkpoint.escalationReasons.join('; ')}`
			: config.openOnError && checkpoint.trigger === 'error'
				? 'Error'
				: null;
	const target = config.openIn ?? config.enabled[0];
	if (why && target && config.enabled.includes(target)) {
		const kind = why === 'Error' ? 'error' : 'escalation';
		const dedupKey = `open:${checkpoint.sessionId}:${kind}`;
		// One issue per session and cause: later errors in the same session comment on it instead.
		const opened = links.some((l) => l.tracker === target && l.source === 'created');
		if (
			!opened &&
			!db
				.select({ id: notificationOutbox.id })
				.from(notificationOutbox)
				.where(and(eq(notificationOutbox.channel, `tracker:${target}`), eq(notificationOutbox.dedupKey, dedupKey)))
				.get()
		) {
			const { title, body } = renderOpenedIssue(note, why);
			enqueueAction(db, nowMs, {
				action: {
					action: 'create',
					tracker: target,
					title,
					body,
					type: kind === 'error' ? 'bug' : 'task',
					sessionId: checkpoint.sessionId,
					checkpointId: checkpoint.id,
				},
				event: `issue.open.${kind}`,
				dedupKey,
				sessionId: checkpoint.sessionId,
			});
		}
	}
}

/** Opt-in: an approved `complete` checkpoint closes the session's linked issues. */
function maybeClose(deps: TrackerEventDeps, db: BatonDb, checkpoint: Checkpoint): void {
	const config = deps.ctx.config.trackers;
	if (!config.closeOnApprovedComplete || checkpoint.trigger !== 'complete' || !checkpoint.sessionId) {
		return;
	}
	for (const link of writable(config, listLinks(db, { sessionId: checkpoint.sessionId }))) {
		enqueueAction(db, deps.ctx.clock.now(), {
			action: { action: 'status', tracker: link.tracker, issueId: link.issueId, status: 'closed', checkpointId: checkpoint.id },
			event: 'issue.close',
			dedupKey: `close:${checkpoint.id}:${link.tracker}:${link.issueId}`,
			sessionId: checkpoint.sessionId,
		});
	}
}
