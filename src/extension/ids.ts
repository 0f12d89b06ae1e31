/**
 * Every command, view and context key Baton contributes. Pure (no `vscode` import), so a unit test
 * can check it against package.json in both directions.
 */
export const CommandIds = {
	startSession: 'baton.session.start',
	endSession: 'baton.session.end',
	suspendSession: 'baton.session.suspend',
	resumeSession: 'baton.session.resume',
	switchSession: 'baton.session.switch',
	showBriefing: 'baton.briefing.show',
	showSessionDetails: 'baton.session.showDetails',
	recordDecision: 'baton.decision.record',
	addTask: 'baton.task.add',
	focusTask: 'baton.task.focus',
	cleanUpSessions: 'baton.session.cleanup',
	showChainGraph: 'baton.chainGraph.show',
	initWorkspace: 'baton.workspace.init',
	refresh: 'baton.sessions.refresh',
	showLog: 'baton.showLog',
	sessionActions: 'baton.statusBar.actions',
} as const;
export type CommandId = (typeof CommandIds)[keyof typeof CommandIds];

export const ViewIds = {
	container: 'baton',
	sessionChains: 'baton.sessionChains',
} as const;

/** Context keys set by the extension for `when` clauses. */
export const ContextKeys = {
	initialized: 'baton.initialized',
	hasSessions: 'baton.hasSessions',
	hasActiveSession: 'baton.hasActiveSession',
	hasResumableSession: 'baton.hasResumableSession',
	hasStaleCandidates: 'baton.hasStaleCandidates',
} as const;

export const outputChannelName = 'Baton';
export const configSection = 'baton';
