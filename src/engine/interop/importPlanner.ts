/**
 * An import batch compared with the workspace: what would be added, what is already there, and what
 * stops the import. Pure reads on `db`, so the same function serves the dry run (inside `read`) and
 * the real run (again inside `write`, after catching up with other writers).
 *
 * Imports only add. A record imported before (found in `import_records`), or a session or decision
 * whose id Baton already holds, is unchanged; when its content differs a warning says Baton kept its
 * own. Handoffs stay write-once: one arrives only with its new session.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { HandoffData, SessionScope } from '../storage/jsonShapes';
import type { BatonDb } from '../storage/journalStore';
import type { Decision, Session, SessionAlias } from '../storage/model';
import { decisions, importRecords, sessionAliases, sessions, settings } from '../storage/schema';
import { scopeKey } from '../sessions/scope';
import { zeroCounts, type ImportBatch, type ImportCounts, type ImportedSession, type ImportedSetting, type ImportIssue } from './importTypes';
import { canonicalJson } from './recordCheck';
import { planTasks, type PlannedTask } from './taskPlanner';
import { checkTextLimits } from './textLimits';

interface PlannedSession {
	source: ImportedSession;
	session: Session;
	handoff: { data: HandoffData; createdAt: string } | null;
	decisions: (Decision & { record: string })[];
	aliases: SessionAlias[];
}

export interface ImportPlan {
	batch: ImportBatch;
	tasks: PlannedTask[];
	sessions: PlannedSession[];
	settings: ImportedSetting[];
	added: ImportCounts;
	unchanged: ImportCounts;
	errors: ImportIssue[];
	warnings: ImportIssue[];
}

type Previous = Map<string, { entityId: string; contentHash: string }>;

function previousRecords(db: BatonDb, source: string, entityType: string): Previous {
	const rows = db
		.select()
		.from(importRecords)
		.where(and(eq(importRecords.source, source), eq(importRecords.entityType, entityType)))
		.all();
	return new Map(rows.map((r) => [r.externalId, { entityId: r.entityId, contentHash: r.contentHash }]));
}

export function planImport(db: BatonDb, batch: ImportBatch): ImportPlan {
	const errors = [...batch.errors];
	checkTextLimits(batch, errors);
	const warnings: ImportIssue[] = [...(batch.warnings ?? [])];
	const added = zeroCounts();
	const unchanged = zeroCounts();
	const taskPlan = planTasks(db, batch, previousRecords(db, batch.source, 'task'), errors, warnings);
	added.tasks = taskPlan.added.length;
	unchanged.tasks = taskPlan.unchanged;

	// Task ids named by sessions: this batch's tasks, then tasks imported earlier from the same source, else as given.
	const refs = batch.taskRefSource && batch.taskRefSource !== batch.source ? previousRecords(db, batch.taskRefSource, 'task') : new Map();
	const mapTask = (id: string): string => taskPlan.idOf.get(id) ?? refs.get(id)?.entityId ?? id;
	const titled = (ref: { id: string; title: string }) => {
		const id = mapTask(ref.id);
		return { ...ref, id, title: ref.title === ref.id ? (taskPlan.titleOf.get(id) ?? ref.title) : ref.title };
	};

	const previousSessions = previousRecords(db, batch.source, 'session');
	const previousDecisions = previousRecords(db, batch.source, 'decision');
	const activeScopes = new Map(
		db
			.select({ id: sessions.id, scopeKey: sessions.scopeKey })
			.from(sessions)
			.where(eq(sessions.status, 'active'))
			.all()
			.map((s) => [s.scopeKey, s.id]),
	);
	const planned: PlannedSession[] = [];
	for (const item of batch.sessions) {
		const before = previousSessions.get(item.externalId);
		const existing = db
			.select()
			.from(sessions)
			.where(eq(sessions.id, before?.entityId ?? item.session.id))
			.get();
		if (before || existing) {
			unchanged.sessions++;
			unchanged.handoffs += item.handoff ? 1 : 0;
			unchanged.decisions += item.decisions.length;
			const differs = before ? before.contentHash !== item.contentHash : canonicalJson(existing) !== canonicalJson(remap(item.session, mapTask));
			if (differs) {
				warnings.push({
					record: item.record,
					field: null,
					message: `session ${existing?.id ?? before?.entityId} is already in this workspace with other content; imports only add, so Baton keeps its own`,
				});
			}
			continue;
		}
		const session = remap(item.session, mapTask);
		if (session.status === 'active') {
			const holder = activeScopes.get(session.scopeKey);
			if (holder) {
				errors.push({
					record: item.record,
					field: 'status',
					message: `active, but session ${holder} is already active in scope ${session.scopeKey}; end or suspend one of them first`,
				});
			}
			activeScopes.set(session.scopeKey, session.id);
		}
		const handoff = item.handoff ? { data: remapHandoff(item.handoff.data, titled), createdAt: item.handoff.createdAt } : null;
		const newDecisions = item.decisions.filter((d) => {
			const known = previousDecisions.has(d.id) || db.select({ id: decisions.id }).from(decisions).where(eq(decisions.id, d.id)).get();
			if (known) unchanged.decisions++;
			return !known;
		});
		planned.push({
			source: item,
			session,
			handoff,
			decisions: newDecisions.map((d) => ({ ...d, taskId: d.taskId ? mapTask(d.taskId) : null })),
			aliases: freeAliases(db, item, warnings),
		});
		added.sessions++;
		added.handoffs += handoff ? 1 : 0;
		added.decisions += newDecisions.length;
	}

	const plannedSettings = planSettings(db, batch, added, unchanged, warnings);
	return { batch, tasks: taskPlan.added, sessions: planned, settings: plannedSettings, added, unchanged, errors, warnings };
}

/** The batch's settings this workspace does not hold yet; one it holds with other values is kept, with a warning. */
function planSettings(
	db: BatonDb,
	batch: ImportBatch,
	added: ImportPlan['added'],
	unchanged: ImportPlan['unchanged'],
	warnings: ImportIssue[],
): ImportBatch['settings'] {
	return batch.settings.filter((s) => {
		const row = db.select().from(settings).where(eq(settings.key, s.key)).get();
		if (!row) {
			added.settings++;
			return true;
		}
		unchanged.settings++;
		if (canonicalJson(row.value) !== canonicalJson(s.value)) {
			warnings.push({ record: s.record, field: null, message: `setting ${s.key} already holds other values; imports only add, so Baton keeps them` });
		}
		return false;
	});
}

function remap(session: Session, mapTask: (id: string) => string): Session {
	const scope: SessionScope = {
		...session.scope,
		...(session.scope.rootTaskId ? { rootTaskId: mapTask(session.scope.rootTaskId) } : {}),
		...(session.scope.explicitTaskIds ? { explicitTaskIds: [...new Set(session.scope.explicitTaskIds.map(mapTask))].sort() } : {}),
	};
	const debrief = session.debrief
		? { ...session.debrief, decisions: session.debrief.decisions.map((d) => ({ ...d, taskId: d.taskId ? mapTask(d.taskId) : null })) }
		: null;
	return { ...session, scope, scopeKey: scopeKey(scope), currentTask: session.currentTask ? mapTask(session.currentTask) : null, debrief };
}

function remapHandoff(h: HandoffData, titled: (ref: { id: string; title: string }) => { id: string; title: string }): HandoffData {
	return {
		...h,
		lastTask: h.lastTask ? titled(h.lastTask) : null,
		tasksCompleted: h.tasksCompleted.map(titled),
		tasksCreated: h.tasksCreated.map(titled),
		nextSuggested: h.nextSuggested.map(titled),
		openBugs: h.openBugs.map((b) => ({ ...b, ...titled(b) })),
	};
}

/** An agent's id belongs to one session: an alias another session already holds is skipped with a warning. */
function freeAliases(db: BatonDb, item: ImportedSession, warnings: ImportIssue[]): SessionAlias[] {
	if (item.aliases.length === 0) return [];
	const taken = db
		.select()
		.from(sessionAliases)
		.where(
			inArray(
				sessionAliases.alias,
				item.aliases.map((a) => a.alias),
			),
		)
		.all();
	return item.aliases.flatMap((a) => {
		const owner = taken.find((t) => t.agent === a.agent && t.alias === a.alias);
		if (owner) {
			warnings.push({
				record: item.record,
				field: 'aliases',
				message: `${a.agent} id ${a.alias} already belongs to session ${owner.sessionId}; not added`,
			});
			return [];
		}
		return [{ ...a, sessionId: item.session.id }];
	});
}
