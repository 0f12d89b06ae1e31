/**
 * Turn capture (docs/replay.md): what the agent hooks call. A user prompt starts a turn
 * (`timeline.prompt`); each tool call that can change files (edits, shell commands, MCP tools) is
 * captured before and after, and becomes a `timeline.step` with the files it changed. When the
 * workspace at a PreToolUse differs from the tree the last step left, and no other call of the
 * session is in flight, a person edited in between: that difference is a step of its own, actor
 * `human`.
 *
 * The hook waits for this, so it is budgeted: waiting for the shadow's lock and reading the workspace
 * share `budgetMs`; past it the step is recorded with `captured: false` and the reason. Nothing here
 * reaches the agent as an error.
 */
import { modelFromTranscript } from '../transcripts/transcriptModel';
import { and, count, eq } from 'drizzle-orm';
import type { HookEvent } from '../hookEvent';
import type { DirtyTracking } from '../watcher/dirtyTracking';
import { ShadowRepo } from '../shadow/shadowRepo';
import type { EngineContext } from '../context';
import { isoTime } from '../ids';
import { machineIdentity } from '../shared/machineIdentity';
import { appendSharedEvent } from '../shared/sharedEvents';
import type { BatonDb } from '../storage/journalStore';
import { sharedEvents } from '../storage/schema';
import { batonDir } from '../workspace';
import { captureTree, stepFiles, type Capture } from './treeCapture';
import { keyframe, noteStep } from './timelineKeyframes';
import { readState, takePending, writeState, type PendingCall, type TimelineState } from './timelineState';
import { splitByNamed, treeWithPaths } from './stepSplit';
import { isCapturedTool, toolSummary } from './timelineTools';
import { filesTouchedBy } from '../transcripts/editTools';
import { promptKind, stepKind, type TimelineStep } from './timelineShapes';
import { pushAll } from '../arrays';

export interface TimelineHooks {
	onPrompt(sessionId: string, text: string): Promise<void>;
	/** Returns the files the agent's recorded steps changed (workspace-relative; none for a PreToolUse). */
	onToolUse(phase: 'pre' | 'post', sessionId: string, event: HookEvent): Promise<string[]>;
	/** The agent's turn (or session) ended: a call still open gets its step now, never later. Returns the files its steps changed. */
	onTurnEnd(sessionId: string, event: HookEvent): Promise<string[]>;
}

interface RecorderOptions {
	/** Time the capture may add to one hook call (lock wait included). */
	budgetMs: number;
	/** The workspace watcher's dirty paths where this process runs one (see CaptureOptions.dirty). */
	dirty?: DirtyTracking;
}

/** Longest prompt text kept in a `timeline.prompt` (the transcript has the rest). */
const maxPromptChars = 16_000;

export function timelineHooks(ctx: EngineContext, options: RecorderOptions): TimelineHooks {
	return new TimelineRecorder(ctx, options);
}

type StepDraft = Omit<TimelineStep, 'step' | 'turn'>;

export class TimelineRecorder implements TimelineHooks {
	constructor(
		private readonly ctx: EngineContext,
		private readonly options: RecorderOptions,
	) {}

	async onPrompt(sessionId: string, text: string): Promise<void> {
		const clean = text.length > maxPromptChars ? `${text.slice(0, maxPromptChars - 1)}…` : text;
		const nowMs = this.ctx.clock.now();
		const machine = machineIdentity(this.ctx.workspaceRoot);
		await this.ctx.store.write((db) => {
			const turn = countOf(db, sessionId, promptKind) + 1;
			appendSharedEvent(db, machine, nowMs, {
				kind: promptKind,
				subject: sessionId,
				sessionId,
				actor: 'human',
				body: { turn, text: clean, at: isoTime(nowMs) },
			});
		});
	}

	async onToolUse(phase: 'pre' | 'post', sessionId: string, event: HookEvent): Promise<string[]> {
		const tool = event.tool;
		if (!tool || !isCapturedTool(tool.name)) {
			return [];
		}
		const started = Date.now();
		const root = this.ctx.workspaceRoot;
		// The lock wait counts against the budget: a long checkpoint must not hold the agent up.
		const shadow = new ShadowRepo(root, batonDir(root), Math.max(this.options.budgetMs, 1));
		const deadline = started + this.options.budgetMs;
		const nowMs = this.ctx.clock.now();
		const call: PendingCall = {
			toolUseId: tool.id,
			tool: tool.name,
			summary: toolSummary(tool, root, event.cwd),
			startedAt: isoTime(nowMs),
			startedMs: nowMs,
			treeBefore: null,
			reason: null,
		};
		const drafts: StepDraft[] = [];
		const agent = event.agent;
		try {
			shadow.ensureEmptyConfig();
			await shadow.withLock(async () => {
				const state = readState(root, sessionId, nowMs);
				const capture = await captureTree(shadow, {
					excludes: this.ctx.config.checkpoints.excludes,
					maxFileSize: this.ctx.config.checkpoints.maxFileSize,
					deadline,
					...(this.options.dirty ? { dirty: this.options.dirty } : {}),
				});
				if (phase === 'pre') {
					const human = await this.pre(shadow, sessionId, state, capture, call, nowMs);
					if (human) {
						drafts.push(human);
					}
				} else {
					pushAll(drafts, [
						...(await this.post(shadow, sessionId, state, capture, call, nowMs, agent, filesTouchedBy(tool.name, tool.input, root, event.cwd))),
					]);
				}
				writeState(root, sessionId, state);
			});
		} catch (error) {
			// The lock was not ours within the budget (or the store is unusable): remember the call without a tree.
			const reason = `not captured: ${(error as Error).message}`;
			const state = readState(root, sessionId, nowMs);
			if (phase === 'pre') {
				state.pending.push({ ...call, reason });
			} else {
				const pending = takePending(state, tool.name, tool.id);
				drafts.push(agentDraft(pending ?? call, agent, null, null, [], 0, pending?.reason ?? reason));
				state.lastTree = null;
				state.chainTree = null;
			}
			writeState(root, sessionId, state);
		}
		// The model: the hook payload's when it names one, else the transcript's latest (read only when a step is recorded).
		const model = drafts.some((d) => d.actor === 'agent') ? (event.model ?? modelFromTranscript(event.transcriptPath)) : null;
		for (const draft of drafts) {
			await this.append(sessionId, draft.actor === 'agent' && model ? { ...draft, model } : draft, nowMs);
		}
		return agentFiles(drafts);
	}

	/**
	 * A turn ended with calls still open (their PostToolUse never came: an event the connection does
	 * not subscribe to, an interrupted call, a hook that timed out). Each becomes its step now, so no
	 * call stays pending past its turn — an open call would also hide the person's edits between runs,
	 * which are told apart only while nothing is in flight. The oldest open call takes what changed
	 * since its PreToolUse; any others are recorded without files and say why.
	 */
	async onTurnEnd(sessionId: string, event: HookEvent): Promise<string[]> {
		const root = this.ctx.workspaceRoot;
		const nowMs = this.ctx.clock.now();
		if (readState(root, sessionId, nowMs).pending.length === 0) {
			return [];
		}
		const shadow = new ShadowRepo(root, batonDir(root), Math.max(this.options.budgetMs, 1));
		const deadline = Date.now() + this.options.budgetMs;
		const drafts: StepDraft[] = [];
		try {
			shadow.ensureEmptyConfig();
			await shadow.withLock(async () => {
				const state = readState(root, sessionId, nowMs);
				const open = state.pending.splice(0);
				if (open.length === 0) {
					return;
				}
				const capture = await captureTree(shadow, {
					excludes: this.ctx.config.checkpoints.excludes,
					maxFileSize: this.ctx.config.checkpoints.maxFileSize,
					deadline,
					...(this.options.dirty ? { dirty: this.options.dirty } : {}),
				});
				const [oldest, ...rest] = open as [PendingCall, ...PendingCall[]];
				state.pending.push(oldest);
				pushAll(drafts, [...(await this.post(shadow, sessionId, state, capture, oldest, nowMs, event.agent, []))]);
				for (const call of rest) {
					drafts.push(
						agentDraft(
							call,
							event.agent,
							null,
							null,
							[],
							0,
							'no result was reported for this call before its turn ended; its files are in the step of the call before it',
						),
					);
				}
				writeState(root, sessionId, state);
			});
		} catch (error) {
			const state = readState(root, sessionId, nowMs);
			for (const call of state.pending.splice(0)) {
				drafts.push(agentDraft(call, event.agent, null, null, [], 0, `not captured: ${(error as Error).message}`));
			}
			state.lastTree = null;
			state.chainTree = null;
			writeState(root, sessionId, state);
		}
		const model = drafts.length > 0 ? (event.model ?? modelFromTranscript(event.transcriptPath)) : null;
		for (const draft of drafts) {
			await this.append(sessionId, model ? { ...draft, model } : draft, nowMs);
		}
		return agentFiles(drafts);
	}

	/** Before a call: its tree, and the person's edits since the last step when nothing else is in flight. */
	private async pre(
		shadow: ShadowRepo,
		sessionId: string,
		state: TimelineState,
		capture: Capture,
		call: PendingCall,
		nowMs: number,
	): Promise<StepDraft | null> {
		let human: StepDraft | null = null;
		if (capture.tree) {
			if (!state.refCommit) {
				await keyframe(shadow, sessionId, state, capture.tree, nowMs);
			}
			if (state.pending.length === 0 && state.lastTree && state.lastTree !== capture.tree) {
				const diff = await stepFiles(shadow, state.lastTree, capture.tree);
				await noteStep(shadow, sessionId, state, state.lastTree, capture.tree, diff.files, diff.more === 0, nowMs);
				human = {
					toolUseId: null,
					actor: 'human',
					tool: null,
					summary: 'edits made between agent steps',
					startedAt: isoTime(nowMs),
					treeBefore: state.lastTree,
					treeAfter: capture.tree,
					files: diff.files,
					captured: true,
					...(diff.more ? { moreFiles: diff.more } : {}),
				};
			}
			state.lastTree = capture.tree;
		}
		state.pending.push({ ...call, treeBefore: capture.tree ?? null, reason: capture.reason ?? null });
		return human;
	}

	/**
	 * After a call: its step, from the tree its PreToolUse saw (or the last step's) to the tree now;
	 * and a person's step for files an edit tool does not name, when nothing else ran meanwhile.
	 */
	private async post(
		shadow: ShadowRepo,
		sessionId: string,
		state: TimelineState,
		capture: Capture,
		call: PendingCall,
		nowMs: number,
		agent: string,
		named: string[],
	): Promise<StepDraft[]> {
		const lastBefore = state.lastTree;
		const pending = takePending(state, call.tool, call.toolUseId);
		const before = pending ? pending.treeBefore : state.lastTree;
		const after = capture.tree ?? null;
		let files: StepDraft['files'] = [];
		let more = 0;
		let reason = pending?.reason ?? capture.reason ?? (before ? null : 'no capture before the call');
		if (after) {
			if (before) {
				try {
					({ files, more } = await stepFiles(shadow, before, after));
				} catch (error) {
					reason = `the step's files could not be listed: ${(error as Error).message}`;
				}
			}
		}
		state.lastTree = after;
		// Alone means: no other call open now, and none captured since this one's PreToolUse.
		const alone = !!pending && state.pending.length === 0 && lastBefore === before;
		if (before && after && !reason && alone && named.length > 0 && more === 0) {
			const { agent: own, others } = splitByNamed(files, named);
			if (others.length > 0) {
				const middle = await treeWithPaths(
					shadow,
					before,
					after,
					own.map((f) => f.path),
				);
				await noteStep(shadow, sessionId, state, before, middle, own, true, nowMs);
				await noteStep(shadow, sessionId, state, middle, after, others, true, nowMs);
				const person: StepDraft = {
					toolUseId: null,
					actor: 'human',
					tool: null,
					summary: `edits made while ${call.tool} ran, to files it does not name`,
					startedAt: call.startedAt,
					treeBefore: middle,
					treeAfter: after,
					files: others,
					captured: true,
				};
				return [agentDraft(pending ?? call, agent, before, middle, own, 0, null), person];
			}
		}
		await noteStep(shadow, sessionId, state, reason ? null : before, after, files, more === 0, nowMs);
		return [agentDraft(pending ?? call, agent, before, after, files, more, reason)];
	}

	private async append(sessionId: string, draft: StepDraft, nowMs: number): Promise<void> {
		const machine = machineIdentity(this.ctx.workspaceRoot);
		await this.ctx.store.write((db) => {
			const { captured, ...rest } = draft;
			// `captured` is stored only when false: readers take its absence as true (docs/records.md).
			const body: Omit<TimelineStep, 'captured'> & { captured?: false } = {
				step: countOf(db, sessionId, stepKind) + 1,
				turn: countOf(db, sessionId, promptKind),
				...rest,
				...(captured ? {} : { captured: false as const }),
			};
			appendSharedEvent(db, machine, nowMs, {
				kind: stepKind,
				subject: sessionId,
				sessionId,
				actor: draft.actor === 'human' ? 'human' : `agent:${draft.agent ?? 'unknown'}`,
				body: { ...body },
			});
		});
	}
}

/** The files the agent's steps among `drafts` changed, each once. */
function agentFiles(drafts: readonly StepDraft[]): string[] {
	return [...new Set(drafts.filter((d) => d.actor === 'agent').flatMap((d) => d.files.map((f) => f.path)))];
}

function agentDraft(
	call: PendingCall,
	agent: string,
	before: string | null,
	after: string | null,
	files: StepDraft['files'],
	more: number,
	reason: string | null,
): StepDraft {
	const captured = !!before && !!after && !reason;
	return {
		toolUseId: call.toolUseId,
		actor: 'agent',
		agent,
		tool: call.tool,
		summary: call.summary,
		startedAt: call.startedAt,
		treeBefore: before,
		treeAfter: after,
		files,
		captured,
		...(captured ? {} : { reason: reason ?? 'not captured' }),
		...(more ? { moreFiles: more } : {}),
	};
}

function countOf(db: BatonDb, sessionId: string, kind: string): number {
	return (
		db
			.select({ n: count() })
			.from(sharedEvents)
			.where(and(eq(sharedEvents.sessionId, sessionId), eq(sharedEvents.kind, kind)))
			.get()?.n ?? 0
	);
}
