/**
 * The JSON session files Baton exports and the `json-sessions` importer reads: one pretty-printed file
 * per session plus an `index.json`, in the layout of seed 004 (`name`, `description`, `created_at`,
 * `updated_at` at the top of each file). Baton's own files carry the exact records under `baton`, so
 * export → import is lossless; files without it (written by the tool seed 004 describes) are read as
 * ended conversations.
 *
 *   index.json        {format: "baton.sessions", version: 1, exportedAt, chain, sessions: [{name, file, id, description, status, created_at, updated_at}]}
 *   <name>.json       {name, description, created_at, updated_at, baton: {format: "baton.session", version: 1, session, handoff, decisions, aliases}}
 */
import { z } from 'zod';
import { handoffDataSchema } from '../storage/jsonShapes';
import { decisionSchema, sessionAliasSchema, sessionSchema } from '../storage/model';

export const indexFileName = 'index.json';
export const indexFormat = 'baton.sessions';
export const sessionFileFormat = 'baton.session';

export const batonSessionBlockSchema = z.object({
	format: z.literal(sessionFileFormat),
	version: z.literal(1),
	// Files exported before sessions kept a focus have none: read as null.
	session: sessionSchema.extend({ focus: sessionSchema.shape.focus.default(null) }),
	handoff: z.object({ data: handoffDataSchema, createdAt: z.string().min(1) }).nullable(),
	decisions: z.array(decisionSchema),
	aliases: z.array(sessionAliasSchema.omit({ sessionId: true })),
});
export type BatonSessionBlock = z.infer<typeof batonSessionBlockSchema>;

/** Seed 004's fields; `baton` is present in Baton's own exports. */
export const sessionFileSchema = z.object({
	name: z.string(),
	description: z.string().nullable().optional(),
	created_at: z.string().min(1),
	updated_at: z.string().min(1),
	message_count: z.number().int().nonnegative().optional(),
	first_message: z.string().nullable().optional(),
	thread: z
		.object({ messages: z.array(z.unknown()).optional() })
		.passthrough()
		.nullable()
		.optional(),
	baton: z.unknown().optional(),
});
export type SessionFile = z.infer<typeof sessionFileSchema>;

export const indexEntrySchema = z.object({
	name: z.string(),
	/** Defaults to `<name>.json`. */
	file: z.string().optional(),
	id: z.string().optional(),
	description: z.string().nullable().optional(),
});

export const indexSchema = z.object({
	format: z.string().optional(),
	version: z.number().optional(),
	exportedAt: z.string().optional(),
	chain: z.string().nullable().optional(),
	sessions: z.array(z.unknown()),
});

/** Pretty JSON with a final newline: what people read and diff. */
export function prettyJson(value: unknown): string {
	return `${JSON.stringify(value, null, 2)}\n`;
}
