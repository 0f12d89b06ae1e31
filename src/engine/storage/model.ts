/**
 * Domain types, derived from the drizzle schema through drizzle-zod. Nothing else in Baton declares
 * the shape of a stored record: a column added to schema.ts shows up here, in the CLI's JSON and on
 * the wire without another edit.
 */
import { createInsertSchema, createSelectSchema } from 'drizzle-zod';
import type { z } from 'zod';
import { debriefDataSchema, handoffDataSchema, sessionScopeSchema, sessionStatsSchema } from './jsonShapes';
import { auditLog, decisions, handoffs, sessionAliases, sessions, taskDependencies, tasks } from './schema';

export const sessionSchema = createSelectSchema(sessions, {
	scope: sessionScopeSchema,
	stats: sessionStatsSchema,
	debrief: debriefDataSchema.nullable(),
});
export type Session = z.infer<typeof sessionSchema>;
export type SessionStatus = Session['status'];
export const sessionInsertSchema = createInsertSchema(sessions, {
	name: (s) => s.min(1).max(200),
	scope: sessionScopeSchema,
	stats: sessionStatsSchema,
	debrief: debriefDataSchema.nullable().optional(),
});

export const sessionAliasSchema = createSelectSchema(sessionAliases);
export type SessionAlias = z.infer<typeof sessionAliasSchema>;

export const handoffSchema = createSelectSchema(handoffs, { data: handoffDataSchema });
export type Handoff = z.infer<typeof handoffSchema>;

export const decisionSchema = createSelectSchema(decisions);
export type Decision = z.infer<typeof decisionSchema>;

export const taskSchema = createSelectSchema(tasks);
export type Task = z.infer<typeof taskSchema>;
export type TaskType = Task['type'];
export type TaskStatus = Task['status'];
export type TaskPriority = Task['priority'];
export const taskInsertSchema = createInsertSchema(tasks, { title: (s) => s.min(1).max(500) });

export const taskDependencySchema = createSelectSchema(taskDependencies);
export type TaskDependency = z.infer<typeof taskDependencySchema>;

export const auditEntrySchema = createSelectSchema(auditLog);
export type AuditEntry = z.infer<typeof auditEntrySchema>;
