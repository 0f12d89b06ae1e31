/**
 * The session lifecycle from the palette, the tree, the status bar and the webviews. Every step
 * can be cancelled with Escape before anything is written.
 */
import * as vscode from 'vscode';
import { sessionDetails, sessionEnd, sessionGc, sessionRename, sessionResume, sessionStart, sessionSuspend, sessionSwitch } from '../../protocol/rpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { relativeTime } from '../format';
import { CommandIds } from '../ids';
import { SessionNode } from '../views/sessionChainsProvider';
import type { ToldHere } from '../notifications/toldHere';
import type { BatonPanels } from '../webviews/batonPanels';
import { command, ensureInitialized, pickScope, pickSession, sessionIdOf } from './commandSupport';
import { showInformationMessage, showQuickPick, showWarningMessage } from '../messages';

interface Deps {
	workspace: BatonWorkspace;
	panels: BatonPanels;
	told: ToldHere;
}

const agents = [
	{ label: '$(person) Me', description: 'a person working without an agent', agent: undefined },
	{ label: '$(hubot) Claude Code', agent: 'claude-code' },
	{ label: '$(copilot) GitHub Copilot', agent: 'copilot' },
	{ label: '$(robot) Cline', agent: 'cline' },
	{ label: '$(terminal) Codex CLI', agent: 'codex' },
	{ label: '$(sparkle) Gemini CLI', agent: 'gemini' },
	{ label: '$(edit) Other agent…', agent: '' },
];

/** What the commands share: the dependencies and the helpers built on them. */
function contextOf({ workspace, panels, told }: Deps) {
	const log = workspace.log;
	const withProgress = <T>(title: string, task: () => Promise<T>): Thenable<T> =>
		vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title }, task);

	return { workspace, panels, told, log, withProgress };
}

type Context = ReturnType<typeof contextOf>;

export function registerSessionCommands(deps: Deps): vscode.Disposable[] {
	const ctx = contextOf(deps);
	const { panels, log } = ctx;
	return [
		command(CommandIds.startSession, async (arg?: unknown) => startSessionCommand(ctx, arg), log),
		command(CommandIds.endSession, async (arg?: unknown) => endSessionCommand(ctx, arg), log),
		command(CommandIds.suspendSession, async (arg?: unknown) => suspendSessionCommand(ctx, arg), log),
		command(CommandIds.renameSession, async (arg?: unknown) => renameSessionCommand(ctx, arg), log),
		command(CommandIds.resumeSession, async (arg?: unknown) => resumeSessionCommand(ctx, arg), log),
		command(CommandIds.switchSession, async (arg?: unknown) => switchSessionCommand(ctx, arg), log),
		command(CommandIds.cleanUpSessions, async () => cleanUpSessionsCommand(ctx), log),
		command(CommandIds.showBriefing, async (arg?: unknown) => showBriefingCommand(ctx, arg), log),
		command(CommandIds.showSessionDetails, async (arg?: unknown) => showSessionDetailsCommand(ctx, arg), log),
		command(CommandIds.showChainGraph, async (arg?: unknown) => panels.showGraph(sessionIdOf(arg)), log),
	];
}

async function startSessionCommand(ctx: Context, arg?: unknown) {
	const { workspace, panels, log, withProgress } = ctx;
	if (!(await ensureInitialized(workspace))) {
		return;
	}
	// Callers (keybindings, tests, other extensions) may pass what the prompts would ask.
	const given = arg && typeof arg === 'object' ? (arg as { scope?: string; name?: string; agent?: string; parentSessionId?: string }) : {};
	const name =
		given.name ??
		(await vscode.window.showInputBox({
			title: 'Start Session (1/3): name',
			prompt: 'What will this session do?',
			placeHolder: 'e.g. Checkout: webhook retries',
			ignoreFocusOut: true,
			validateInput: (v) =>
				v.trim().length === 0 ? 'A session needs a name.' : v.trim().length > 200 ? `At most 200 characters (${v.trim().length}).` : undefined,
		}));
	if (name === undefined) {
		return;
	}
	const scope = given.scope ?? (await pickScope(workspace, 'Start Session (2/3): scope'));
	if (scope === undefined) {
		return;
	}
	const agentPick =
		given.agent !== undefined
			? { agent: given.agent || undefined }
			: await showQuickPick(agents, { title: 'Start Session (3/3): who works in it?', placeHolder: 'The agent (or you)' });
	if (!agentPick) {
		return;
	}
	let agent = agentPick.agent;
	if (agent === '') {
		agent = await vscode.window.showInputBox({
			title: 'Start Session: agent',
			prompt: 'Agent name',
			validateInput: (v) => (/^[\w.@/-]{1,64}$/.test(v.trim()) ? undefined : 'Letters, digits and . _ - @ / (1–64)'),
		});
		if (agent === undefined) {
			return;
		}
	}
	const result = await withProgress('Baton: starting session…', () =>
		workspace.request(sessionStart, {
			name: name.trim(),
			scope,
			...(agent ? { agent: agent.trim() } : {}),
			...(given.parentSessionId ? { parentSessionId: given.parentSessionId } : {}),
		}),
	);
	await workspace.refresh();
	if (result.warnings.length > 0) {
		// Grouped: several warnings at once are one toast, each also in the log.
		result.warnings.forEach((w) => log.warn(`Start of “${result.session.name}”: ${w}`));
		void showWarningMessage(
			result.warnings.length === 1
				? (result.warnings[0] ?? '')
				: `Started “${result.session.name}” with ${result.warnings.length} warnings: ${result.warnings.join(' ')}`,
		);
	}
	const continues = result.handoff && result.briefing.lastSession ? ` It continues “${result.briefing.lastSession.name}”.` : '';
	if (vscode.workspace.getConfiguration('baton').get<boolean>('briefing.showOnStart', true)) {
		// The briefing opening is the confirmation; a toast on top would only cover it.
		vscode.window.setStatusBarMessage(`$(check) Baton: started “${result.session.name}”.${continues}`, 6_000);
		await panels.showBriefing({ sessionId: result.session.id });
	} else {
		void showInformationMessage(`Started “${result.session.name}”.${continues}`, 'Show Briefing').then((choice) => {
			if (choice) {
				void panels.showBriefing({ sessionId: result.session.id });
			}
		});
	}
	return result.session;
}

async function endSessionCommand(ctx: Context, arg?: unknown) {
	const { workspace, panels, told, log, withProgress } = ctx;
	const id = sessionIdOf(arg) ?? (await pickSession(workspace, ['active'], 'Which session ends?', 'No session is active.'))?.id;
	if (!id) {
		return;
	}
	const form = arg && typeof arg === 'object' && !(arg instanceof SessionNode) ? (arg as { note?: string; nextAction?: string; blockers?: string[] }) : {};
	if (form.note !== undefined) {
		const result = await workspace.request(sessionEnd, {
			id,
			note: form.note,
			...(form.nextAction ? { nextAction: form.nextAction } : {}),
			blockers: form.blockers ?? [],
		});
		await workspace.refresh();
		return result.session;
	}
	const step = (n: number) => `End Session (${n}/3): handoff for the next session`;
	const note = await vscode.window.showInputBox({
		title: step(1),
		prompt: 'Note: where did you get to?',
		placeHolder: 'e.g. Webhook verifies signatures; retry path still double-charges',
		ignoreFocusOut: true,
	});
	if (note === undefined) {
		return;
	}
	const nextAction = await vscode.window.showInputBox({
		title: step(2),
		prompt: 'Next action: what should the next session do first?',
		ignoreFocusOut: true,
	});
	if (nextAction === undefined) {
		return;
	}
	const blockers: string[] = [];
	for (;;) {
		const blocker = await vscode.window.showInputBox({
			title: step(3),
			prompt: blockers.length
				? `Blockers so far: ${blockers.join('; ')}. Add another, or press Enter on an empty box to finish.`
				: 'Anything blocking? Add one, or press Enter on an empty box to finish.',
			ignoreFocusOut: true,
		});
		if (blocker === undefined) {
			return;
		}
		if (!blocker.trim()) {
			break;
		}
		blockers.push(blocker.trim());
	}
	// One event, one toast: this one says it ended, with its warnings; the backend's notice of the
	// same end (it may arrive before the reply) stays in the log.
	told.mark('session.completed', id);
	const result = await withProgress('Baton: ending session…', () => workspace.request(sessionEnd, { id, note, nextAction, blockers }));
	await workspace.refresh();
	for (const warning of result.warnings) {
		log.warn(`End of “${result.session.name}”: ${warning}`);
	}
	const ended = `Ended “${result.session.name}” after ${result.debrief.durationMinutes} min; its handoff is saved for the next session.`;
	const warned = result.warnings.length > 0 ? ` ${result.warnings.join(' ')}` : '';
	void (result.warnings.length > 0 ? showWarningMessage(`${ended}${warned}`, 'Show Details') : showInformationMessage(ended, 'Show Details')).then(
		(choice) => {
			if (choice) {
				void panels.showDetails(result.session.id);
			}
		},
	);
	return result.session;
}

async function suspendSessionCommand(ctx: Context, arg?: unknown) {
	const { workspace } = ctx;
	const id = sessionIdOf(arg) ?? (await pickSession(workspace, ['active'], 'Which session pauses?', 'No session is active.'))?.id;
	if (!id) {
		return;
	}
	const { session } = await workspace.request(sessionSuspend, { id });
	await workspace.refresh();
	void showInformationMessage(`Suspended “${session.name}”. Resume it any time.`);
	return session;
}

async function renameSessionCommand(ctx: Context, arg?: unknown) {
	const { workspace } = ctx;
	const given = sessionIdOf(arg);
	const session = given
		? (await workspace.request(sessionDetails, { id: given })).session
		: await pickSession(workspace, ['active', 'suspended', 'orphaned', 'ended'], 'Rename which session?', 'No session to rename.');
	if (!session) {
		return;
	}
	const name = await vscode.window.showInputBox({
		title: `Rename “${session.name}”`,
		prompt: 'Say what the session is doing. Teammates see the new name too when sharing is on.',
		value: session.name,
		valueSelection: [0, session.name.length],
		validateInput: (text) =>
			text.trim() === '' ? 'A session needs a name.' : text.trim().length > 200 ? `At most 200 characters (this is ${text.trim().length}).` : undefined,
	});
	if (name === undefined || name.trim() === session.name) {
		return;
	}
	const renamed = (await workspace.request(sessionRename, { id: session.id, name })).session;
	await workspace.refresh();
	return renamed;
}

async function resumeSessionCommand(ctx: Context, arg?: unknown) {
	const { workspace } = ctx;
	const id =
		sessionIdOf(arg) ?? (await pickSession(workspace, ['suspended', 'orphaned', 'ended'], 'Which session continues?', 'No session can be resumed.'))?.id;
	if (!id) {
		return;
	}
	const { session } = await workspace.request(sessionResume, { id });
	await workspace.refresh();
	void showInformationMessage(`Resumed “${session.name}”.`);
	return session;
}

async function switchSessionCommand(ctx: Context, arg?: unknown) {
	const { workspace } = ctx;
	const id =
		sessionIdOf(arg) ??
		(
			await pickSession(
				workspace,
				['suspended', 'orphaned', 'ended'],
				'Switch to which session? (the current one is suspended)',
				'No other session to switch to.',
			)
		)?.id;
	if (!id) {
		return;
	}
	const result = await workspace.request(sessionSwitch, { id });
	await workspace.refresh();
	void showInformationMessage(`${result.suspended ? `Suspended “${result.suspended.name}”; ` : ''}now in “${result.session.name}”.`);
	return result.session;
}

async function cleanUpSessionsCommand(ctx: Context) {
	const { workspace } = ctx;
	const status = workspace.status ?? (await workspace.refresh());
	if (!status?.initialized) {
		return;
	}
	const orphan = relativeTime(new Date(Date.now() - status.config.orphanAfterMs).toISOString()).replace(' ago', '');
	const end = relativeTime(new Date(Date.now() - status.config.autoEndAfterMs).toISOString()).replace(' ago', '');
	const choice = await showWarningMessage(
		'Clean up stale sessions?',
		{
			modal: true,
			detail: `Active sessions idle for ${orphan} become orphaned; sessions idle for ${end} are ended with a generated handoff. Nothing is deleted, and any of them can be resumed.`,
		},
		'Clean Up',
	);
	if (choice !== 'Clean Up') {
		return;
	}
	const result = await workspace.request(sessionGc, {});
	await workspace.refresh();
	void showInformationMessage(
		result.orphaned.length + result.ended.length === 0
			? 'No stale sessions.'
			: `Orphaned ${result.orphaned.length} and ended ${result.ended.length} stale session(s).`,
	);
	return result;
}

async function showBriefingCommand(ctx: Context, arg?: unknown) {
	const { workspace, panels } = ctx;
	if (!(await ensureInitialized(workspace))) {
		return;
	}
	const given = arg && typeof arg === 'object' && typeof (arg as { scope?: unknown }).scope === 'string' ? (arg as { scope: string }).scope : undefined;
	const id = sessionIdOf(arg);
	if (id || given) {
		return panels.showBriefing(id ? { sessionId: id } : { scope: given as string });
	}
	const active = workspace.status?.active ?? [];
	if (active.length === 1 && active[0]) {
		return panels.showBriefing({ sessionId: active[0].id });
	}
	const scope = await pickScope(workspace, 'Show Briefing: for which scope?');
	return scope ? panels.showBriefing({ scope }) : undefined;
}

async function showSessionDetailsCommand(ctx: Context, arg?: unknown) {
	const { workspace, panels } = ctx;
	const id =
		sessionIdOf(arg) ??
		(await pickSession(workspace, ['active', 'suspended', 'orphaned', 'ended', 'archived', 'closed'], 'Show which session?', 'There are no sessions yet.'))
			?.id;
	return id ? panels.showDetails(id) : undefined;
}
