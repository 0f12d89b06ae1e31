/**
 * A remote is input, not authority (docs/sync.md, "Who decides"). Anyone who can push to the remote
 * can write any event into Baton's refs there, under any machine's name: git does not say who wrote
 * a ref. So what a pull brings is never allowed to speak for this machine:
 *
 * - an event that names this machine (its `machine`, or its id's suffix) was not written here — this
 *   machine's own ref is never read back — and is refused by name;
 * - a decision about a checkpoint recorded here counts only when it was made here. One pulled from a
 *   teammate is kept and shown as their opinion (`checkpoint show`, the pull's `opinions`), never
 *   applied: pending approvals are what an agent's pre-tool-use hook waits on, and that gate must
 *   not open from outside.
 */
import { and, inArray, ne } from 'drizzle-orm';
import type { TeammateOpinion } from '../checkpoints/checkpointShapes';
import { inJsonList } from '../shared/sqlJsonList';
import type { BatonDb } from '../storage/journalStore';
import { sharedEvents } from '../storage/schema';
import type { WireEvent } from '../shared/sharedEvents';

export type { TeammateOpinion };

interface RefusedEvent {
	id: string;
	reason: string;
}

/** Whether an event claims to be `machine`'s: by its `machine`, or by its id's suffix. */
export function claimsMachine(event: WireEvent, machine: string): boolean {
	return event.machine === machine || (typeof event.id === 'string' && event.id.endsWith(`_${machine}`));
}

/** Splits pulled events into those that may go in and those that claim to be this machine's. */
export function refuseIdentityClaims(events: readonly WireEvent[], ownMachine: string): { kept: WireEvent[]; refused: RefusedEvent[] } {
	const kept: WireEvent[] = [];
	const refused: RefusedEvent[] = [];
	for (const event of events) {
		if (claimsMachine(event, ownMachine)) {
			refused.push({
				id: String(event.id),
				reason: `it claims to be written by this machine (${ownMachine}), which never reads its own records back from a remote`,
			});
		} else {
			kept.push(event);
		}
	}
	return { kept, refused };
}

/**
 * Whose decisions count for a checkpoint, given all its events in id order: for a checkpoint recorded
 * here (its `checkpoint.recorded` is this machine's, or it has none from another machine — a row
 * written before sharing), this machine's alone; for a teammate's checkpoint, any machine's (their
 * own review, or a reviewer's for a cloud runner that is gone), as before.
 */
export function decisionCounts(events: readonly WireEvent[], ownMachine: string): (decided: WireEvent) => boolean {
	const recorded = events.find((e) => e.kind === 'checkpoint.recorded');
	const ours = !recorded || recorded.machine === ownMachine;
	return ours ? (decided) => decided.machine === ownMachine : () => true;
}

/** The teammates' decisions about this machine's checkpoints among `events` (a pull's), in id order. */
export function opinionsAmong(events: readonly WireEvent[], isOwnCheckpoint: (id: string) => boolean): TeammateOpinion[] {
	return events.filter((e) => e.kind === 'checkpoint.decided' && isOwnCheckpoint(e.subject)).map(toOpinion);
}

/** One warning per teammate's decision kept as an opinion, naming who, where and about what. */
export function warnOpinions(log: { warn(message: string): void }, remote: string, opinions: readonly TeammateOpinion[]): void {
	for (const o of opinions) {
		log.warn(
			`sync: kept ${o.author ?? o.by ?? 'a teammate'}'s decision "${o.status}" about this machine's checkpoint ${o.checkpointId} (from ${o.machineName ?? o.machine}, remote "${remote}") as an opinion; decisions about this machine's checkpoints are made here`,
		);
	}
}

/** Every teammate's decision about checkpoint `id` (for `checkpoint show`), when `id` is this machine's. */
export function opinionsAbout(db: BatonDb, id: string, ownMachine: string): TeammateOpinion[] {
	return opinionsFor(db, [id], ownMachine).get(id) ?? [];
}

/** The teammates' opinions about each of `ids` that is this machine's (one query for a list the editor shows). */
export function opinionsFor(db: BatonDb, ids: readonly string[], ownMachine: string): Map<string, TeammateOpinion[]> {
	const map = new Map<string, TeammateOpinion[]>();
	if (ids.length === 0) {
		return map;
	}
	const events = db
		.select()
		.from(sharedEvents)
		.where(
			and(
				inArray(sharedEvents.kind, ['checkpoint.recorded', 'checkpoint.decided']),
				inJsonList(sharedEvents.subject, ids),
				ne(sharedEvents.machine, ownMachine),
			),
		)
		.orderBy(sharedEvents.id)
		.all();
	const foreign = new Set(events.filter((e) => e.kind === 'checkpoint.recorded').map((e) => e.subject));
	for (const e of events) {
		if (e.kind === 'checkpoint.decided' && !foreign.has(e.subject)) {
			const list = map.get(e.subject);
			if (list) {
				list.push(toOpinion(e));
			} else {
				map.set(e.subject, [toOpinion(e)]);
			}
		}
	}
	return map;
}

function toOpinion(
	e: Pick<WireEvent, 'id' | 'subject' | 'body' | 'at' | 'machine' | 'actor'> & { machineName?: string | null; author?: string | null },
): TeammateOpinion {
	const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
	return {
		checkpointId: e.subject,
		status: text(e.body['status']) ?? 'unknown',
		by: text(e.body['by']) ?? e.actor,
		note: text(e.body['note']),
		at: text(e.body['at']) ?? e.at,
		machine: e.machine,
		machineName: e.machineName ?? null,
		author: e.author ?? null,
		eventId: e.id,
	};
}
