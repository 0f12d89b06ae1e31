/**
 * The JSON-RPC contract between the extension (client) and the backend server. Each method is
 * declared once here and imported by both ends; `noun/verb` requests, `noun/didChange` notifications.
 */
import { NotificationType, RequestType } from 'vscode-jsonrpc';
import type { ConnectAgentParams, ConnectAgentResult, McpLaunchDto, TranscriptDto, TranscriptSyncResultDto } from './agentDto';
import type { ApprovalStatusDto, CheckpointDto, ComparisonDto, RollbackResultDto } from './checkpointDto';
import type { NotificationChannelDto, NotificationShowDto, NotificationTestResultDto, SecretNameDto } from './notificationDto';
import type {
	AgentHistoryParams,
	AgentHistoryReportDto,
	ReindexParams,
	ReindexReportDto,
	ExportParams,
	ExportResultDto,
	ImportParams,
	ImportReportDto,
	MarkdownKindDto,
} from './interopDto';
import type {
	BriefingDto,
	DebriefDto,
	DecisionDto,
	ForkNodeDto,
	HandoffDto,
	IssueLinkDto,
	ScopeChainsDto,
	SessionDetailsDto,
	SessionDto,
	SessionStatusDto,
	SessionSummaryDto,
	TaskDto,
} from './dto';

/** The `data` of every ResponseError the server sends: the engine's stable error code. */
export interface RpcErrorData {
	code: string;
}

export interface WorkspaceStatus {
	initialized: boolean;
	workspaceRoot: string;
	/** The journal sequence: changes whenever data changes. */
	sequence: number;
	/** The sessions active on this machine (a teammate’s, pulled through sync, runs on its own). */
	active: SessionDto[];
	counts: Record<SessionStatusDto, number>;
	/** Editor-facing limits and defaults from the configuration. */
	config: { orphanAfterMs: number; autoEndAfterMs: number; maxConcurrentSessions: number };
	/** Checkpoints awaiting review (the status bar counts them; new ones prompt). */
	pendingCheckpoints: CheckpointDto[];
}

export interface StartSessionParams {
	name: string;
	scope?: string;
	agent?: string;
	currentTask?: string;
	parentSessionId?: string;
}
export interface StartSessionResult {
	session: SessionDto;
	briefing: BriefingDto;
	handoff: HandoffDto | null;
	warnings: string[];
}
export interface EndSessionParams {
	id?: string;
	note?: string;
	nextAction?: string;
	blockers?: string[];
}
export interface EndSessionResult {
	session: SessionDto;
	handoff: HandoffDto;
	debrief: DebriefDto;
	warnings: string[];
}

/** Extension → server: what the workspace holds (initialised, active sessions, counts). */
export const workspaceStatus = new RequestType<void, WorkspaceStatus, RpcErrorData>('workspace/status');
/** Extension → server: create `.baton/` in the workspace. */
export const workspaceInit = new RequestType<void, WorkspaceStatus, RpcErrorData>('workspace/init');
/** Extension → server: every session grouped by scope, each group in chain order (the tree view). */
export const sessionOverview = new RequestType<void, { chains: ScopeChainsDto[] }, RpcErrorData>('session/overview');
/** Extension → server: sessions, newest first. */
export const sessionList = new RequestType<{ status?: SessionStatusDto; scope?: string; limit?: number }, { sessions: SessionDto[] }, RpcErrorData>(
	'session/list',
);
/** Extension → server: one session with handoff, chain, fork tree and decisions. */
export const sessionDetails = new RequestType<{ id: string }, SessionDetailsDto, RpcErrorData>('session/details');
/** Extension → server: start a session; returns its briefing and the predecessor's handoff. */
export const sessionStart = new RequestType<StartSessionParams, StartSessionResult, RpcErrorData>('session/start');
/** Extension → server: end a session with a handoff. */
export const sessionEnd = new RequestType<EndSessionParams, EndSessionResult, RpcErrorData>('session/end');
/** Extension → server: suspend an active session. */
export const sessionSuspend = new RequestType<{ id: string }, { session: SessionDto }, RpcErrorData>('session/suspend');
export const sessionRename = new RequestType<{ id: string; name: string }, { session: SessionDto }, RpcErrorData>('session/rename');
/** Extension → server: resume a suspended, ended or orphaned session. */
export const sessionResume = new RequestType<{ id: string }, { session: SessionDto }, RpcErrorData>('session/resume');
/** Extension → server: suspend the current session and activate another, atomically. */
export const sessionSwitch = new RequestType<{ id: string; from?: string }, { session: SessionDto; suspended: SessionDto | null }, RpcErrorData>(
	'session/switch',
);
/** Extension → server: orphan idle sessions and end long-idle ones. */
export const sessionGc = new RequestType<{ orphanAfterMs?: number; endAfterMs?: number }, { orphaned: SessionDto[]; ended: SessionDto[] }, RpcErrorData>(
	'session/gc',
);
/** Extension → server: the fork tree a session belongs to. */
export const sessionForkTree = new RequestType<{ id: string }, { tree: ForkNodeDto }, RpcErrorData>('session/forkTree');
/** Extension → server: a session's deterministic summary (progress, files, decisions, failures, blockers, tokens, cost) and its markdown. */
export const sessionSummary = new RequestType<{ id: string }, { summary: SessionSummaryDto; markdown: string }, RpcErrorData>('session/summary');
/** Extension → server: the briefing for a session, the active session, or a scope. */
export const briefingGet = new RequestType<{ sessionId?: string; scope?: string }, { briefing: BriefingDto }, RpcErrorData>('briefing/get');
/** Extension → server: record a decision or assumption in a session. */
export const decisionRecord = new RequestType<
	{ text: string; rationale?: string; kind?: 'decision' | 'assumption'; sessionId?: string },
	{ decision: DecisionDto },
	RpcErrorData
>('decision/record');
/** Extension → server: every task. */
export const taskList = new RequestType<void, { tasks: TaskDto[] }, RpcErrorData>('task/list');
/** Extension → server: add a task. */
export const taskAdd = new RequestType<
	{ title: string; type?: TaskDto['type']; priority?: TaskDto['priority']; parentId?: string; dependsOn?: string[] },
	{ task: TaskDto },
	RpcErrorData
>('task/add');
/** Extension → server: make a task the current task of a session. */
export const taskFocus = new RequestType<{ id: string; sessionId?: string }, { task: TaskDto; sessionId: string; warnings: string[] }, RpcErrorData>(
	'task/focus',
);

/** Extension → server: link a session to a tracker issue (`github:123`, `#123`, `ABC-123`, `bd-a1b2`, an issue URL). */
export const issueLink = new RequestType<{ sessionId: string; ref: string }, { link: IssueLinkDto; added: boolean }, RpcErrorData>('issue/link');

/** Server → extension: data changed (its own writes or another process's); views refresh. */
export const dataDidChange = new NotificationType<{ sequence: number; external: boolean }>('data/didChange');
/** Server → extension: a log line for the Baton output channel. */
/** `debug`: a line per command or hook call, in the output only at VS Code's Debug log level (Developer: Set Log Level…). */
export const serverLog = new NotificationType<{ level: 'debug' | 'info' | 'warn' | 'error'; message: string }>('server/log');

/** Extension → server: checkpoints, newest first (by session, by approval status). */
export const checkpointList = new RequestType<
	{ sessionId?: string; status?: ApprovalStatusDto; limit?: number },
	{ checkpoints: CheckpointDto[] },
	RpcErrorData
>('checkpoint/list');
/** Extension → server: create a checkpoint now; progress arrives as `checkpoint/progress`. */
export const checkpointCreate = new RequestType<
	{ trigger?: string; message?: string; tags?: string[]; sessionId?: string },
	{ checkpoint: CheckpointDto },
	RpcErrorData
>('checkpoint/create');
/** Extension → server: approve a checkpoint that awaits review. */
export const checkpointApprove = new RequestType<{ id: string; reason?: string }, { checkpoint: CheckpointDto }, RpcErrorData>('checkpoint/approve');
/** Extension → server: reject a checkpoint. */
export const checkpointReject = new RequestType<{ id: string; reason?: string }, { checkpoint: CheckpointDto }, RpcErrorData>('checkpoint/reject');
/** Extension → server: add a tag. */
export const checkpointTag = new RequestType<{ id: string; tag: string }, { checkpoint: CheckpointDto }, RpcErrorData>('checkpoint/tag');
/** Extension → server: files and environment between two checkpoints, or a checkpoint and the working tree. */
export const checkpointDiff = new RequestType<{ from: string; to?: string }, ComparisonDto, RpcErrorData>('checkpoint/diff');
/** What checkpoint `id` changed: the checkpoint before it → it (the first checkpoint: nothing → it, `from` null). */
export const checkpointChanges = new RequestType<{ id: string }, ComparisonDto, RpcErrorData>('checkpoint/changes');
/** Extension → server: a file's text at a checkpoint (null when absent or binary). */
export const checkpointFile = new RequestType<{ id: string; path: string }, { text: string | null; binary: boolean }, RpcErrorData>('checkpoint/file');
/** Extension → server: roll the workspace back to a checkpoint (safety checkpoint first, never git history). */
/** Extension → server: where rejecting a checkpoint offers to go back (the last approved one before it; the backend's notice names the same). */
export const checkpointRollbackTarget = new RequestType<{ id: string }, { checkpoint: CheckpointDto; target: CheckpointDto | null }, RpcErrorData>(
	'checkpoint/rollbackTarget',
);
export const checkpointRollback = new RequestType<{ id: string; force?: boolean }, RollbackResultDto, RpcErrorData>('checkpoint/rollback');
/** Server → extension: progress of a long snapshot (the first one of a workspace takes seconds). */
export const checkpointProgress = new NotificationType<{ phase: string; done: number; total: number; message: string | null }>('checkpoint/progress');

/**
 * Server → extension: a secret from VS Code's SecretStorage (`github.token`, `smtp.password`, …;
 * the names are the engine's `secretNames`). `value` is null when none is stored. The server keeps
 * no copy beyond the call that needs it.
 */
export const secretGet = new RequestType<{ name: string }, { value: string | null }, RpcErrorData>('secret/get');

/** Extension → server: read an import source and report what it would add, and every bad record (writes nothing). */
export const importPreview = new RequestType<ImportParams, ImportReportDto, RpcErrorData>('import/preview');
/** Extension → server: import a source in one transaction; a report with errors means nothing was written. */
export const importRun = new RequestType<ImportParams, ImportReportDto, RpcErrorData>('import/run');
/** Extension → server: read the agents' own history of this workspace into Baton (a dry run writes nothing). */
export const agentHistoryImport = new RequestType<AgentHistoryParams, AgentHistoryReportDto, RpcErrorData>('agentHistory/import');
/** Extension → server: the transcript index rebuilt from the archive and the agents' files still on disk (`baton doctor --reindex`). */
export const agentHistoryReindex = new RequestType<ReindexParams, ReindexReportDto, RpcErrorData>('agentHistory/reindex');
/** Extension → server: write a session, or the chain containing it, as JSON files (index.json + one per session). */
export const exportRun = new RequestType<ExportParams, ExportResultDto, RpcErrorData>('export/run');
/** Extension → server: a session's handoff or briefing rendered as markdown (a view, never read back). */
export const sessionMarkdown = new RequestType<{ id: string; kind: MarkdownKindDto }, { title: string; markdown: string }, RpcErrorData>('session/markdown');
/** Extension → server: write (or remove) an agent's hooks and, asked, its MCP server entry; returns what was written. */
export const agentConnect = new RequestType<ConnectAgentParams, ConnectAgentResult, RpcErrorData>('agent/connect');
/** Extension → server: how to start `baton mcp` for this workspace (VS Code's MCP server definition). */
export const mcpDefinition = new RequestType<void, McpLaunchDto, RpcErrorData>('mcp/definition');
/** Extension → server: the agent transcripts Baton knows, newest activity first. */
export const transcriptList = new RequestType<{ sessionId?: string }, { transcripts: TranscriptDto[] }, RpcErrorData>('transcript/list');
/** Extension → server: one archived transcript, rendered as markdown. */
export const transcriptShow = new RequestType<{ id: string }, { transcript: TranscriptDto; markdown: string }, RpcErrorData>('transcript/show');
/** Extension → server: archive what is new in the workspace's agent transcripts now. */
export const transcriptSync = new RequestType<void, TranscriptSyncResultDto, RpcErrorData>('transcript/sync');
/** Extension → server: the notification channels, whether each is enabled and what it still lacks. */
export const notificationChannels = new RequestType<void, { channels: NotificationChannelDto[] }, RpcErrorData>('notification/channels');
/** Extension → server: send a test notification to one channel now and report how it went. */
export const notificationTest = new RequestType<{ channel: string }, NotificationTestResultDto, RpcErrorData>('notification/test');
/** Server → extension: show a notification in the editor (the `editor` channel). */
export const notificationShow = new NotificationType<NotificationShowDto>('notification/show');
/** Extension → server: every secret Baton can use (names and labels, never values), for “Baton: Store Secret…”. */
export const secretList = new RequestType<void, { secrets: SecretNameDto[] }, RpcErrorData>('secret/list');

/** What a client of the shared per-workspace backend (the daemon) says about itself. */
export interface DaemonHelloParams {
	client: 'cli' | 'hook' | 'editor' | 'probe';
	/** A window's Baton settings (never secrets) and VS Code's version and extensions: the shared backend uses the latest window's. */
	editor?: { config: Record<string, unknown>; hostEnvironment?: { version: string | null; extensions: Record<string, string> } };
}
export interface DaemonHelloResult {
	workspace: string;
	/** Random per daemon run: tells a live daemon from an unrelated process that reused its pid. */
	instance: string;
	pid: number;
	version: string;
}
export interface DaemonStatusResult {
	running: boolean;
	pid: number;
	socket: string;
	/** Seconds since the daemon started. */
	uptime: number;
	/** Connections open now (this one included). */
	clients: number;
}
/** One `baton …` command run inside the daemon with the client's argv, cwd, environment and stdin. */
export interface CliRunParams {
	argv: string[];
	cwd: string;
	env: Record<string, string>;
	/** The client's stdin, read whole (hooks only; commands never read stdin through the daemon). */
	stdin?: string;
	/** A random id per command: recorded with its first write, so a client that falls back never runs it twice. */
	requestId?: string;
	/** A hook call's id (a random one per call): its event is recorded once, live or from the spool (docs/daemon.md). */
	eventId?: string;
}
export interface CliRunResult {
	stdout: string;
	stderr: string;
	exitCode: number;
}

/** Any client → daemon: identify both ends (workspace, instance, pid). */
export const daemonHello = new RequestType<DaemonHelloParams, DaemonHelloResult, RpcErrorData>('daemon/hello');
/** Any client → daemon: whether it runs, since when, how many clients it serves. */
export const daemonStatus = new RequestType<void, DaemonStatusResult, RpcErrorData>('daemon/status');
/** Any client → daemon: shut down now (after answering). */
export const daemonStop = new RequestType<void, { stopping: boolean }, RpcErrorData>('daemon/stop');
/** CLI → daemon: run one command as `baton ARGV` would, return its output and exit code. */
export const cliRun = new RequestType<CliRunParams, CliRunResult, RpcErrorData>('cli/run');
/** Hook client → daemon: run `baton hook ARGV` with the payload on stdin. */
export const hookRun = new RequestType<CliRunParams, CliRunResult, RpcErrorData>('hook/run');
