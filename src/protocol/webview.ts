/**
 * Messages between a Baton webview and the extension host. Webview → host messages are validated
 * with zod on receipt (a webview is an untrusted page); host → webview messages are typed.
 */
import { z } from 'zod';
import type { ComparisonDto } from './checkpointDto';
import type { BriefingDto, SessionDetailsDto, SessionDto } from './dto';

export const webviewKinds = ['briefing', 'details', 'graph', 'compare'] as const;
export type WebviewKind = (typeof webviewKinds)[number];

export const webviewToHost = z.discriminatedUnion('type', [
	/** The page has loaded and wants its data. */
	z.object({ type: z.literal('ready') }),
	/** Open the details of a session (a click in a list or on a graph node). */
	z.object({ type: z.literal('openSession'), sessionId: z.string().min(1).max(100) }),
	/** Open the briefing of a session. */
	z.object({ type: z.literal('openBriefing'), sessionId: z.string().min(1).max(100) }),
	/** Make a task the current task of the active session. */
	z.object({ type: z.literal('focusTask'), taskId: z.string().min(1).max(100) }),
	/** Start a session in a scope (the briefing's call to action). */
	z.object({ type: z.literal('startSession'), scope: z.string().min(1).max(200) }),
	/** Run one of the session transitions from a details view. */
	z.object({ type: z.literal('transition'), action: z.enum(['end', 'suspend', 'resume']), sessionId: z.string().min(1).max(100) }),
	z.object({ type: z.literal('refresh') }),
	/** Details view: link the session to a tracker issue (the host asks which). */
	z.object({ type: z.literal('linkIssue'), sessionId: z.string().min(1).max(100) }),
	/** Comparison: open one file's diff in VS Code's diff editor. */
	z.object({ type: z.literal('openFileDiff'), path: z.string().min(1).max(4096) }),
	/** Comparison: act on a checkpoint (approve, reject, roll back to it). */
	z.object({ type: z.literal('checkpointAction'), action: z.enum(['approve', 'reject', 'rollback']), checkpointId: z.string().min(1).max(100) }),
]);
export type WebviewToHost = z.infer<typeof webviewToHost>;

export type HostToWebview =
	| { type: 'briefing'; briefing: BriefingDto; session: SessionDto | null }
	| { type: 'details'; details: SessionDetailsDto }
	| { type: 'graph'; sessions: SessionDto[]; focusId: string | null }
	| { type: 'compare'; comparison: ComparisonDto }
	| { type: 'error'; message: string };
