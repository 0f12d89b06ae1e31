/**
 * The type of each stored record, inferred from the drizzle schema: a column added to schema.ts
 * shows up here, in the CLI's JSON and on the wire without another edit. Types only, so the protocol
 * (and through it the extension and the webviews) imports them without pulling drizzle, sql.js or
 * the engine into a bundle (docs/architecture.md §2). `model.ts` adds the runtime zod schemas and
 * proves at compile time that they read exactly these records.
 */
import type { InferSelectModel } from 'drizzle-orm';
import type {
	agentSignals,
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

export type Session = InferSelectModel<typeof sessions>;
export type SessionStatus = Session['status'];
export type SessionAlias = InferSelectModel<typeof sessionAliases>;
export type Handoff = InferSelectModel<typeof handoffs>;
export type Decision = InferSelectModel<typeof decisions>;
export type Task = InferSelectModel<typeof tasks>;
export type TaskType = Task['type'];
export type TaskStatus = Task['status'];
export type TaskPriority = Task['priority'];
export type TaskDependency = InferSelectModel<typeof taskDependencies>;
export type AuditEntry = InferSelectModel<typeof auditLog>;
export type Checkpoint = InferSelectModel<typeof checkpoints>;
export type ApprovalStatus = Checkpoint['approvalStatus'];
export type ApprovalPolicy = Checkpoint['approvalPolicy'];
export type Rollback = InferSelectModel<typeof rollbacks>;
export type CheckpointSessionSettings = InferSelectModel<typeof checkpointSessionSettings>;
export type MemoryEntry = InferSelectModel<typeof memoryEntries>;
export type MemoryKind = MemoryEntry['kind'];
export type IssueLink = InferSelectModel<typeof issueLinks>;
export type ImportRecord = InferSelectModel<typeof importRecords>;
/** An immutable shared event (docs/records.md): sync, the replay timeline and provenance read these. */
export type SharedEvent = InferSelectModel<typeof sharedEvents>;
/** What an agent conversation last told its hooks (the Agents board). */
export type AgentSignal = InferSelectModel<typeof agentSignals>;
export type NotificationOutboxRow = InferSelectModel<typeof notificationOutbox>;
export type NotificationPriority = NotificationOutboxRow['priority'];
