/**
 * The captured steps, kept parsed between reads: the capture appends a few steps between two commits,
 * and re-reading every step of every session for each commit would cost more than attributing it.
 * Only the events added since the last read are parsed, as long as that is all that changed; events
 * that arrived with older ids (a sync merge) or a prompt that arrived after its turn's steps read
 * everything again.
 */
import { and, count, eq, gt, max } from 'drizzle-orm';
import type { BatonDb } from '../storage/journalStore';
import { sharedEvents } from '../storage/schema';
import { readSteps, type CapturedStep } from './stepHistory';

interface KindState {
	rows: number;
	newest: string;
}

export interface ParsedSteps {
	steps: CapturedStep[];
	step: KindState;
	prompt: KindState;
}

function kindState(db: BatonDb, kind: string): KindState {
	const now = db
		.select({ rows: count(), newest: max(sharedEvents.id) })
		.from(sharedEvents)
		.where(eq(sharedEvents.kind, kind))
		.get();
	return { rows: now?.rows ?? 0, newest: now?.newest ?? '' };
}

export function readStepsSince(db: BatonDb, known?: ParsedSteps): ParsedSteps {
	const step = kindState(db, 'timeline.step');
	const prompt = kindState(db, 'timeline.prompt');
	if (
		known &&
		step.rows === known.step.rows &&
		step.newest === known.step.newest &&
		prompt.rows === known.prompt.rows &&
		prompt.newest === known.prompt.newest
	) {
		return known;
	}
	if (
		known &&
		appendedOnly(db, 'timeline.step', known.step, step) &&
		appendedOnly(db, 'timeline.prompt', known.prompt, prompt) &&
		!promptsForKnownTurns(db, known)
	) {
		const added = readSteps(db, known.step.newest);
		// Known steps are in order already; a stable sort of known + added orders ties as a full read does (by id).
		const steps = [...known.steps, ...added].sort(stepOrder);
		return { steps, step, prompt };
	}
	return { steps: readSteps(db), step, prompt };
}

/** The order readSteps gives. */
function stepOrder(a: CapturedStep, b: CapturedStep): number {
	return a.startedAtMs - b.startedAtMs || (a.session === b.session ? a.step - b.step : 0);
}

/** Every event of `kind` added since `before` has a newer id than all of those read before. */
function appendedOnly(db: BatonDb, kind: string, before: KindState, now: KindState): boolean {
	if (now.rows === before.rows) {
		return now.newest === before.newest;
	}
	const newer = db
		.select({ rows: count() })
		.from(sharedEvents)
		.where(and(eq(sharedEvents.kind, kind), gt(sharedEvents.id, before.newest)))
		.get();
	return before.rows + (newer?.rows ?? 0) === now.rows;
}

/** A prompt that arrived after steps of its turn were read: those steps' prompt excerpt changes. */
function promptsForKnownTurns(db: BatonDb, known: ParsedSteps): boolean {
	const rows = db
		.select({ session: sharedEvents.sessionId, subject: sharedEvents.subject, body: sharedEvents.body })
		.from(sharedEvents)
		.where(and(eq(sharedEvents.kind, 'timeline.prompt'), gt(sharedEvents.id, known.prompt.newest)))
		.all();
	if (rows.length === 0) {
		return false;
	}
	const turns = new Set(known.steps.map((s) => `${s.session}\u0000${s.turn}`));
	return rows.some((r) => {
		const turn = r.body['turn'];
		return turns.has(`${r.session ?? r.subject}\u0000${typeof turn === 'number' ? String(turn) : turn}`);
	});
}
