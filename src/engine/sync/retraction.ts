/**
 * `baton sync retract`: taking back what this machine shared by mistake (docs/sync.md, "Taking
 * records back"). What is chosen — a checkpoint, a session (its events, its checkpoints, its
 * transcripts), or everything this machine shared since a time — is taken out of this machine's
 * own refs, which are written again without it and force-pushed (Baton's own refs only, as every
 * push of them is). A `sync.retracted` event (the tombstone) goes in the rewritten events ref, and a
 * teammate's pull drops the records it names that came from this machine. The local store keeps
 * them, listed in `.baton/sync/retracted.json` so no later export sends them again.
 *
 * What cannot be undone is said with every answer: a clone that fetched the records before keeps
 * them until it pulls the tombstone (and its store's own garbage collection runs), and the remote
 * keeps the objects until its garbage collection prunes them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { BatonDb } from '../storage/capturingDrizzle';
import { BatonError } from '../errors';
import { atomicWriteFile } from '../storage/fsUtil';
import type { WireEvent } from '../shared/sharedEvents';
import { mkdirPrivate } from '../workspace';
import { syncDir } from './syncState';

export const retractedKind = 'sync.retracted';

/** What to take back: one of a checkpoint, a session, or everything since a time (ISO). */
export type RetractRequest = { checkpoint: string } | { session: string } | { since: string };

/** A session a teammate's tombstone took back: the copies of its transcripts imported from `machine` go. */
export interface TakenBack {
	machine: string;
	session: string;
}

/** The tombstone's body: what a teammate drops of this machine's records. */
interface RetractedBody {
	checkpoints: string[];
	sessions: string[];
	/** Every event of this machine at or after this time (ISO), or null. */
	since: string | null;
}

/** What a retraction chose, read from the local store. */
interface RetractedSelection {
	body: RetractedBody;
	/** The local events taken out. */
	eventIds: string[];
	/** The checkpoints' local snapshot commits (their shared trees go). */
	snapshots: string[];
}

/** What no retraction can do, said with every answer. */
export const cannotUndo = [
	'A clone or machine that fetched these records before keeps them until it pulls again (then Baton drops them there, with the transcripts of a taken-back session it imported); a plain `git fetch` of refs/baton/* by anyone keeps a copy.',
	'The remote keeps the objects until its own garbage collection prunes them (a hosted remote may keep them longer, or in forks and caches); rotate any credential that was shared.',
];

/**
 * The local events a request takes back: a checkpoint's own events; a session's events and those of
 * its checkpoints; every local event at or after `since`. Only this machine's own events.
 */
function selectRetracted(db: BatonDb, request: RetractRequest): RetractedSelection {
	let where;
	const body: RetractedBody = { checkpoints: [], sessions: [], since: null };
	if ('checkpoint' in request) {
		body.checkpoints = [request.checkpoint];
		where = sql`subject = ${request.checkpoint}`;
	} else if ('session' in request) {
		body.sessions = [request.session];
		body.checkpoints = db
			.all<{ id: string }>(
				sql`SELECT DISTINCT subject AS id FROM shared_events WHERE kind = 'checkpoint.recorded' AND source = 'local' AND session_id = ${request.session}`,
			)
			.map((r) => r.id);
		where = sql`(subject = ${request.session} OR session_id = ${request.session} OR subject IN (SELECT value FROM json_each(${JSON.stringify(body.checkpoints)})))`;
	} else {
		body.since = request.since;
		where = sql`at >= ${request.since}`;
		body.checkpoints = db
			.all<{ id: string }>(sql`SELECT DISTINCT subject AS id FROM shared_events WHERE kind = 'checkpoint.recorded' AND source = 'local' AND ${where}`)
			.map((r) => r.id);
	}
	const rows = db.all<{ id: string; kind: string; commit: unknown }>(
		sql`SELECT id, kind, json_extract(body_json, '$.commitOid') AS "commit" FROM shared_events WHERE source = 'local' AND kind <> ${retractedKind} AND ${where}`,
	);
	return {
		body,
		eventIds: rows.map((r) => r.id),
		snapshots: [...new Set(rows.filter((r) => r.kind === 'checkpoint.recorded' && typeof r.commit === 'string').map((r) => r.commit as string))],
	};
}

/**
 * What a retraction takes back: only what this machine recorded (a named checkpoint or session must
 * be in the shared records, written here), less what an earlier retraction took back already.
 */
export function chooseRetracted(db: BatonDb, workspaceRoot: string, request: RetractRequest, what: string, ownMachine: string): RetractedSelection {
	const subject = 'checkpoint' in request ? request.checkpoint : 'session' in request ? request.session : null;
	if (subject) {
		const kind = 'checkpoint' in request ? 'checkpoint.recorded' : 'session.started';
		const recorded = db.all<{ machine: string; name: string | null }>(
			sql`SELECT machine, machine_name AS name FROM shared_events WHERE kind = ${kind} AND subject = ${subject} LIMIT 1`,
		)[0];
		if (!recorded) {
			throw new BatonError(
				'notFound',
				`there is no ${what} in this workspace's shared records (only what was recorded here and shared can be taken back)`,
			);
		}
		if (recorded.machine !== ownMachine) {
			throw new BatonError(
				'invalidInput',
				`${what} was recorded on another machine (${recorded.name ?? recorded.machine}): only that machine can take it back`,
			);
		}
	}
	const found = selectRetracted(db, request);
	// What an earlier retraction took back is not taken back again.
	const before = readRetracted(workspaceRoot);
	return {
		...found,
		eventIds: found.eventIds.filter((id) => !before.events.has(id)),
		snapshots: found.snapshots.filter((oid) => !before.snapshots.has(oid)),
	};
}

const retractedSchema = z.object({ events: z.array(z.string()), snapshots: z.array(z.string()), sessions: z.array(z.string()).optional() });

function retractedFile(workspaceRoot: string): string {
	return path.join(syncDir(workspaceRoot), 'retracted.json');
}

/**
 * The events and snapshots this machine took back: never exported again. A file that cannot be read
 * is an error, not "nothing retracted" — that would send them all again.
 */
export function readRetracted(workspaceRoot: string): { events: Set<string>; snapshots: Set<string>; sessions: Set<string> } {
	let text: string;
	try {
		text = fs.readFileSync(retractedFile(workspaceRoot), 'utf8');
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
			return { events: new Set(), snapshots: new Set(), sessions: new Set() };
		}
		throw error;
	}
	const parsed = retractedSchema.parse(JSON.parse(text));
	return { events: new Set(parsed.events), snapshots: new Set(parsed.snapshots), sessions: new Set(parsed.sessions ?? []) };
}

/** Adds to the list (written atomically). The caller holds the shadow lock. */
export function addRetracted(workspaceRoot: string, selection: RetractedSelection): void {
	const kept = readRetracted(workspaceRoot);
	selection.eventIds.forEach((id) => kept.events.add(id));
	selection.snapshots.forEach((oid) => kept.snapshots.add(oid));
	selection.body.sessions.forEach((s) => kept.sessions.add(s));
	mkdirPrivate(syncDir(workspaceRoot));
	atomicWriteFile(
		retractedFile(workspaceRoot),
		Buffer.from(JSON.stringify({ events: [...kept.events], snapshots: [...kept.snapshots], sessions: [...kept.sessions] })),
	);
}

/**
 * A teammate's tombstones, applied after a pull's merge: the events it names that came from its own
 * machine are dropped, with the checkpoints and sessions derived from them. A machine can take back
 * only its own records. Returns how many events were dropped, and each session taken back with the
 * machine that took it back: only the transcripts imported from that machine go (a tombstone can name
 * any session, this machine's own too).
 */
export function applyRetractions(db: BatonDb, pulled: readonly WireEvent[], ownMachine: string): { dropped: number; taken: TakenBack[] } {
	let dropped = 0;
	const taken: TakenBack[] = [];
	for (const t of pulled) {
		if (t.kind !== retractedKind || t.machine === ownMachine) {
			continue;
		}
		const body = t.body as Partial<RetractedBody>;
		const checkpoints = JSON.stringify(Array.isArray(body.checkpoints) ? body.checkpoints.filter((c) => typeof c === 'string') : []);
		const named = Array.isArray(body.sessions) ? body.sessions.filter((s): s is string => typeof s === 'string') : [];
		const sessions = JSON.stringify(named);
		const since = typeof body.since === 'string' ? body.since : null;
		const theirs = sql`machine = ${t.machine} AND source <> 'local' AND kind <> ${retractedKind} AND (subject IN (SELECT value FROM json_each(${checkpoints})) OR subject IN (SELECT value FROM json_each(${sessions})) OR session_id IN (SELECT value FROM json_each(${sessions})) OR (${since} IS NOT NULL AND at >= ${since}))`;
		const gone = db.all<{ id: string; kind: string; subject: string }>(sql`SELECT id, kind, subject FROM shared_events WHERE ${theirs}`);
		// Their transcripts are dropped too (by the caller, outside the write), whether or not events remain here.
		for (const session of new Set([...named, ...gone.filter((e) => e.kind === 'session.started').map((e) => e.subject)])) {
			taken.push({ machine: t.machine, session });
		}
		if (gone.length === 0) {
			continue;
		}
		const ofKind = (kind: string): string => JSON.stringify([...new Set(gone.filter((e) => e.kind === kind).map((e) => e.subject))]);
		db.run(sql`DELETE FROM checkpoints WHERE id IN (SELECT value FROM json_each(${ofKind('checkpoint.recorded')}))`);
		db.run(sql`DELETE FROM sessions WHERE id IN (SELECT value FROM json_each(${ofKind('session.started')}))`);
		db.run(sql`DELETE FROM shared_events WHERE ${theirs}`);
		dropped += gone.length;
	}
	return { dropped, taken };
}
