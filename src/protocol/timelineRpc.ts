/**
 * The replay timeline over JSON-RPC (docs/replay.md): a session's axis, one step's details, a file at
 * one of a step's trees, and reverting a step. The shapes are the engine's (`timelineShapes.ts`), as
 * `baton timeline --json` prints them: declared once, named here by type only.
 */
import { RequestType } from 'vscode-jsonrpc';
import type { RpcErrorData } from './rpc';
import type {
	RevertResult,
	StepDetail,
	StepFileText,
	StepRecord,
	TimelineEntry,
	TimelineFile,
	TimelineView,
	TranscriptLine,
} from '../engine/timeline/timelineShapes';

export type TimelineFileDto = TimelineFile;
export type TimelineStepDto = StepRecord;
export type TimelineEntryDto = TimelineEntry;
export type TimelineDto = TimelineView;
export type TranscriptLineDto = TranscriptLine;
export type StepDetailDto = StepDetail;
export type RevertResultDto = RevertResult;

export const timelineGet = new RequestType<{ sessionId?: string }, TimelineView, RpcErrorData>('timeline/get');
export const timelineStep = new RequestType<{ id: string }, StepDetail, RpcErrorData>('timeline/step');
/** A file's text at a tree of a step (null when the tree does not hold it or it is binary). */
export const timelineFile = new RequestType<{ tree: string; path: string }, StepFileText, RpcErrorData>('timeline/file');
export const timelineRevert = new RequestType<{ id: string; dryRun?: boolean }, RevertResult, RpcErrorData>('timeline/revert');
