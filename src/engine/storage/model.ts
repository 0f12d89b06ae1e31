/**
 * Domain types, derived from the drizzle schema through drizzle-zod. Nothing else in Baton declares
 * the shape of a stored record: a column added to schema.ts shows up here, in the CLI's JSON and on
 * the wire without another edit.
 */
import { createInsertSchema, createSelectSchema } from 'drizzle-zod';
import { z } from 'zod';
import {
	checkpointAnnotationSchema,
	checkpointMetricsSchema,
	debriefDataSchema,
	environmentSnapshotSchema,
	escalationThresholdsSchema,
	fileStatsSchema,
	handoffDataSchema,
	linkedIssueSchema,
	rollbackPhaseSchema,
	sessionScopeSchema,
	sessionStatsSchema,
} from './jsonShapes';
import { auditLog, checkpoints, checkpointSessionSettings, decisions, handoffs, importRecords, issueLinks, memoryEntries, notificationOutbox, rollbacks, sessionAliases, sessions, sharedEvents, taskDependencies, tasks } from './schema';

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

export const checkpointSchema = createSelectSchema(checkpoints, {
	tags: z.array(z.string()),
	annotations: z.array(checkpointAnnotationSchema),
	linkedIssues: z.array(linkedIssueSchema),
	fileStats: fileStatsSchema,
	environment: environmentSnapshotSchema.nullable(),
	metrics: checkpointMetricsSchema,
	escalationReasons: z.array(z.string()),
});
export type Checkpoint = z.infer<typeof checkpointSchema>;
export type ApprovalStatus = Checkpoint['approvalStatus'];
export type ApprovalPolicy = Checkpoint['approvalPolicy'];

export const rollbackSchema = createSelectSchema(rollbacks, {
	phases: z.array(rollbackPhaseSchema),
	restoredPaths: z.array(z.string()),
	removedPaths: z.array(z.string()),
	keptPaths: z.array(z.string()),
	preservedPaths: z.array(z.string()),
});
export type Rollback = z.infer<typeof rollbackSchema>;

export const checkpointSessionSettingsSchema = createSelectSchema(checkpointSessionSettings, {
	thresholds: escalationThresholdsSchema.partial().nullable(),
});
export type CheckpointSessionSettings = z.infer<typeof checkpointSessionSettingsSchema>;

export const memoryEntrySchema = createSelectSchema(memoryEntries, { files: z.array(z.string()) });
export type MemoryEntry = z.infer<typeof memoryEntrySchema>;
export type MemoryKind = MemoryEntry['kind'];

export const issueLinkSchema = createSelectSchema(issueLinks);
export type IssueLink = z.infer<typeof issueLinkSchema>;

export const importRecordSchema = createSelectSchema(importRecords);
export type ImportRecord = z.infer<typeof importRecordSchema>;

export const sharedEventSchema = createSelectSchema(sharedEvents, { body: z.record(z.string(), z.unknown()) });
export type SharedEvent = z.infer<typeof sharedEventSchema>;

export const notificationOutboxSchema = createSelectSchema(notificationOutbox, { message: z.record(z.string(), z.unknown()) });
export type NotificationOutboxRow = z.infer<typeof notificationOutboxSchema>;
export type NotificationPriority = NotificationOutboxRow['priority'];
