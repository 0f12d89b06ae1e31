/**
 * What a `tracker:<name>` outbox row asks for. Rows are written inside the write that caused them
 * (a checkpoint, an approval) and carried out later by the deliverer, the only place with network.
 */
import { z } from 'zod';
import { trackerNames, type TrackerName } from '../config';
import { BatonError } from '../errors';
import { enqueue } from '../outbox/outbox';
import type { BatonDb } from '../storage/journalStore';
import type { NotificationOutboxRow } from '../storage/model';

const noteSchema = z.object({
	checkpointId: z.string(),
	sessionId: z.string().nullable(),
	sessionName: z.string().nullable(),
	trigger: z.string(),
	approvalStatus: z.string(),
	message: z.string().nullable(),
	createdAt: z.string(),
	files: z.object({ added: z.number(), modified: z.number(), deleted: z.number() }),
	escalationReasons: z.array(z.string()),
});

const trackerActionSchema = z.discriminatedUnion('action', [
	/** Tell a linked issue about a checkpoint (a comment). */
	z.object({ action: z.literal('linkCheckpoint'), tracker: z.enum(trackerNames), issueId: z.string().min(1), note: noteSchema }),
	/** Close (or reopen) a linked issue. */
	z.object({
		action: z.literal('status'),
		tracker: z.enum(trackerNames),
		issueId: z.string().min(1),
		status: z.enum(['open', 'in_progress', 'closed']),
		checkpointId: z.string().nullable(),
	}),
	/** Open an issue and link it to the session (and the checkpoint that caused it). */
	z.object({
		action: z.literal('create'),
		tracker: z.enum(trackerNames),
		title: z.string().min(1),
		body: z.string(),
		type: z.enum(['bug', 'task']),
		sessionId: z.string().nullable(),
		checkpointId: z.string().nullable(),
	}),
]);
export type TrackerAction = z.infer<typeof trackerActionSchema>;

function trackerChannel(tracker: TrackerName): string {
	return `tracker:${tracker}`;
}

/** Queues one action inside the caller's write. `dedupKey` makes it once-only per cause. */
export function enqueueAction(db: BatonDb, nowMs: number, input: { action: TrackerAction; event: string; dedupKey: string; sessionId: string | null }): void {
	enqueue(db, nowMs, {
		event: input.event,
		priority: 'notice',
		channel: trackerChannel(input.action.tracker),
		dedupKey: input.dedupKey,
		sessionId: input.sessionId,
		message: input.action as unknown as Record<string, unknown>,
	});
}

/** A stored row's action; a row that does not parse names its id and field, and is never sent. */
export function actionOf(row: NotificationOutboxRow): TrackerAction {
	const parsed = trackerActionSchema.safeParse(row.message);
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		throw new BatonError('invalidInput', `outbox row ${row.id}: message.${issue?.path.join('.') || 'action'}: ${issue?.message ?? 'invalid'}`);
	}
	return parsed.data;
}
