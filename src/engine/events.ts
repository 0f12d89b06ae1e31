/**
 * Domain events: what happened, told to the engine's own subscribers (notifications, issue trackers,
 * project memory) *inside* the write that made it happen. A subscriber gets the transaction's `db`
 * and may write its own rows there (an outbox row, a memory entry), so the change and its
 * consequences commit together or not at all. Subscribers must be quick and synchronous; anything
 * slow or networked (a webhook, an API call) goes through a row that a host delivers afterwards.
 *
 * A subscriber that throws aborts the write: that is the contract that makes "together or not at
 * all" hold. Subscribers that can tolerate failing (most) catch their own errors and log them.
 */
import type { Checkpoint, Session } from './storage/model';
import type { HandoffData } from './storage/jsonShapes';
import type { BatonDb } from './storage/journalStore';

export type DomainEvent =
	| { type: 'session.started'; session: Session; actor: string }
	| { type: 'session.ended'; session: Session; handoff: HandoffData; actor: string }
	| { type: 'session.suspended'; session: Session; actor: string }
	| { type: 'session.resumed'; session: Session; actor: string }
	/** A person renamed the session, or its first prompt named it (sessions/sessionName.ts). */
	| { type: 'session.renamed'; session: Session; previousName: string; actor: string }
	/** A checkpoint was recorded; `checkpoint.approvalStatus` and `escalationReasons` say whether a human is needed. */
	| { type: 'checkpoint.created'; checkpoint: Checkpoint; session: Session | null; actor: string }
	| { type: 'checkpoint.decided'; checkpoint: Checkpoint; status: 'approved' | 'rejected'; previous: Checkpoint['approvalStatus']; actor: string }
	/** A session's running cost or error count changed (hooks, transcripts, hosts). */
	| {
			type: 'session.metrics';
			sessionId: string;
			costUsd: number;
			previousCostUsd: number;
			errorCount: number;
			previousErrorCount: number;
			actor: string;
	  };
type DomainEventListener = (event: DomainEvent, db: BatonDb) => void;

export class DomainEvents {
	private readonly listeners: DomainEventListener[] = [];

	/** Subscribes; returns the unsubscribe function. */
	on(listener: DomainEventListener): () => void {
		this.listeners.push(listener);
		return () => {
			const at = this.listeners.indexOf(listener);
			if (at >= 0) {
				this.listeners.splice(at, 1);
			}
		};
	}

	/** Called by services inside `store.write`, after their own rows are written. */
	emit(db: BatonDb, event: DomainEvent): void {
		for (const listener of [...this.listeners]) {
			listener(event, db);
		}
	}
}
