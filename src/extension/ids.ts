/**
 * Every command, view and context key Baton contributes. Pure (no `vscode` import), so a unit test
 * can check it against package.json in both directions.
 */
export const CommandIds = {
	startSession: 'baton.session.start',
	endSession: 'baton.session.end',
	suspendSession: 'baton.session.suspend',
	resumeSession: 'baton.session.resume',
	renameSession: 'baton.session.rename',
	switchSession: 'baton.session.switch',
	showBriefing: 'baton.briefing.show',
	showSessionDetails: 'baton.session.showDetails',
	showMoreSessionGroups: 'baton.sessionChains.showMore',
	recordDecision: 'baton.decision.record',
	addTask: 'baton.task.add',
	focusTask: 'baton.task.focus',
	cleanUpSessions: 'baton.session.cleanup',
	showChainGraph: 'baton.chainGraph.show',
	initWorkspace: 'baton.workspace.init',
	refresh: 'baton.sessions.refresh',
	showLog: 'baton.showLog',
	sessionActions: 'baton.statusBar.actions',
	replaySession: 'baton.replaySession',
	/** A quick pick over every session's records (docs/search.md); `(text?)` fills it in. */
	searchSessions: 'baton.search.sessions',
	syncNow: 'baton.sync.now',
	syncActions: 'baton.sync.actions',
	syncEnable: 'baton.sync.enable',
	syncDisable: 'baton.sync.disable',
	syncRetract: 'baton.sync.retract',
	createCheckpoint: 'baton.checkpoint.create',
	compareCheckpoints: 'baton.checkpoint.compare',
	rollbackCheckpoint: 'baton.checkpoint.rollback',
	approveCheckpoint: 'baton.checkpoint.approve',
	rejectCheckpoint: 'baton.checkpoint.reject',
	tagCheckpoint: 'baton.checkpoint.tag',
	/** Opens one file of a comparison in VS Code's diff editor: `{ from, to?, path }`. */
	diffCheckpointFile: 'baton.checkpoint.diffFile',
	/** `Baton: Import…` — CLEO, JSON session files, Beads: `{ format?, path?, confirmed? }`. */
	importData: 'baton.import',
	/** `Baton: Import Agent History…` — every agent's own sessions of this folder: `{ agents?, dryRun? }`. */
	importAgentHistory: 'baton.importAgentHistory',
	/** `Baton: Rebuild Session Index` — `baton doctor --reindex`: the transcript index rebuilt from the archive. */
	rebuildSessionIndex: 'baton.rebuildSessionIndex',
	/** `Baton: Export…` — a session or its chain as JSON files: `{ sessionId?, chain?, out? }` or a tree row. */
	exportSessions: 'baton.export',
	toggleAgentBlame: 'baton.toggleAgentBlame',
	/** A session's handoff or briefing as a read-only markdown view: `{ id?, kind?, preview? }` or a tree row. */
	showMarkdown: 'baton.session.showMarkdown',
	connectClaude: 'baton.agent.connectClaude',
	connectCopilot: 'baton.agent.connectCopilot',
	connectCline: 'baton.agent.connectCline',
	connectCodex: 'baton.agent.connectCodex',
	connectGemini: 'baton.agent.connectGemini',
	disconnectAgent: 'baton.agent.disconnect',
	syncTranscripts: 'baton.transcripts.sync',
	/** Opens an archived transcript's rendering: `{ id }` or a Transcripts row. */
	openTranscript: 'baton.transcript.open',
	summarizeSession: 'baton.session.summarizeWithLanguageModel',
	linkIssue: 'baton.issue.link',
	/** `{ channel? }`: a quick pick of channels unless one is given; returns the delivery result. */
	sendTestNotification: 'baton.notifications.sendTest',
	/** `{ name?, value? }`: a pick over the engine's secret names, then a password box. */
	storeSecret: 'baton.secrets.store',
	clearSecret: 'baton.secrets.clear',
	/** The status bar's click: reveal the first agent session waiting for you in the Agents view and open what it waits on. */
	showWaitingAgent: 'baton.agents.showWaiting',
	/** A row of the Agents view: its checkpoint's review, else its session's details. */
	openAgent: 'baton.agents.open',
} as const;
export type CommandId = (typeof CommandIds)[keyof typeof CommandIds];

export const ViewIds = {
	container: 'baton',
	sessionChains: 'baton.sessionChains',
	checkpoints: 'baton.checkpoints',
	pendingApprovals: 'baton.pendingApprovals',
	transcripts: 'baton.transcripts',
	agents: 'baton.agents',
} as const;

/** Readable renderings of archived agent transcripts (markdown, read through the backend). */
export const transcriptScheme = 'baton-transcript';

/** The MCP server definition provider (package.json `contributes.mcpServerDefinitionProviders`). */
export const mcpProviderId = 'baton.mcp';

/** Documents of files as they were at a checkpoint (the left side of checkpoint diffs). */
export const checkpointScheme = 'baton-checkpoint';
/** Read-only markdown views of handoffs and briefings (never read back). */
export const markdownScheme = 'baton-markdown';

/** Context keys set by the extension for `when` clauses. */
export const ContextKeys = {
	initialized: 'baton.initialized',
	hasSessions: 'baton.hasSessions',
	hasActiveSession: 'baton.hasActiveSession',
	hasResumableSession: 'baton.hasResumableSession',
	hasStaleCandidates: 'baton.hasStaleCandidates',
	hasCheckpoints: 'baton.hasCheckpoints',
	hasPendingApprovals: 'baton.hasPendingApprovals',
	hasWaitingAgents: 'baton.hasWaitingAgents',
} as const;

export const outputChannelName = 'Baton';
export const configSection = 'baton';

/** The engine's default snapshot excludes, mirrored (the extension may not import the engine; a test keeps them equal). */
export const defaultCheckpointExcludes = [
	'node_modules/',
	'dist/',
	'out/',
	'build/',
	'target/',
	'.next/',
	'__pycache__/',
	'.venv/',
	'venv/',
	'.mypy_cache/',
	'.pytest_cache/',
	'.gradle/',
	'.turbo/',
	'coverage/',
];
