/**
 * What a notification says, stored as the outbox row's message and rendered by each channel. It
 * holds domain facts only (ids, names, figures, commands): never a secret, so rows, `baton notify
 * list` and the database stay clean whatever a channel needs to reach its peer.
 */
import { z } from 'zod';
import { notificationEvents } from '../config';
import { notificationPriorities } from '../storage/schema';

const actionSchema = z.object({
	label: z.string(),
	/** The exact command line that does it. */
	cli: z.string(),
	/** The VS Code command palette title that does it. */
	editor: z.string(),
});
export type NotificationAction = z.infer<typeof actionSchema>;

export const notificationMessageSchema = z.object({
	event: z.union([z.enum(notificationEvents), z.literal('test')]),
	priority: z.enum(notificationPriorities),
	title: z.string(),
	summary: z.string(),
	workspace: z.string(),
	session: z.object({ id: z.string(), name: z.string(), costUsd: z.number(), durationMs: z.number() }).nullable(),
	/** A checkpoint's own changes, or a session's summed over its checkpoints (`checkpoints` of them). */
	filesChanged: z.object({ added: z.number(), modified: z.number(), deleted: z.number(), checkpoints: z.number() }).nullable(),
	checkpoint: z
		.object({ id: z.string(), trigger: z.string(), message: z.string().nullable(), approvalStatus: z.string(), escalationReasons: z.array(z.string()) })
		.nullable(),
	actions: z.array(actionSchema),
	at: z.string(),
});
export type NotificationMessage = z.infer<typeof notificationMessageSchema>;

export function formatUsd(value: number): string {
	return `$${value.toFixed(2)}`;
}

export function formatDuration(ms: number): string {
	const minutes = Math.round(ms / 60_000);
	if (minutes < 1) return `${Math.max(0, Math.round(ms / 1000))} s`;
	if (minutes < 60) return `${minutes} min`;
	const hours = Math.floor(minutes / 60);
	return `${hours} h ${String(minutes % 60).padStart(2, '0')} min`;
}

export function filesLine(files: NotificationMessage['filesChanged']): string {
	if (!files) return 'no checkpoint yet';
	const counts = `+${files.added} ~${files.modified} -${files.deleted} files`;
	return files.checkpoints > 1 ? `${counts} over ${files.checkpoints} checkpoints` : counts;
}

/** `Session "name" (id) · $1.20 · 42 min · +2 ~1 -0 files`, or the workspace when no session. */
export function factsLine(m: NotificationMessage): string {
	const parts = m.session
		? [`Session “${m.session.name}” (${m.session.id})`, formatUsd(m.session.costUsd), formatDuration(m.session.durationMs)]
		: [`Workspace ${m.workspace}`];
	return [...parts, filesLine(m.filesChanged)].join(' · ');
}

function actionLines(m: NotificationMessage): string[] {
	return m.actions.map((a) => `${a.label}: \`${a.cli}\` — or in VS Code: ${a.editor}`);
}

/** The plain-text body every channel can show: what happened, the facts, how to act. */
export function plainText(m: NotificationMessage): string {
	const reasons = m.checkpoint?.escalationReasons.length ? [`Escalated: ${m.checkpoint.escalationReasons.join('; ')}`] : [];
	return [m.summary, factsLine(m), ...reasons, ...actionLines(m)].join('\n');
}
