/**
 * Writes a checked import plan inside the caller's one write transaction: tasks before their
 * dependencies, sessions before their handoffs, decisions and aliases, the settings, the
 * `import_records` that make the next import of the same records add nothing, and one audit entry.
 * Imported history raises no domain events: it happened elsewhere, earlier, and must not notify.
 */
import { audit } from '../audit';
import type { BatonDb } from '../storage/journalStore';
import { decisions, handoffs, importRecords, sessionAliases, sessions, settings, taskDependencies, tasks } from '../storage/schema';
import type { ImportPlan } from './importPlanner';

export function applyImport(db: BatonDb, plan: ImportPlan, input: { now: string; actor: string }): void {
	const { now } = input;
	const source = plan.batch.source;
	const record = (entityType: string, externalId: string, entityId: string, contentHash: string, extra: Record<string, unknown> | null = null): void => {
		db.insert(importRecords).values({ source, entityType, externalId, entityId, contentHash, importedAt: now, extra }).run();
	};
	for (const t of plan.tasks) {
		db.insert(tasks).values(t.row).run();
		record('task', t.source.externalId, t.row.id, t.source.contentHash, t.source.extra ?? null);
	}
	for (const t of plan.tasks) {
		for (const dep of t.dependsOn) {
			db.insert(taskDependencies).values({ taskId: t.row.id, dependsOnId: dep }).run();
		}
	}
	for (const s of plan.sessions) {
		db.insert(sessions).values(s.session).run();
		record('session', s.source.externalId, s.session.id, s.source.contentHash, s.source.extra ?? null);
	}
	for (const s of plan.sessions) {
		if (s.handoff) {
			db.insert(handoffs).values({ sessionId: s.session.id, data: s.handoff.data, createdAt: s.handoff.createdAt }).run();
		}
		for (const { record: _record, ...d } of s.decisions) {
			db.insert(decisions).values(d).run();
			record('decision', d.id, d.id, s.source.contentHash);
		}
		for (const alias of s.aliases) {
			db.insert(sessionAliases).values(alias).run();
		}
	}
	for (const s of plan.settings) {
		db.insert(settings).values({ key: s.key, value: s.value, updatedAt: now }).run();
		record('setting', s.key, s.key, s.contentHash);
	}
	audit(db, {
		at: now,
		actor: input.actor,
		operation: 'import.run',
		entityType: 'import',
		entityId: source,
		details: {
			source,
			path: plan.batch.path,
			added: plan.added,
			unchanged: plan.unchanged,
			warnings: plan.warnings.length,
			sessions: plan.sessions.slice(0, 200).map((s) => s.session.id),
			tasks: plan.tasks.slice(0, 200).map((t) => `${t.source.externalId}→${t.row.id}`),
		},
	});
}
