/**
 * The attribution records: `provenance.attribution` (subject: a commit id) lists, per file, the origin
 * of each line the commit added, as runs of line numbers in the commit's blob; `provenance.rewrite`
 * (subject: the new commit) names the commits it was rewritten from. Both are shared events
 * (docs/records.md): written once, the first by id wins when two machines attributed the same commit.
 */
import { and, asc, count, eq, gt, inArray, max } from 'drizzle-orm';
import type { BatonDb } from '../storage/journalStore';
import { sharedEvents } from '../storage/schema';

import type { LineOrigin } from './provenanceShapes';

export type { LineOrigin } from './provenanceShapes';

export interface OriginRange extends LineOrigin {
	/** 1-based, inclusive, in the commit's blob. */
	start: number;
	end: number;
}

export interface FileAttribution {
	path: string;
	blob: string;
	ranges: OriginRange[];
}

export interface CommitAttribution {
	commit: string;
	files: FileAttribution[];
	patchId: string | null;
}

export type RewriteHow = 'post-rewrite' | 'patch-id' | 'content';

export const unknownOrigin: LineOrigin = { origin: 'unknown', session: null, agent: null, model: null, turn: null, prompt: null, step: null, recovered: false };
export const humanOrigin: LineOrigin = { ...unknownOrigin, origin: 'human' };

export function sameOrigin(a: LineOrigin, b: LineOrigin): boolean {
	return a.origin === b.origin && a.session === b.session && a.step === b.step && a.turn === b.turn;
}

/** Runs of equal origins over the given (ascending) line numbers. */
export function toRanges(lines: readonly number[], origins: readonly LineOrigin[]): OriginRange[] {
	const ranges: OriginRange[] = [];
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i]!;
		const origin = origins[i]!;
		const last = ranges[ranges.length - 1];
		if (last && last.end === line - 1 && sameOrigin(last, origin) && last.recovered === origin.recovered) {
			last.end = line;
		} else {
			ranges.push({ ...origin, start: line, end: line });
		}
	}
	return ranges;
}

/** line number → origin for one file of an attribution. */
export function originsByLine(file: FileAttribution): Map<number, LineOrigin> {
	const map = new Map<number, LineOrigin>();
	for (const range of file.ranges) {
		const { start, end, ...origin } = range;
		for (let line = start; line <= end; line++) {
			map.set(line, origin);
		}
	}
	return map;
}

/** Every commit's attribution (the first event per commit by id), parsed leniently: a newer writer's extra fields are kept out of the way, not refused. */
export function readAttributions(db: BatonDb, commits?: readonly string[]): Map<string, CommitAttribution> {
	const where = commits
		? and(eq(sharedEvents.kind, 'provenance.attribution'), inArray(sharedEvents.subject, [...commits]))
		: eq(sharedEvents.kind, 'provenance.attribution');
	const rows = db.select({ subject: sharedEvents.subject, body: sharedEvents.body }).from(sharedEvents).where(where).orderBy(asc(sharedEvents.id)).all();
	const map = new Map<string, CommitAttribution>();
	for (const row of rows) {
		if (map.has(row.subject)) {
			continue;
		}
		const parsed = parseAttribution(row.subject, row.body);
		if (parsed) {
			map.set(row.subject, parsed);
		}
	}
	return map;
}

export interface ParsedAttributions {
	map: Map<string, CommitAttribution>;
	/** How many attribution events were read, and the newest id among them. */
	rows: number;
	newest: string;
}

/**
 * Every commit's attribution, reading only the events added after those `known` was made from when
 * that is all that changed: the store appends, so a new commit's attribution costs one row, not a
 * re-read of every commit's. Rows that arrived with older ids (a sync merge) read everything again.
 */
export function readAttributionsSince(db: BatonDb, known?: ParsedAttributions): ParsedAttributions {
	const kind = eq(sharedEvents.kind, 'provenance.attribution');
	const now = db
		.select({ rows: count(), newest: max(sharedEvents.id) })
		.from(sharedEvents)
		.where(kind)
		.get();
	const rows = now?.rows ?? 0;
	const newest = now?.newest ?? '';
	if (known && known.rows === rows && known.newest === newest) {
		return known;
	}
	if (known && newest > known.newest) {
		const added = db
			.select({ subject: sharedEvents.subject, body: sharedEvents.body })
			.from(sharedEvents)
			.where(and(kind, gt(sharedEvents.id, known.newest)))
			.orderBy(asc(sharedEvents.id))
			.all();
		if (known.rows + added.length === rows) {
			for (const row of added) {
				const parsed = known.map.has(row.subject) ? null : parseAttribution(row.subject, row.body);
				if (parsed) {
					known.map.set(row.subject, parsed);
				}
			}
			return { map: known.map, rows, newest };
		}
	}
	return { map: readAttributions(db), rows, newest };
}

function parseAttribution(commit: string, body: Record<string, unknown>): CommitAttribution | null {
	if (!Array.isArray(body['files'])) {
		return null;
	}
	const files: FileAttribution[] = [];
	for (const raw of body['files'] as unknown[]) {
		const file = raw as Record<string, unknown>;
		if (typeof file?.['path'] !== 'string' || !Array.isArray(file['ranges'])) {
			continue;
		}
		const ranges: OriginRange[] = [];
		for (const r of file['ranges'] as Record<string, unknown>[]) {
			const start = Number(r?.['start']);
			const end = Number(r?.['end']);
			const origin = r?.['origin'];
			if (
				!Number.isInteger(start) ||
				!Number.isInteger(end) ||
				start < 1 ||
				end < start ||
				(origin !== 'agent' && origin !== 'human' && origin !== 'unknown')
			) {
				continue;
			}
			ranges.push({
				start,
				end,
				origin,
				session: str(r['session']),
				agent: str(r['agent']),
				model: str(r['model']),
				turn: str(r['turn']),
				prompt: str(r['prompt']),
				step: Number.isInteger(r['step']) ? (r['step'] as number) : null,
				recovered: r['recovered'] === true,
			});
		}
		files.push({ path: file['path'], blob: typeof file['blob'] === 'string' ? file['blob'] : '', ranges });
	}
	return { commit, files, patchId: typeof body['patchId'] === 'string' ? body['patchId'] : null };
}

/** Old commits each new commit was rewritten from, by how that was learned. */
export function readRewrites(db: BatonDb, commit: string): { from: string[]; how: RewriteHow }[] {
	return db
		.select({ body: sharedEvents.body })
		.from(sharedEvents)
		.where(and(eq(sharedEvents.kind, 'provenance.rewrite'), eq(sharedEvents.subject, commit)))
		.orderBy(asc(sharedEvents.id))
		.all()
		.map((row) => ({
			from: Array.isArray(row.body['from']) ? (row.body['from'] as unknown[]).filter((f): f is string => typeof f === 'string') : [],
			how: row.body['how'] as RewriteHow,
		}))
		.filter((r) => r.from.length > 0);
}

function str(value: unknown): string | null {
	if (typeof value === 'string') {
		return value;
	}
	return typeof value === 'number' ? String(value) : null;
}
