/**
 * The bodies of the event kinds Baton derives state from, as its writers make them (sync/localEvents.ts,
 * sync/recordEvents.ts): the fields the projection reads, each with its type. A pulled event of one of
 * these kinds whose body does not fit is refused at the merge, by name and with the field that is
 * wrong. Deriving from it would put a number where a view expects a list — one such event from a
 * broken writer made every later export of the machine that pulled it throw — or flip a record's
 * state on a value nobody wrote.
 *
 * Loose on purpose: fields a newer version adds pass, and so do values a newer version may add to an
 * open set (a session status, a checkpoint decision, a task's type): the projection derives nothing
 * from a value it does not know. Events of other kinds are not looked at (kept, with a warning).
 */
import { z } from 'zod';
import { checkpointAnnotationSchema, checkpointMetricsSchema, fileStatsSchema, handoffDataSchema, sessionScopeSchema } from '../storage/jsonShapes';

const maybeText = z.string().nullish();
const strings = z.array(z.string()).nullish();
const annotations = z.array(checkpointAnnotationSchema).nullish();

// Every field may be missing (the projection has a default, or waits for it, for each): only a value
// of the wrong type is refused.
const bodies: Record<string, z.ZodType> = {
	'session.started': z.looseObject({ name: maybeText, scope: sessionScopeSchema.nullish(), agent: maybeText, previousId: maybeText, parentId: maybeText, startedAt: maybeText }),
	'session.status': z.looseObject({ status: maybeText, reason: maybeText, at: maybeText }),
	'handoff.written': handoffDataSchema.partial().loose(),
	'handoff.consumed': z.looseObject({ bySessionId: maybeText, at: maybeText }),
	'checkpoint.recorded': z.looseObject({
		files: fileStatsSchema.partial().loose().nullish(),
		metrics: checkpointMetricsSchema.partial().loose().nullish(),
		treeOid: maybeText,
		commitOid: maybeText,
		parentCheckpointId: maybeText,
		trigger: maybeText,
		message: maybeText,
		tags: strings,
		annotations,
		approvalStatus: maybeText,
		approvalPolicy: maybeText,
		escalationReasons: strings,
		createdAt: maybeText,
	}),
	'checkpoint.decided': z.looseObject({ status: maybeText, note: maybeText, by: maybeText, at: maybeText }),
	'decision.recorded': z.looseObject({ kind: maybeText, text: maybeText, rationale: maybeText, taskId: maybeText, createdAt: maybeText }),
	'checkpoint.labels': z.looseObject({ addTags: strings, removeTags: strings, tags: strings, annotations }),
	'memory.fact': z.looseObject({ kind: maybeText, fingerprint: maybeText, text: maybeText, source: maybeText, files: strings, createdAt: maybeText, retiredAt: maybeText }),
	'memory.confirmed': z.looseObject({ at: maybeText }),
	// The task's columns that hold a value always (a null would fail the whole pull's write).
	'task.changed': z.looseObject({
		title: z.string().optional(),
		description: maybeText,
		type: z.string().optional(),
		status: z.string().optional(),
		priority: z.string().optional(),
		parentId: maybeText,
		phase: maybeText,
		createdAt: z.string().optional(),
		updatedAt: z.string().optional(),
		completedAt: maybeText,
		createdBySession: maybeText,
		completedBySession: maybeText,
	}),
	'import.recorded': z.looseObject({ source: maybeText, entityType: maybeText, externalId: maybeText, entityId: maybeText, contentHash: maybeText, importedAt: maybeText }),
};

/** Why the body of an event of a kind Baton derives from does not fit that kind, or null (it fits, or the kind is another). */
export function bodyProblem(kind: string, body: unknown): string | null {
	const schema = Object.hasOwn(bodies, kind) ? bodies[kind] : undefined;
	if (!schema) {
		return null;
	}
	const result = schema.safeParse(body);
	if (result.success) {
		return null;
	}
	const issue = result.error.issues[0];
	return `its ${kind} body does not fit: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`;
}
