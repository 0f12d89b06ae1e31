/**
 * Messages between the Replay page (webview/replayMain.ts) and the extension host
 * (src/extension/replay/replayPanel.ts). Page → host messages are checked with zod on receipt (a
 * webview is an untrusted page), as the other panels' are (webview.ts); host → page messages are typed.
 */
import { z } from 'zod';
import type { StepDetailDto, TimelineDto } from './timelineRpc';

/** A step's event id: the only ids the page may name. */
const stepId = z.string().regex(/^evt_[0-9A-Za-z_]{1,80}$/);
const count = z.number().int().min(0).max(10_000_000);
const ms = z.number().min(0).max(86_400_000);

export const replayToHost = z.discriminatedUnion('type', [
	/** The page's script has loaded and wants the timeline. */
	z.object({ type: z.literal('ready') }),
	/** Show one step's details. */
	z.object({ type: z.literal('select'), id: stepId }),
	/** Open a step's diff (all its files, or one). */
	z.object({ type: z.literal('openDiff'), id: stepId, path: z.string().min(1).max(4096).optional() }),
	/** Revert one step (the host asks first). */
	z.object({ type: z.literal('revert'), id: stepId }),
	/** The first screen was painted: how long it took, and how many rows it showed. */
	z.object({ type: z.literal('painted'), ms, entries: count, rows: count.default(0), fromCommandMs: ms.optional() }),
]);
export type ReplayToHost = z.input<typeof replayToHost>;
export type ReplayFromPage = z.infer<typeof replayToHost>;

export type HostToReplay =
	{ type: 'timeline'; data: TimelineDto; focusStep?: number } | { type: 'step'; detail: StepDetailDto } | { type: 'error'; message: string };
