/**
 * What a hook does (docs/architecture.md §6). Pure logic over the engine: the CLI
 * reads the payload, opens the engine and prints `stdout`.
 *
 * - session start: the agent id's durable session, else the active one of this agent kind in the
 *   configured scope, else a new one; the agent id becomes an alias; the briefing diet is the answer.
 * - resume / clear / compact: the new agent id becomes an alias of the same durable session, found by
 *   its alias, a previous id the payload names, the earlier ids the transcript starts with, or the
 *   agent kind's most recently active session. Bootstrap transcripts are ignored.
 * - stop (Claude: every turn), user prompt: activity, transcript excerpts, cost, periodic checkpoint.
 *   Never an end.
 * - pre-compact: a summary note and the `compact` checkpoint hook point.
 * - session end: end (or suspend, or keep) with a handoff note built from the transcript.
 * - pre-tool-use: "ask" while a checkpoint awaits a critical approval, otherwise silence.
 * - post-tool-use: files touched by edit tools, kept in the transcript index.
 * Every step after the session is known is best effort: it logs and carries on, so the hook answers.
 */
import { and, eq } from 'drizzle-orm';
import type { HookEngine } from './hookEngine';
import type { Logger } from '../ports';
import type { Briefing } from '../storage/jsonShapes';
import type { Session } from '../storage/model';
import type { TimelineHooks } from '../timeline/timelineRecorder';
import { isCapturedTool } from '../timeline/timelineTools';
import { sessionAliases } from '../storage/schema';
import { AgentSessions } from './agentSessions';
import type { AgentSettings } from '../agentConfig/agentSettings';
import { renderBriefingDiet } from './briefingDiet';
import { isBootstrapTranscript } from '../transcripts/claudeProjects';
import { isShellTool, workspaceRelative } from '../transcripts/editTools';
import { agentLabel } from '../agentKinds';
import type { HookEvent } from '../hookEvent';
import { askOutput, contextOutput } from './hookResponses';
import { recordBoardSignal, signalSession } from './boardSignals';
import { digestLines, preCompactNote, sessionEndNote } from '../memory/sessionSummary';
import type { SessionLinker, TranscriptArchive } from '../transcripts/transcriptArchive';

export type CheckpointTrigger = 'compact' | 'periodic';

export interface HookOptions {
	actor: string;
	settings: AgentSettings;
	archive: TranscriptArchive;
	log: Logger;
	/** Why a checkpoint of this session awaits a critical approval, or null (the checkpoint feature provides it). */
	awaitingApproval?: (sessionId: string) => Promise<string | null>;
	/** Called for the `compact` checkpoint before a compaction and the `periodic` one after a turn. */
	onCheckpoint?: (trigger: CheckpointTrigger, sessionId: string) => Promise<void>;
	/** The session's estimated cost and error count so far, from its transcripts (checkpoint escalation). */
	onMetrics?: (sessionId: string, metrics: { costUsd: number; errorCount: number }) => Promise<void>;
	/** Turn capture: prompts and file-changing tool calls on the session's timeline. */
	timeline?: TimelineHooks;
}

type HookAction =
	| 'started'
	| 'joined'
	| 'continued'
	| 'aliased'
	| 'briefed'
	| 'touched'
	| 'resumed'
	| 'noted'
	| 'ended'
	| 'suspended'
	| 'kept'
	| 'ask'
	| 'allowed'
	| 'filesRecorded'
	| 'captured'
	| 'signalled'
	| 'ignored';

interface HookResult {
	/** Exactly what to print on stdout; '' for nothing. */
	stdout: string;
	action: HookAction;
	/** The durable session the event was applied to. */
	sessionId: string | null;
	/** How the session was found (`alias`, `previous`, `transcript`, `recent`, `scope`, `new`) or why nothing was done. */
	detail: string | null;
}

export async function runHook(engine: HookEngine, event: HookEvent, options: HookOptions): Promise<HookResult> {
	const result = await dispatch(engine, event, options);
	// A tool call that was neither gated nor captured found no session of its own: the board still hears it.
	const sessionId = result.sessionId ?? (engine.board && event.kind !== 'unknown' ? await signalSession(engine, event) : null);
	await recordBoardSignal(engine.board, event, sessionId, options.log);
	return result;
}

async function dispatch(engine: HookEngine, event: HookEvent, options: HookOptions): Promise<HookResult> {
	const hook = new HookRun(engine, event, options);
	switch (event.kind) {
		case 'sessionStart':
		case 'resume':
		case 'clear':
		case 'compact':
			return hook.start();
		case 'stop':
		case 'userPrompt':
		case 'subagentStop':
			return hook.activity();
		case 'preCompact':
			return hook.preCompact();
		case 'sessionEnd':
			return hook.end();
		case 'preToolUse':
			return hook.preToolUse();
		case 'postToolUse':
			return hook.postToolUse();
		case 'notification':
		case 'permissionRequest':
		case 'stopFailure':
		case 'error': {
			const sessionId = await signalSession(engine, event);
			return sessionId ? { stdout: '', action: 'signalled', sessionId, detail: event.eventName } : ignored('no durable session');
		}
		case 'unknown':
			options.log.warn(`kept nothing of an unfamiliar event ${event.eventName} from ${event.agent}: answered it and carried on`);
			return ignored(`unknown event ${event.eventName}`);
	}
}

function ignored(detail: string): HookResult {
	return { stdout: '', action: 'ignored', sessionId: null, detail };
}

/** The agent-session → durable-session lookup the archive links transcripts with. */
export function aliasLinker(engine: HookEngine): SessionLinker {
	return async (agent, id) => (await engine.briefings.byAlias(agent, id))?.id ?? null;
}

class HookRun {
	private readonly label: string;
	private readonly sessions: AgentSessions;

	constructor(
		private readonly engine: HookEngine,
		private readonly event: HookEvent,
		private readonly options: HookOptions,
	) {
		this.label = agentLabel(event.agent);
		this.sessions = new AgentSessions(engine, event, options);
	}

	async start(): Promise<HookResult> {
		if (this.isBootstrap()) {
			return ignored('bootstrap transcript (only file-history snapshots)');
		}
		const continued = this.event.kind !== 'sessionStart';
		const found = await this.sessions.resolve(continued);
		let session: Session | null;
		let briefing: Briefing | null = null;
		let action: HookAction;
		let detail: string;
		let notice: string | undefined;
		const activated = found ? await this.sessions.activate(found.session) : null;
		if (found && activated) {
			session = activated;
			await this.sessions.alias(found);
			action = found.via === 'alias' ? 'continued' : 'aliased';
			detail = found.via;
		} else {
			const started = await this.sessions.findOrStart();
			({ session, briefing } = started);
			action = started.action;
			detail = started.detail;
			notice = started.notice;
		}
		if (session) {
			await this.syncTranscript(session.id);
		}
		briefing ??= await this.engine.briefings.briefing(session ? { sessionId: session.id } : { scope: await this.sessions.scope() });
		const lead = session ? digestLines(this.options.archive.digest(session.id)) : [];
		const diet = renderBriefingDiet(
			briefing,
			this.options.settings.briefingBudget,
			lead.length ? { lead: { title: 'This durable session so far:', lines: lead } } : {},
		);
		const text = notice ? `${notice}\n\n${diet}` : diet;
		return { stdout: contextOutput(this.event.agent, text, this.event.host), action: session ? action : 'briefed', sessionId: session?.id ?? null, detail };
	}

	async activity(): Promise<HookResult> {
		const found = await this.sessions.resolve(true);
		let session: Session | null;
		let action: HookAction = 'touched';
		if (found) {
			await this.sessions.alias(found);
			session = found.session;
		} else {
			if (this.isBootstrap()) {
				return ignored('bootstrap transcript (only file-history snapshots)');
			}
			const started = await this.sessions.findOrStart();
			session = started.session;
			action = started.action;
		}
		if (!session) {
			return ignored('no durable session could be found or started');
		}
		// A new prompt in a conversation whose session was ended (Copilot ends it on Stop) or suspended
		// means the work goes on there; a turn's stop on a suspended or orphaned session does too.
		const wake = session.status === 'suspended' || session.status === 'orphaned' || (session.status === 'ended' && this.event.kind === 'userPrompt');
		const resumed = wake ? await this.sessions.activate(session) : null;
		if (resumed) {
			action = 'resumed';
		} else {
			await this.engine.sessions.touch({ id: session.id, actor: this.options.actor });
		}
		const current: Session = resumed ?? session;
		const id = current.id;
		const prompt = this.event.kind === 'userPrompt' ? this.event.prompt : null;
		if (prompt) {
			await this.safely('timeline prompt', () => this.options.timeline?.onPrompt(id, prompt));
			await this.safely('session name', () => this.engine.sessions.nameAfterPrompt({ id, prompt, actor: this.options.actor }));
			// `fix #12`, `ABC-123`, issue URLs: local pattern matching and at most one write, no network.
			await this.safely('issue links', () =>
				this.engine.trackers.linkFromText({ sessionId: id, text: prompt, source: 'prompt', actor: this.options.actor }),
			);
		}
		if ((await this.syncTranscript(id, this.options.settings.hookParseBytes)) > 0) {
			await this.reportMetrics(id);
		}
		if (this.event.kind === 'stop') {
			await this.safely('timeline turn end', async () => this.recordStepFiles(id, (await this.options.timeline?.onTurnEnd(id, this.event)) ?? []));
		}
		if (this.event.kind === 'stop' && this.options.settings.periodicCheckpoints && current.status === 'active') {
			await this.safely('periodic checkpoint', () => this.options.onCheckpoint?.('periodic', id));
		}
		return { stdout: '', action, sessionId: id, detail: found?.via ?? null };
	}

	async preCompact(): Promise<HookResult> {
		const found = await this.sessions.resolve(true);
		const session = found?.session ?? (await this.sessions.findOrStart()).session;
		if (!session) {
			return ignored('no durable session could be found or started');
		}
		if (found) {
			await this.sessions.alias(found);
		}
		await this.syncTranscript(session.id);
		const note = preCompactNote({ trigger: this.event.trigger, digest: this.options.archive.digest(session.id) });
		await this.safely('pre-compact note', () => this.options.archive.addNote(session.id, 'pre-compact', note));
		await this.safely('compact checkpoint', () => this.options.onCheckpoint?.('compact', session.id));
		return { stdout: '', action: 'noted', sessionId: session.id, detail: found?.via ?? null };
	}

	async end(): Promise<HookResult> {
		// Never guess here: ending someone else's session is worse than leaving one for gc.
		const found = await this.sessions.resolve(false);
		if (!found) {
			return ignored('no durable session has this agent session id');
		}
		const session = found.session;
		await this.sessions.alias(found);
		await this.safely('timeline turn end', async () =>
			this.recordStepFiles(session.id, (await this.options.timeline?.onTurnEnd(session.id, this.event)) ?? []),
		);
		await this.syncTranscript(session.id);
		const reason = this.event.reason;
		const conversationSwitch = this.event.agent === 'claude-code' && (reason === 'clear' || reason === 'resume');
		let mode = conversationSwitch ? 'keep' : this.options.settings.onSessionEnd;
		if (this.event.agent === 'cline' && reason === 'cancel' && mode === 'end') {
			// A cancelled Cline task can be resumed from its history: keep the session resumable.
			mode = 'suspend';
		}
		await this.reportMetrics(session.id);
		if (session.status !== 'active') {
			return { stdout: '', action: 'kept', sessionId: session.id, detail: `already ${session.status}` };
		}
		const note = sessionEndNote({ agentLabel: this.label, reason, digest: this.options.archive.digest(session.id) });
		if (mode === 'end') {
			await this.engine.sessions.end({ id: session.id, note, actor: this.options.actor });
			return { stdout: '', action: 'ended', sessionId: session.id, detail: reason };
		}
		if (mode === 'suspend') {
			await this.safely('session-end note', () => this.options.archive.addNote(session.id, 'session-end', note));
			await this.engine.sessions.suspend({ id: session.id, actor: this.options.actor });
			return { stdout: '', action: 'suspended', sessionId: session.id, detail: reason };
		}
		await this.engine.sessions.touch({ id: session.id, actor: this.options.actor });
		return { stdout: '', action: 'kept', sessionId: session.id, detail: conversationSwitch ? `conversation switch (${reason})` : reason };
	}

	async preToolUse(): Promise<HookResult> {
		const result = await this.approvalGate();
		await this.captureTool('pre', result.sessionId);
		return result;
	}

	/** Turn capture around a tool call, when the timeline is on; never in the way of the answer. Returns the session captured for. */
	private async captureTool(phase: 'pre' | 'post', sessionId: string | null): Promise<string | null> {
		const timeline = this.options.timeline;
		if (!timeline || !this.event.tool || !isCapturedTool(this.event.tool.name)) {
			return null;
		}
		const id = sessionId ?? (await this.sessions.resolve(true))?.session.id;
		if (!id) {
			return null;
		}
		await this.safely('timeline capture', async () => this.recordStepFiles(id, await timeline.onToolUse(phase, id, this.event)));
		return id;
	}

	/**
	 * The files the timeline saw a step change are the session's changed files (a shell command's
	 * edits, a failed call's), as an edit tool's named files are: the handoff note, the transcript
	 * summary and the resume briefing read them from there.
	 */
	private async recordStepFiles(sessionId: string, files: readonly string[]): Promise<void> {
		if (files.length > 0) {
			await this.options.archive.recordFilesTouched(sessionId, [...files]);
		}
	}

	private async approvalGate(): Promise<HookResult> {
		const tool = this.event.tool;
		const gated = tool && (tool.edit || isShellTool(tool.name));
		if (!gated || !this.options.settings.approvalGate || !this.options.awaitingApproval) {
			return { stdout: '', action: 'allowed', sessionId: null, detail: null };
		}
		const found = await this.sessions.resolve(true);
		if (!found) {
			return { stdout: '', action: 'allowed', sessionId: null, detail: 'no durable session' };
		}
		const reason = await this.options.awaitingApproval(found.session.id);
		if (!reason) {
			return { stdout: '', action: 'allowed', sessionId: found.session.id, detail: null };
		}
		return { stdout: askOutput(this.event.agent, reason), action: 'ask', sessionId: found.session.id, detail: reason };
	}

	async postToolUse(): Promise<HookResult> {
		const result = await this.recordFilesTouched();
		const captured = await this.captureTool('post', result.sessionId);
		// A shell or MCP call is no edit, but its step is on the timeline now: say so in the hook log.
		return result.action === 'ignored' && captured ? { ...result, action: 'captured', sessionId: captured, detail: this.event.tool?.name ?? null } : result;
	}

	private async recordFilesTouched(): Promise<HookResult> {
		const tool = this.event.tool;
		if (!tool?.edit || tool.filesTouched.length === 0) {
			return ignored(tool ? `not an edit (${tool.name})` : 'no tool');
		}
		const found = await this.sessions.resolve(true);
		if (!found) {
			return ignored('no durable session');
		}
		await this.sessions.alias(found);
		const root = this.engine.ctx.workspaceRoot;
		const files = tool.filesTouched.map((f) => workspaceRelative(f, root, this.event.cwd));
		await this.options.archive.recordFilesTouched(found.session.id, files);
		return { stdout: '', action: 'filesRecorded', sessionId: found.session.id, detail: files.join(', ') };
	}

	private isBootstrap(): boolean {
		return this.event.agent === 'claude-code' && !!this.event.transcriptPath && isBootstrapTranscript(this.event.transcriptPath);
	}

	/**
	 * Archives the session's new transcript bytes; returns how many were parsed. Every hook reads
	 * within the `hookParseBytes` budget (a huge transcript is taken up over several calls), so no
	 * event waits on parsing all of it.
	 */
	private async syncTranscript(sessionId: string, maxBytes: number = this.options.settings.hookParseBytes): Promise<number> {
		// Claude Code's, Copilot CLI's, Codex's and Gemini CLI's transcripts are read (agentTranscripts.ts); Cline's are not yet.
		const agent = this.event.agent;
		if (agent === 'cline' || !this.options.settings.archiveTranscripts) {
			return 0;
		}
		let parsed = 0;
		await this.safely('transcript sync', async () => {
			const aliases = await this.engine.store.read((db) =>
				db
					.select({ alias: sessionAliases.alias })
					.from(sessionAliases)
					.where(and(eq(sessionAliases.sessionId, sessionId), eq(sessionAliases.agent, agent)))
					.all()
					.map((a) => a.alias),
			);
			const path = this.event.transcriptPath;
			const report = await this.options.archive.sync({
				link: aliasLinker(this.engine),
				agent,
				// The hook's own id first: another agent's transcript (Codex, Gemini CLI) is named by it.
				agentSessionIds: [...new Set([this.event.agentSessionId, ...aliases])],
				sessionId,
				sources: path ? [path] : [],
				...(maxBytes ? { maxBytes } : {}),
			});
			parsed = report.parsedBytes;
		});
		return parsed;
	}

	private async reportMetrics(sessionId: string): Promise<void> {
		if (!this.options.onMetrics) {
			return;
		}
		const digest = this.options.archive.digest(sessionId);
		if (digest.transcripts > 0) {
			await this.safely('metrics', () => this.options.onMetrics?.(sessionId, { costUsd: digest.costUsd, errorCount: digest.errors }));
		}
	}

	private async safely(what: string, fn: () => Promise<unknown> | undefined): Promise<void> {
		try {
			await fn();
		} catch (error) {
			this.options.log.warn(`${what} failed for ${this.event.agent} ${this.event.agentSessionId}: ${(error as Error).message}`);
		}
	}
}
