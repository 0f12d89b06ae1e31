/**
 * Activation: register everything and return at once; the backend starts right after, off the
 * activation path (activation time is logged and exported for the tests).
 */
import * as vscode from 'vscode';
import { clineMcpSettingsPath, registerConnectCommands } from './agents/connectCommands';
import { BatonMcpProvider } from './agents/mcpProvider';
import { registerSummarizeCommand } from './agents/summarizeCommand';
import { registerTranscriptCommands } from './agents/transcriptCommands';
import { TranscriptDocuments, TranscriptsProvider } from './agents/transcriptsView';
import { BatonWorkspace } from './batonWorkspace';
import { registerInteropCommands } from './commands/interopCommands';
import { registerAgentHistoryCommand, scanAgentHistoryOnOpen, type AgentHistoryOutcome } from './commands/agentHistoryCommand';
import { registerRebuildIndexCommand } from './commands/rebuildIndexCommand';
import { MarkdownDocuments } from './commands/markdownDocuments';
import { registerIssueCommands } from './commands/issueCommands';
import { registerSessionCommands } from './commands/sessionCommands';
import { registerWorkspaceCommands } from './commands/workspaceCommands';
import { ApprovalPrompts } from './checkpoints/approvalPrompts';
import { registerCheckpointCommands } from './checkpoints/checkpointCommands';
import { CheckpointDocuments } from './checkpoints/checkpointDocuments';
import { CheckpointsProvider, PendingApprovalsProvider } from './checkpoints/checkpointViews';
import { RejectionOffers } from './checkpoints/rejectionOffer';
import { checkpointScheme, CommandIds, markdownScheme, outputChannelName, transcriptScheme, ViewIds } from './ids';
import { command } from './commands/commandSupport';
import { registerNotificationCommands } from './notifications/notificationCommands';
import { NotificationPresenter } from './notifications/notificationPresenter';
import { AgentBlame, shareMarkdown } from './provenance/agentBlame';
import { ToldHere } from './notifications/toldHere';
import { SessionStatusBar } from './statusBar';
import { SyncController } from './sync/syncController';
import { syncMenuItems, type SyncMenuItem } from './sync/syncMenu';
import { SessionChainsProvider } from './views/sessionChainsProvider';
import { AgentsView } from './agents/agentsView';
import { BatonPanels } from './webviews/batonPanels';
import { registerReplayCommand, ReplayPanel } from './replay/replayPanel';
import { registerSearchCommand } from './search/searchCommand';
import { TimelineDocuments, timelineScheme } from './replay/timelineDocuments';

export interface BatonApi {
	activationMs: number;
	workspace: BatonWorkspace;
	chains: SessionChainsProvider;
	checkpoints: CheckpointsProvider;
	pendingApprovals: PendingApprovalsProvider;
	/** The Agents view and its status bar count. */
	agents: AgentsView;
	transcripts: TranscriptsProvider;
	mcp: BatonMcpProvider;
	/** Where Cline's MCP settings are expected (beside this extension's global storage). */
	clineMcpSettings: string;
	/** The Replay Session panel. */
	replay: ReplayPanel;
	/** Line provenance: hover, Agent Blame annotations, the file's agent share. */
	agentBlame: AgentBlame;
	/** Resolves once the first status has been read from the backend. */
	ready: Promise<unknown>;
	/** The session status bar item (sync state shows in its tooltip). */
	statusBar: SessionStatusBar;
	/** Sync's entries in that item's menu. */
	syncMenu: () => SyncMenuItem[];
	/** The agent-history scan when the window opened (`baton.agentHistory.scanOnOpen`); undefined when off. */
	agentHistoryScan: Promise<AgentHistoryOutcome | undefined>;
}

/** The Session Chains view: its provider, its tree, and the command its "show more" row runs (a click, or Enter on it). */
function sessionChainsView(workspace: BatonWorkspace, log: vscode.LogOutputChannel): { chains: SessionChainsProvider; parts: vscode.Disposable[] } {
	const chains = new SessionChainsProvider(workspace);
	const tree = vscode.window.createTreeView(ViewIds.sessionChains, { treeDataProvider: chains, showCollapseAll: true });
	chains.onDidChangeProblem((problem) => (tree.message = problem));
	return { chains, parts: [chains, tree, command(CommandIds.showMoreSessionGroups, () => chains.showMore(), log)] };
}

export function activate(context: vscode.ExtensionContext): BatonApi {
	const started = performance.now();
	const log = vscode.window.createOutputChannel(outputChannelName, { log: true });
	const workspace = new BatonWorkspace(context.extensionUri, log, context.secrets);
	const { chains, parts: chainParts } = sessionChainsView(workspace, log);
	const panels = new BatonPanels(context.extensionUri, {
		request: (type, params) => workspace.request(type, params),
		onDidChangeData: workspace.onDidChangeData,
		log,
	});
	const checkpoints = new CheckpointsProvider(workspace);
	const pending = new PendingApprovalsProvider(workspace);
	const markdownViews = new MarkdownDocuments(workspace);
	const transcripts = new TranscriptsProvider(workspace);
	const mcp = new BatonMcpProvider(workspace, String((context.extension.packageJSON as { version?: string }).version ?? '0'));
	const approvalPrompts = new ApprovalPrompts(workspace);
	const replay = new ReplayPanel(context.extensionUri, workspace);
	const statusBar = new SessionStatusBar(workspace);
	const agents = new AgentsView(workspace);
	const agentBlame = new AgentBlame(workspace);
	agentBlame.onDidChangeShare((share) => statusBar.setFileShare(share ? shareMarkdown(share) : undefined));
	const offers = new RejectionOffers(workspace);
	const told = new ToldHere();
	const disposables: vscode.Disposable[] = [
		log,
		workspace,
		...chainParts,
		panels,
		statusBar,
		agents,
		agentBlame,
		...registerSessionCommands({ workspace, panels, told }),
		...registerWorkspaceCommands(workspace),
		...checkpointParts({ workspace, panels, offers, told, log, checkpoints, pending, approvalPrompts }),
		markdownViews,
		vscode.workspace.registerTextDocumentContentProvider(markdownScheme, markdownViews),
		...registerInteropCommands(workspace),
		registerAgentHistoryCommand(workspace),
		registerRebuildIndexCommand(workspace),
		transcripts,
		vscode.window.createTreeView(ViewIds.transcripts, { treeDataProvider: transcripts, showCollapseAll: true }),
		vscode.workspace.registerTextDocumentContentProvider(transcriptScheme, new TranscriptDocuments(workspace)),
		...registerTranscriptCommands(workspace),
		...registerConnectCommands({ workspace, globalStorageUri: context.globalStorageUri, mcpProvided: () => mcp.registered }),
		registerSummarizeCommand(workspace),
		mcp,
		...registerIssueCommands(workspace),
		...registerNotificationCommands(workspace),
		replay,
		registerReplayCommand(workspace, replay),
		registerSearchCommand(workspace),
		vscode.workspace.registerTextDocumentContentProvider(timelineScheme, new TimelineDocuments(workspace)),
		new SyncController(workspace, statusBar),
	];
	for (const d of disposables) context.subscriptions.push(d);
	// The first status read starts the backend: after activation returns, never on its path.
	const ready = new Promise((resolve) => setTimeout(() => resolve(workspace.refresh()), 0));
	const agentHistoryScan = scanAgentHistoryOnOpen(workspace, ready);
	const activationMs = performance.now() - started;
	log.info(`Baton activated in ${activationMs.toFixed(1)} ms${vscode.workspace.isTrusted ? '' : ' (untrusted workspace: read-only)'}`);
	return {
		activationMs,
		workspace,
		replay,
		agentBlame,
		chains,
		checkpoints,
		pendingApprovals: pending,
		agents,
		transcripts,
		mcp,
		clineMcpSettings: clineMcpSettingsPath(context.globalStorageUri),
		ready,
		statusBar,
		syncMenu: syncMenuItems,
		agentHistoryScan,
	};
}

/** The checkpoint views, their documents and commands, and the approval prompts with the notices that raise them. */
function checkpointParts(parts: {
	workspace: BatonWorkspace;
	panels: BatonPanels;
	offers: RejectionOffers;
	told: ToldHere;
	log: vscode.LogOutputChannel;
	checkpoints: CheckpointsProvider;
	pending: PendingApprovalsProvider;
	approvalPrompts: ApprovalPrompts;
}): vscode.Disposable[] {
	const { workspace, panels, offers, told, log, checkpoints, pending, approvalPrompts } = parts;
	return [
		checkpoints,
		pending,
		vscode.window.createTreeView(ViewIds.checkpoints, { treeDataProvider: checkpoints, showCollapseAll: true }),
		vscode.window.createTreeView(ViewIds.pendingApprovals, { treeDataProvider: pending }),
		vscode.workspace.registerTextDocumentContentProvider(checkpointScheme, new CheckpointDocuments(workspace)),
		approvalPrompts,
		new NotificationPresenter(workspace, approvalPrompts, offers, told, log),
		...registerCheckpointCommands({ workspace, panels, offers, told }),
	];
}

export function deactivate(): void {
	// Everything is in context.subscriptions; disposing the workspace stops the backend.
}
