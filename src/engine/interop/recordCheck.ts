/**
 * Validation helpers shared by the readers: zod failures worded per field, stable content hashes,
 * and timestamps from foreign formats turned into Baton's ISO-8601 UTC strings.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ImportIssue } from './importTypes';

function describeInput(input: unknown): string {
	if (input === undefined) return 'nothing';
	if (input === null) return 'null';
	if (typeof input === 'string') return JSON.stringify(input.length > 60 ? `${input.slice(0, 57)}…` : input);
	if (Array.isArray(input)) return 'an array';
	return typeof input === 'object' ? 'an object' : `${typeof input} ${String(input)}`;
}

/** One issue's words: `expected one of active, suspended (got "running")`, `missing (expected string)`. */
function describeIssue(issue: z.core.$ZodIssue): string {
	const input = (issue as { input?: unknown }).input;
	switch (issue.code) {
		case 'invalid_value':
			return `expected one of ${issue.values.map((v) => String(v)).join(', ')} (got ${describeInput(input)})`;
		case 'invalid_type':
			return input === undefined ? `missing (expected ${issue.expected})` : `expected ${issue.expected}, got ${describeInput(input)}`;
		default:
			return `${issue.message.replace(/^Invalid input: /, '')}${input !== undefined && issue.code !== 'custom' ? ` (got ${describeInput(input)})` : ''}`;
	}
}

function fieldPath(prefix: string | null, path: readonly PropertyKey[]): string | null {
	const parts = [prefix, ...path.map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))].filter((p): p is string => !!p);
	return parts.length ? parts.join('.').replace(/\.\[/g, '[') : null;
}

/** Parses `value`; on failure pushes one issue per problem (naming `record` and the field) and returns undefined. */
export function check<S extends z.ZodType>(
	schema: S,
	value: unknown,
	record: string,
	errors: ImportIssue[],
	prefix: string | null = null,
): z.output<S> | undefined {
	const result = schema.safeParse(value, { reportInput: true });
	if (result.success) {
		return result.data;
	}
	for (const issue of result.error.issues) {
		errors.push({ record, field: fieldPath(prefix, issue.path), message: describeIssue(issue) });
	}
	return undefined;
}

/** JSON with keys sorted at every level: the same content always hashes the same. */
export function canonicalJson(value: unknown): string {
	return JSON.stringify(value, (_key, v: unknown) =>
		v && typeof v === 'object' && !Array.isArray(v)
			? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
			: v,
	);
}

export function contentHash(value: unknown): string {
	return `sha256:${createHash('sha256').update(canonicalJson(value)).digest('hex')}`;
}

const sqliteStamp = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?$/;

/**
 * A foreign timestamp as ISO-8601 UTC. Offsets are honoured; a stamp without one (SQLite's
 * `datetime('now')`, Python's `isoformat()`) is read as UTC, which is what those writers store.
 */
export function toIso(text: string): string | undefined {
	const trimmed = text.trim();
	const ms = Date.parse(sqliteStamp.test(trimmed) ? `${trimmed.replace(' ', 'T')}Z` : trimmed);
	return Number.isFinite(ms) && /^\d{4}-/.test(trimmed) ? new Date(ms).toISOString() : undefined;
}

/** A zod string field holding a foreign timestamp, output as ISO-8601 UTC. */
export const foreignTime = z.string().transform((text, ctx) => {
	const iso = toIso(text);
	if (iso === undefined) {
		ctx.addIssue({ code: 'custom', message: `not a timestamp (got ${describeInput(text)})` });
		return z.NEVER;
	}
	return iso;
});

/** A text column holding JSON (CLEO's `*_json` columns), parsed and then checked by `schema`. */
export function jsonText<S extends z.ZodType>(schema: S) {
	return z
		.string()
		.transform((text, ctx): unknown => {
			try {
				return JSON.parse(text) as unknown;
			} catch (error) {
				ctx.addIssue({ code: 'custom', message: `not valid JSON (${(error as Error).message})` });
				return z.NEVER;
			}
		})
		.pipe(schema);
}

/** The fields of a raw record that its reader does not map, verbatim (null when there are none). */
export function unknownFields(raw: unknown, known: ReadonlySet<string>): Record<string, unknown> | null {
	if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
	const rest = Object.entries(raw as Record<string, unknown>).filter(([key]) => !known.has(key));
	return rest.length ? Object.fromEntries(rest) : null;
}
