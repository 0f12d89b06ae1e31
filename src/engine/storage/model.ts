/**
 * Runtime zod schemas of the stored records, derived from the drizzle schema through drizzle-zod, for
 * checking records that come from outside (a Baton export being imported). The records' types are
 * `records.ts`'s (inferred from the same schema); the check at the end proves at compile time that
 * each schema reads exactly its record, so a column changes in schema.ts alone.
 */
import { createSelectSchema } from 'drizzle-zod';
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
	sessionFocusSchema,
	sessionStatsSchema,
} from './jsonShapes';
import type * as records from './records';
import {
	auditLog,
	checkpoints,
	checkpointSessionSettings,
	decisions,
	handoffs,
	importRecords,
	issueLinks,
	memoryEntries,
	notificationOutbox,
	rollbacks,
	sessionAliases,
	sessions,
	sharedEvents,
	taskDependencies,
	tasks,
} from './schema';

export const sessionSchema = createSelectSchema(sessions, {
	scope: sessionScopeSchema,
	stats: sessionStatsSchema,
	debrief: debriefDataSchema.nullable(),
	focus: sessionFocusSchema.nullable(),
});

export const sessionAliasSchema = createSelectSchema(sessionAliases);

export const handoffSchema = createSelectSchema(handoffs, { data: handoffDataSchema });

export const decisionSchema = createSelectSchema(decisions);

export const taskSchema = createSelectSchema(tasks);

export const taskDependencySchema = createSelectSchema(taskDependencies);

export const auditEntrySchema = createSelectSchema(auditLog);

export const checkpointSchema = createSelectSchema(checkpoints, {
	tags: z.array(z.string()),
	annotations: z.array(checkpointAnnotationSchema),
	linkedIssues: z.array(linkedIssueSchema),
	fileStats: fileStatsSchema,
	environment: environmentSnapshotSchema.nullable(),
	metrics: checkpointMetricsSchema,
	escalationReasons: z.array(z.string()),
});

export const rollbackSchema = createSelectSchema(rollbacks, {
	phases: z.array(rollbackPhaseSchema),
	restoredPaths: z.array(z.string()),
	removedPaths: z.array(z.string()),
	keptPaths: z.array(z.string()),
	preservedPaths: z.array(z.string()),
});

export const checkpointSessionSettingsSchema = createSelectSchema(checkpointSessionSettings, {
	thresholds: escalationThresholdsSchema.partial().nullable(),
});

export const memoryEntrySchema = createSelectSchema(memoryEntries, { files: z.array(z.string()) });

export const issueLinkSchema = createSelectSchema(issueLinks);

export const importRecordSchema = createSelectSchema(importRecords);

export const sharedEventSchema = createSelectSchema(sharedEvents, { body: z.record(z.string(), z.unknown()) });

export const notificationOutboxSchema = createSelectSchema(notificationOutbox, { message: z.record(z.string(), z.unknown()) });

export type {
	ApprovalPolicy,
	ApprovalStatus,
	Checkpoint,
	CheckpointSessionSettings,
	Decision,
	IssueLink,
	MemoryEntry,
	MemoryKind,
	NotificationOutboxRow,
	NotificationPriority,
	Rollback,
	Session,
	SessionAlias,
	SessionStatus,
	SharedEvent,
	Task,
	TaskPriority,
	TaskStatus,
	TaskType,
} from './records';

/** True when each type is assignable to the other: the schema accepts every record and yields nothing else. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type AllTrue<T extends true[]> = T;
/** Compile-time proof that each schema reads exactly its record: a `false` here fails to compile. */
export type SchemasMatchRecords = AllTrue<
	[
		Same<z.infer<typeof sessionSchema>, records.Session>,
		Same<z.infer<typeof sessionAliasSchema>, records.SessionAlias>,
		Same<z.infer<typeof handoffSchema>, records.Handoff>,
		Same<z.infer<typeof decisionSchema>, records.Decision>,
		Same<z.infer<typeof taskSchema>, records.Task>,
		Same<z.infer<typeof taskDependencySchema>, records.TaskDependency>,
		Same<z.infer<typeof auditEntrySchema>, records.AuditEntry>,
		Same<z.infer<typeof checkpointSchema>, records.Checkpoint>,
		Same<z.infer<typeof rollbackSchema>, records.Rollback>,
		Same<z.infer<typeof checkpointSessionSettingsSchema>, records.CheckpointSessionSettings>,
		Same<z.infer<typeof memoryEntrySchema>, records.MemoryEntry>,
		Same<z.infer<typeof issueLinkSchema>, records.IssueLink>,
		Same<z.infer<typeof importRecordSchema>, records.ImportRecord>,
		Same<z.infer<typeof sharedEventSchema>, records.SharedEvent>,
		Same<z.infer<typeof notificationOutboxSchema>, records.NotificationOutboxRow>,
	]
>;
