/**
 * `cleo-sessions`: CLEO's legacy `.cleo/sessions.json` (seed 001). `sessions[]` keep their status
 * (`archived` stays archived); `sessionHistory[]` entries were closed and are imported as `closed`;
 * both stay visible and read-only. Focus becomes the current task; an ended session's note, next
 * action and blocked reason become its (write-once) handoff, a live one's its focus (`sessions.focus`); `resumedAs` links a chain; the config
 * (all of it, keys Baton does not know too) is kept in the settings table under `legacy.config`.
 * Those limits are not applied: Baton's own come from `.baton/config.json`, which an import does not
 * rewrite, so the import says so in a warning naming each limit and Baton's value for it.
 */
import { z } from 'zod';
import { isSessionId } from '../ids';
import type { SessionStatus } from '../storage/model';
import { cleoScopeSchema } from './cleoShapes';
import type { ImportBatch, ImportedSession } from './importTypes';
import { check, contentHash, foreignTime, toIso, unknownFields } from './recordCheck';
import { handoffData, sessionRow } from './sessionRows';
import { readJsonFile } from './sourceFiles';

export const legacyConfigKey = 'legacy.config';

const count = z.number().int().nonnegative();

const configSchema = z.looseObject({
	maxConcurrentSessions: z.number().int().min(1).max(10).optional(),
	maxActiveTasksPerScope: z.number().int().min(1).max(100).optional(),
	scopeValidation: z.enum(['strict', 'warn', 'none']).optional(),
	allowNestedScopes: z.boolean().optional(),
	allowScopeOverlap: z.boolean().optional(),
});

const fileSchema = z.object({
	version: z.string().nullish(),
	project: z.string().nullish(),
	config: z.unknown().optional(),
	sessions: z.array(z.unknown()),
	sessionHistory: z.array(z.unknown()).nullish(),
});

const legacySessionSchema = z.object({
	id: z.string().refine(isSessionId, 'not a CLEO session id (session_YYYYMMDD_HHmmss_xxxxxx, session-<epoch>-xxxxxx or ses_…)'),
	status: z.enum(['active', 'suspended', 'ended', 'archived', 'closed']).optional(),
	name: z.string().trim().min(1).max(200).nullish(),
	agentId: z.string().nullish(),
	scope: cleoScopeSchema.nullish(),
	focus: z
		.object({
			currentTask: z.string().min(1).nullish(),
			previousTask: z.string().min(1).nullish(),
			sessionNote: z.string().nullish(),
			nextAction: z.string().nullish(),
			blockedReason: z.string().nullish(),
			focusHistory: z.array(z.object({ taskId: z.string().nullish(), timestamp: z.string().nullish(), action: z.string().nullish() })).nullish(),
		})
		.nullish(),
	startedAt: foreignTime,
	lastActivity: foreignTime.nullish(),
	suspendedAt: foreignTime.nullish(),
	endedAt: foreignTime.nullish(),
	archivedAt: foreignTime.nullish(),
	archiveReason: z.string().nullish(),
	endReason: z.string().nullish(),
	endNote: z.string().nullish(),
	resumedAs: z.string().nullish(),
	resumeCount: count.nullish(),
	stats: z
		.object({
			tasksCompleted: count.nullish(),
			tasksCreated: count.nullish(),
			focusChanges: count.nullish(),
			suspendCount: count.nullish(),
			resumeCount: count.nullish(),
			decisionsRecorded: count.nullish(),
		})
		.nullish(),
});
type LegacySession = z.output<typeof legacySessionSchema>;
const sessionFields = new Set(Object.keys(legacySessionSchema.shape));

/** The warning that says which imported CLEO limits are not applied, and what Baton uses instead. */
export function configNotApplied(config: Record<string, unknown>, baton: Record<string, unknown>): string | null {
	const keys = Object.keys(config).sort();
	if (keys.length === 0) return null;
	const described = keys.map(
		(k) => `${k} ${JSON.stringify(config[k])}${k in baton ? ` (Baton: ${JSON.stringify(baton[k])})` : ' (Baton has no such limit)'}`,
	);
	return `CLEO's limits are kept in setting ${legacyConfigKey} but not applied: ${described.join(', ')}; Baton's own limits are set in .baton/config.json`;
}

export function readCleoSessions(file: string): ImportBatch {
	const batch: ImportBatch = { source: 'cleo-sessions', path: file, tasks: [], sessions: [], settings: [], taskRefSource: 'cleo-db', errors: [] };
	const errors = batch.errors;
	const top = check(fileSchema, readJsonFile(file, 'sessions.json', errors), 'sessions.json', errors);
	if (!top) {
		return batch;
	}
	if (top.config !== undefined && top.config !== null) {
		const config = check(configSchema, top.config, 'config', errors);
		if (config) {
			batch.settings.push({ record: 'config', key: legacyConfigKey, value: config, contentHash: contentHash(config) });
		}
	}
	const seen = new Map<string, string>();
	const resumedAs = new Map<string, string>();
	const read = (list: readonly unknown[], array: 'sessions' | 'sessionHistory'): void => {
		list.forEach((raw, i) => {
			const rawId = raw && typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'string' ? (raw as { id: string }).id : null;
			const record = `${array}[${i}]${rawId ? ` (${rawId})` : ''}`;
			const s = check(legacySessionSchema, raw, record, errors);
			if (!s) return;
			if (array === 'sessions' && !s.status) {
				errors.push({ record, field: 'status', message: 'missing (expected one of active, suspended, ended, archived, closed)' });
				return;
			}
			const earlier = seen.get(s.id);
			if (earlier) {
				errors.push({ record, field: 'id', message: `duplicate of ${earlier}` });
				return;
			}
			seen.set(s.id, `${array}[${i}]`);
			if (s.resumedAs) resumedAs.set(s.id, s.resumedAs);
			batch.sessions.push(
				toImported(s, array === 'sessionHistory' ? (s.status === 'archived' ? 'archived' : 'closed') : (s.status as SessionStatus), record, raw),
			);
		});
	};
	read(top.sessions, 'sessions');
	read(top.sessionHistory ?? [], 'sessionHistory');
	// `resumedAs` is CLEO's chain link: the closed session continued as another one.
	const byId = new Map(batch.sessions.map((s) => [s.session.id, s.session]));
	for (const [from, to] of resumedAs) {
		const a = byId.get(from);
		const b = byId.get(to);
		if (a && b && a !== b) {
			a.nextSessionId ??= b.id;
			b.previousSessionId ??= a.id;
		}
	}
	return batch;
}

function toImported(s: LegacySession, status: SessionStatus, record: string, raw: unknown): ImportedSession {
	const terminal = status === 'ended' || status === 'archived' || status === 'closed';
	const endedAt = s.endedAt ?? (terminal ? (s.archivedAt ?? s.lastActivity ?? s.startedAt) : null);
	const focus = s.focus ?? {};
	const history = focus.focusHistory ?? [];
	const lastFocus = [...history].reverse().find((h) => h.taskId === focus.currentTask && (h.action ?? 'focused') === 'focused');
	const hasNotes = focus.sessionNote || focus.nextAction || focus.blockedReason;
	const endNote = [s.endNote ?? '', s.endReason ? `ended: ${s.endReason}` : '', s.archiveReason ? `archived: ${s.archiveReason}` : '']
		.filter(Boolean)
		.join('; ');
	const session = sessionRow({
		id: s.id,
		name: s.name ?? `CLEO session ${s.id}`,
		status,
		scope: s.scope ?? { type: 'global' },
		currentTask: focus.currentTask ?? null,
		taskStartedAt: lastFocus?.timestamp ? (toIso(lastFocus.timestamp) ?? null) : null,
		agent: s.agentId ?? null,
		startedAt: s.startedAt,
		...(s.lastActivity ? { lastActivity: s.lastActivity } : {}),
		suspendedAt: s.suspendedAt ?? null,
		endedAt,
		archivedAt: s.archivedAt ?? null,
		endNote: endNote || null,
		// A live session has no handoff yet (it is written once, at the end): its focus note, next
		// action and blocked reason are where it stands, kept on the session for whoever looks next.
		focus:
			!terminal && hasNotes
				? { note: focus.sessionNote ?? null, nextAction: focus.nextAction ?? null, blockedReason: focus.blockedReason ?? null }
				: null,
		resumeCount: s.resumeCount ?? s.stats?.resumeCount ?? 0,
		stats: {
			tasksCompleted: s.stats?.tasksCompleted ?? 0,
			tasksCreated: s.stats?.tasksCreated ?? 0,
			focusChanges: s.stats?.focusChanges ?? history.filter((h) => (h.action ?? 'focused') === 'focused').length,
			suspendCount: s.stats?.suspendCount ?? 0,
			resumeCount: s.stats?.resumeCount ?? s.resumeCount ?? 0,
			decisionsRecorded: s.stats?.decisionsRecorded ?? 0,
		},
	});
	const extra = unknownFields(raw, sessionFields) ?? {};
	const lastTask = focus.currentTask ?? focus.previousTask;
	return {
		record,
		externalId: s.id,
		contentHash: contentHash(raw),
		session,
		handoff:
			terminal && hasNotes
				? {
						data: handoffData({
							lastTask: lastTask ? { id: lastTask, title: lastTask } : null,
							note: focus.sessionNote ?? null,
							nextAction: focus.nextAction ?? null,
							openBlockers: focus.blockedReason ? [focus.blockedReason] : [],
						}),
						createdAt: endedAt ?? s.startedAt,
					}
				: null,
		decisions: [],
		aliases: [],
		extra: Object.keys(extra).length ? extra : null,
	};
}
