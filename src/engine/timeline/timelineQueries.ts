/**
 * Reading a session's timeline: its prompts and steps (shared events, in the shared order) with its
 * checkpoints and their approvals placed on the same axis by time. Usable inside read() callbacks.
 */
import { and, count, desc, eq, inArray, like } from 'drizzle-orm';
import { listCheckpoints } from '../checkpoints/checkpointQueries';
import { BatonError } from '../errors';
import type { BatonDb } from '../storage/journalStore';
import type { SharedEvent } from '../storage/model';
import { sharedEvents } from '../storage/schema';
import { sessionEvents } from '../shared/sharedEvents';
import { promptKind, stepKind, type TimelineEntry, type TimelinePrompt, type TimelineStep, type StepRecord } from './timelineShapes';

export type { StepRecord } from './timelineShapes';

/** The session's axis: prompts, steps, checkpoints and approvals, oldest first. */
export function readTimeline(db: BatonDb, sessionId: string): TimelineEntry[] {
	const timed: { at: string; order: number; entry: TimelineEntry }[] = [];
	let order = 0;
	for (const event of sessionEvents(db, sessionId, [promptKind, stepKind])) {
		const entry: TimelineEntry =
			event.kind === promptKind
				? { type: 'prompt', id: event.id, ...(event.body as unknown as TimelinePrompt) }
				: { type: 'step', id: event.id, ...stepOf(event) };
		timed.push({ at: event.at, order: order++, entry });
	}
	for (const cp of listCheckpoints(db, { sessionId }).reverse()) {
		timed.push({
			at: cp.createdAt,
			order: order++,
			entry: {
				type: 'checkpoint',
				id: `checkpoint:${cp.id}`,
				checkpointId: cp.id,
				seq: cp.seq,
				trigger: cp.trigger,
				at: cp.createdAt,
				message: cp.message,
			},
		});
		if (cp.approvalAt && (cp.approvalStatus === 'approved' || cp.approvalStatus === 'rejected')) {
			timed.push({
				at: cp.approvalAt,
				order: order++,
				entry: {
					type: 'approval',
					id: `approval:${cp.id}`,
					checkpointId: cp.id,
					seq: cp.seq,
					status: cp.approvalStatus,
					user: cp.approvalUser,
					at: cp.approvalAt,
					reason: cp.approvalReason,
				},
			});
		}
	}
	// A stable sort by time keeps the shared order of events that carry the same millisecond.
	return timed.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.order - b.order)).map((t) => t.entry);
}

export function stepOf(event: SharedEvent): TimelineStep {
	const body = event.body as Partial<TimelineStep>;
	return {
		step: Number(body.step ?? 0),
		turn: Number(body.turn ?? 0),
		toolUseId: body.toolUseId ?? null,
		actor: body.actor === 'human' ? 'human' : 'agent',
		tool: body.tool ?? null,
		summary: String(body.summary ?? ''),
		startedAt: String(body.startedAt ?? event.at),
		treeBefore: body.treeBefore ?? null,
		treeAfter: body.treeAfter ?? null,
		files: Array.isArray(body.files) ? body.files : [],
		captured: body.captured !== false,
		...(body.reason ? { reason: body.reason } : {}),
		...(body.moreFiles ? { moreFiles: body.moreFiles } : {}),
		...(body.agent ? { agent: body.agent } : {}),
		...(typeof body.model === 'string' && body.model ? { model: body.model } : {}),
	};
}

/**
 * A step by its event id (`evt_…`), or by its number in a session (`12`, with the session given).
 */
export function findStep(db: BatonDb, ref: string, sessionId: string | null): StepRecord {
	const clean = ref.trim();
	if (clean.startsWith('evt_')) {
		const event = db
			.select()
			.from(sharedEvents)
			.where(and(eq(sharedEvents.id, clean), eq(sharedEvents.kind, stepKind)))
			.get();
		if (!event || !event.sessionId) {
			throw new BatonError('notFound', `no timeline step ${clean}`);
		}
		return { ...stepOf(event), id: event.id, sessionId: event.sessionId, at: event.at };
	}
	if (!/^\d+$/.test(clean)) {
		throw new BatonError('invalidInput', `a step is its number in the session (e.g. 12) or its event id (evt_…); got ${JSON.stringify(ref)}`);
	}
	if (!sessionId) {
		throw new BatonError('invalidInput', 'a step number needs its session (--session ID)');
	}
	const number = Number(clean);
	const event = sessionEvents(db, sessionId, [stepKind]).find((e) => Number((e.body as { step?: unknown }).step) === number);
	if (!event) {
		throw new BatonError('notFound', `session ${sessionId} has no step ${number}`);
	}
	return { ...stepOf(event), id: event.id, sessionId, at: event.at };
}

/** The steps whose record names `tree` as its before or after tree (a tree id names the same tree everywhere). */
export function stepsNamingTree(db: BatonDb, tree: string): StepRecord[] {
	const events = db
		.select()
		.from(sharedEvents)
		.where(and(eq(sharedEvents.kind, stepKind), like(sharedEvents.body, `%${tree}%`)))
		.all();
	return events
		.filter((e) => e.sessionId)
		.map((e) => ({ ...stepOf(e), id: e.id, sessionId: e.sessionId as string, at: e.at }))
		.filter((s) => s.treeBefore === tree || s.treeAfter === tree);
}

/** The session with the most recent timeline record, or null when there is none. */
export function latestTimelineSession(db: BatonDb): string | null {
	const row = db
		.select({ sessionId: sharedEvents.sessionId })
		.from(sharedEvents)
		.where(inArray(sharedEvents.kind, [stepKind, promptKind]))
		.orderBy(desc(sharedEvents.id))
		.limit(1)
		.get();
	return row?.sessionId ?? null;
}

/** How many `timeline.step` records the workspace holds (all sessions). */
export function countSteps(db: BatonDb): number {
	return db.select({ n: count() }).from(sharedEvents).where(eq(sharedEvents.kind, stepKind)).get()?.n ?? 0;
}
