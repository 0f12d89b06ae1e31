/**
 * What each searchable record becomes in the index (docs/search.md, "What is searched"): a session,
 * a handoff, a decision and a memory fact from their tables, a prompt or a step from its timeline
 * event, a transcript excerpt from its archive line. `searchSources.ts` decides when to read them.
 */
import type { Database, SqlValue } from 'sql.js';
import type { Excerpt } from '../transcripts/transcriptExcerpts';
import type { IndexedDoc } from './searchIndex';

export type Row = SqlValue[];

export const eventKinds = "('timeline.step', 'timeline.prompt')";

/** Strings of a JSON value, ids and states left out: a handoff's note, blockers, tasks' titles, decisions. */
function textsOf(value: unknown, out: string[] = []): string[] {
	if (typeof value === 'string') {
		out.push(value);
	} else if (Array.isArray(value)) {
		for (const item of value) textsOf(item, out);
	} else if (value && typeof value === 'object') {
		for (const [key, item] of Object.entries(value)) {
			if (key !== 'id' && key !== 'status' && key !== 'priority') textsOf(item, out);
		}
	}
	return out;
}

function parsed(text: SqlValue): unknown {
	try {
		return typeof text === 'string' ? JSON.parse(text) : null;
	} catch {
		return null;
	}
}

export function each(db: Database, sqlText: string, params: SqlValue[], fn: (row: Row) => void): void {
	const statement = db.prepare(sqlText);
	try {
		statement.bind(params);
		while (statement.step()) fn(statement.get());
	} finally {
		statement.free();
	}
}

const str = (v: SqlValue | undefined): string | null => (typeof v === 'string' ? v : null);

/** One table's records as documents. */
export interface TableSource {
	table: string;
	read(db: Database): IndexedDoc[];
}

export const tableSources: TableSource[] = [
	{
		table: 'sessions',
		read(db) {
			const docs: IndexedDoc[] = [];
			each(db, 'SELECT id, name, agent, end_note, focus_json, started_at FROM sessions', [], (r) => {
				const id = r[0] as string;
				docs.push({
					key: `session:${id}`,
					kind: 'session',
					ref: id,
					session: id,
					agent: str(r[2]),
					at: str(r[5]),
					title: String(r[1] ?? ''),
					body: [str(r[3]), ...textsOf(parsed(r[4] ?? null))].filter(Boolean).join('\n'),
					files: [],
				});
			});
			return docs;
		},
	},
	{
		table: 'handoffs',
		read(db) {
			const docs: IndexedDoc[] = [];
			each(db, 'SELECT session_id, handoff_json, created_at FROM handoffs', [], (r) => {
				const id = r[0] as string;
				docs.push({
					key: `handoff:${id}`,
					kind: 'handoff',
					ref: id,
					session: id,
					agent: null,
					at: str(r[2]),
					title: '',
					body: textsOf(parsed(r[1] ?? null)).join('\n'),
					files: [],
				});
			});
			return docs;
		},
	},
	{
		table: 'decisions',
		read(db) {
			const docs: IndexedDoc[] = [];
			each(db, 'SELECT id, session_id, text, rationale, created_at FROM decisions', [], (r) => {
				const id = r[0] as string;
				docs.push({
					key: `decision:${id}`,
					kind: 'decision',
					ref: id,
					session: str(r[1]),
					agent: null,
					at: str(r[4]),
					title: String(r[2] ?? ''),
					body: str(r[3]) ?? '',
					files: [],
				});
			});
			return docs;
		},
	},
	{
		table: 'memory_entries',
		read(db) {
			const docs: IndexedDoc[] = [];
			each(db, 'SELECT id, text, source_session_id, files_json, last_confirmed_at FROM memory_entries', [], (r) => {
				const id = r[0] as string;
				const files = parsed(r[3] ?? null);
				docs.push({
					key: `memory:${id}`,
					kind: 'memory',
					ref: id,
					session: str(r[2]),
					agent: null,
					at: str(r[4]),
					title: '',
					body: String(r[1] ?? ''),
					files: Array.isArray(files) ? files.filter((f): f is string => typeof f === 'string') : [],
				});
			});
			return docs;
		},
	},
];

export function eventDoc(r: Row): IndexedDoc | null {
	const [, id, kind, session, at, bodyText] = r;
	const body = parsed(bodyText ?? null) as Record<string, unknown> | null;
	if (!body || typeof id !== 'string') {
		return null;
	}
	const turn = typeof body['turn'] === 'number' ? body['turn'] : undefined;
	const base = { key: `event:${id}`, ref: id, session: str(session), at: str(at), ...(turn !== undefined ? { turn } : {}) };
	if (kind === 'timeline.prompt') {
		return { ...base, kind: 'prompt', agent: null, title: '', body: String(body['text'] ?? ''), files: [] };
	}
	const files = Array.isArray(body['files'])
		? (body['files'] as { path?: unknown }[]).map((f) => f.path).filter((p): p is string => typeof p === 'string')
		: [];
	const step = typeof body['step'] === 'number' ? body['step'] : undefined;
	return {
		...base,
		kind: 'step',
		agent: str((body['agent'] as SqlValue) ?? null),
		title: String(body['summary'] ?? ''),
		body: String(body['tool'] ?? ''),
		files,
		...(step !== undefined ? { step } : {}),
	};
}

export function excerptDoc(transcript: string, n: number, e: Excerpt, session: string | null, agent: string): IndexedDoc | null {
	const base = {
		key: `transcript:${transcript}#${n}`,
		kind: 'transcript' as const,
		ref: `${transcript}#${n}`,
		session,
		agent,
		at: e.at,
		transcript,
		excerpt: n,
	};
	switch (e.type) {
		case 'user':
		case 'assistant':
		case 'error':
		case 'summary':
			return { ...base, title: '', body: e.text, files: [] };
		case 'tool':
			return { ...base, title: e.name, body: e.detail ?? '', files: e.files };
		default:
			return null;
	}
}
