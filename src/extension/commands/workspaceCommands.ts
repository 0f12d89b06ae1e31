/**
 * Tasks, decisions, set-up and the status bar's action menu.
 */
import * as vscode from 'vscode';
import type { TaskDto } from '../../protocol/dto';
import { decisionRecord, taskAdd, taskFocus, taskList, workspaceInit } from '../../protocol/rpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { CommandIds } from '../ids';
import { command, ensureInitialized, pickSession, sessionIdOf } from './commandSupport';
import { syncMenuItems } from '../sync/syncMenu';
import { showInformationMessage, showQuickPick, showWarningMessage } from '../messages';
import { withoutIcons } from '../format';

const nonEmpty = (what: string, max: number) => (v: string) =>
	v.trim().length === 0 ? `${what} cannot be empty.` : v.trim().length > max ? `At most ${max} characters (${v.trim().length}).` : undefined;

/** What the commands share: the dependencies and the helpers built on them. */
function contextOf(workspace: BatonWorkspace) {
	const log = workspace.log;
	return { workspace, log };
}

type Context = ReturnType<typeof contextOf>;

export function registerWorkspaceCommands(workspace: BatonWorkspace): vscode.Disposable[] {
	const ctx = contextOf(workspace);
	const { log } = ctx;
	return [
		command(CommandIds.initWorkspace, async () => initWorkspaceCommand(ctx), log),
		command(CommandIds.recordDecision, async (arg?: unknown) => recordDecisionCommand(ctx, arg), log),
		command(CommandIds.addTask, async () => addTaskCommand(ctx), log),
		command(CommandIds.focusTask, async (arg?: unknown) => focusTaskCommand(ctx, arg), log),
		command(CommandIds.refresh, async () => workspace.refresh(), log),
		command(CommandIds.showLog, async () => log.show(), log),
		command(CommandIds.sessionActions, async () => sessionActionsCommand(ctx), log),
	];
}

async function initWorkspaceCommand(ctx: Context) {
	const { workspace } = ctx;
	if (!workspace.root) {
		void showWarningMessage('Open a folder first: Baton keeps its sessions in the workspace.');
		return;
	}
	const status = await workspace.request(workspaceInit, undefined);
	await workspace.refresh();
	void showInformationMessage(`Baton is set up in ${status.workspaceRoot} (data in .baton/, ignored by git).`, 'Start Session').then((c) => {
		if (c) {
			void vscode.commands.executeCommand(CommandIds.startSession);
		}
	});
}

async function recordDecisionCommand(ctx: Context, arg?: unknown) {
	const { workspace } = ctx;
	const sessionId =
		sessionIdOf(arg) ??
		(await pickSession(workspace, ['active'], 'Record the decision in which session?', 'Start a session first: decisions belong to a session.'))?.id;
	if (!sessionId) {
		return;
	}
	const text = await vscode.window.showInputBox({
		title: 'Record Decision (1/2)',
		prompt: 'What was decided?',
		placeHolder: 'e.g. Use integer cents for all prices',
		validateInput: nonEmpty('The decision', 2000),
		ignoreFocusOut: true,
	});
	if (text === undefined) {
		return;
	}
	const rationale = await vscode.window.showInputBox({
		title: 'Record Decision (2/2)',
		prompt: 'Why? (optional, but the next agent will thank you)',
		ignoreFocusOut: true,
	});
	if (rationale === undefined) {
		return;
	}
	const { decision } = await workspace.request(decisionRecord, {
		text: text.trim(),
		sessionId,
		...(rationale.trim() ? { rationale: rationale.trim() } : {}),
	});
	await workspace.refresh();
	void showInformationMessage('Decision recorded; it goes into this session’s handoff.');
	return decision;
}

async function addTaskCommand(ctx: Context) {
	const { workspace } = ctx;
	if (!(await ensureInitialized(workspace))) {
		return;
	}
	const title = await vscode.window.showInputBox({
		title: 'Add Task (1/3): title',
		prompt: 'What needs doing?',
		validateInput: nonEmpty('The title', 500),
		ignoreFocusOut: true,
	});
	if (title === undefined) {
		return;
	}
	const type = await showQuickPick(
		[
			{ label: '$(circle-outline) Task', value: 'task' as const },
			{ label: '$(bug) Bug', value: 'bug' as const },
			{ label: '$(layers) Epic', value: 'epic' as const, description: 'groups other tasks' },
			{ label: '$(circle-small) Subtask', value: 'subtask' as const },
		],
		{ title: 'Add Task (2/3): type' },
	);
	if (!type) {
		return;
	}
	const { tasks } = await workspace.request(taskList, undefined);
	const epics = tasks.filter((t) => t.type === 'epic' && t.status !== 'done' && t.status !== 'cancelled');
	let parentId: string | undefined;
	if (type.value !== 'epic' && epics.length > 0) {
		const parent = await showQuickPick(
			[{ label: 'No parent', id: undefined }, ...epics.map((e) => ({ label: `$(layers) ${withoutIcons(`${e.id} · ${e.title}`)}`, id: e.id }))],
			{ title: 'Add Task (3/3): part of which epic?' },
		);
		if (!parent) {
			return;
		}
		parentId = parent.id;
	}
	const { task } = await workspace.request(taskAdd, { title: title.trim(), type: type.value, ...(parentId ? { parentId } : {}) });
	await workspace.refresh();
	void showInformationMessage(`Added ${task.id}: ${task.title}`);
	return task;
}

async function focusTaskCommand(ctx: Context, arg?: unknown) {
	const { workspace } = ctx;
	let id = sessionIdOf(arg);
	if (!id) {
		const { tasks } = await workspace.request(taskList, undefined);
		const open = tasks.filter((t: TaskDto) => t.type !== 'epic' && (t.status === 'pending' || t.status === 'active' || t.status === 'blocked'));
		const picked = await showQuickPick(
			open.map((t) => ({
				label: withoutIcons(`${t.id} · ${t.title}`),
				description: withoutIcons(`${t.type} · ${t.priority}${t.dependsOn.length ? ` · waits on ${t.dependsOn.join(', ')}` : ''}`),
				id: t.id,
			})),
			{ placeHolder: 'Work on which task now?', matchOnDescription: true },
		);
		id = picked?.id;
	}
	if (!id) {
		return;
	}
	const result = await workspace.request(taskFocus, { id });
	await workspace.refresh();
	result.warnings.forEach((w) => void showWarningMessage(w));
	void showInformationMessage(`Now working on ${result.task.id}: ${result.task.title}`);
	return result.task;
}

async function sessionActionsCommand(ctx: Context) {
	const { workspace } = ctx;
	const status = workspace.status ?? (await workspace.refresh());
	const active = status?.active ?? [];
	const actions: (vscode.QuickPickItem & { run: () => Thenable<unknown> | Promise<unknown> })[] = [];
	const run =
		(id: string, ...args: unknown[]) =>
		() =>
			// eslint-disable-next-line no-restricted-syntax -- the one or two arguments a menu entry below names
			vscode.commands.executeCommand(id, ...args);
	for (const s of active) {
		const tag = active.length > 1 ? ` — ${s.name}` : '';
		actions.push(
			{ label: `$(debug-stop) End Session${tag}`, description: 'write the handoff', run: run(CommandIds.endSession, { id: s.id }) },
			{ label: `$(debug-pause) Suspend Session${tag}`, run: run(CommandIds.suspendSession, { id: s.id }) },
			{ label: `$(book) Show Briefing${tag}`, run: run(CommandIds.showBriefing, { id: s.id }) },
			{ label: `$(note) Record Decision${tag}`, run: run(CommandIds.recordDecision, { id: s.id }) },
			{ label: `$(info) Show Session Details${tag}`, run: run(CommandIds.showSessionDetails, { id: s.id }) },
		);
	}
	if (active.length === 0) {
		actions.push({ label: '$(debug-start) Start Session', run: run(CommandIds.startSession) });
	}
	if ((status?.counts.suspended ?? 0) + (status?.counts.orphaned ?? 0) + (status?.counts.ended ?? 0) > 0) {
		actions.push(
			{ label: '$(debug-continue) Resume Session', run: run(CommandIds.resumeSession) },
			{ label: '$(arrow-swap) Switch Session', run: run(CommandIds.switchSession) },
		);
	}
	if ((status?.counts.orphaned ?? 0) > 0) {
		actions.push({ label: '$(trash) Clean Up Stale Sessions', run: run(CommandIds.cleanUpSessions) });
	}
	for (const item of syncMenuItems()) actions.push(item);
	actions.push(
		{ label: '$(type-hierarchy) Show Chain Graph', run: run(CommandIds.showChainGraph) },
		{ label: '$(output) Show Log', run: run(CommandIds.showLog) },
	);
	const picked = await showQuickPick(actions, {
		placeHolder: active.length ? `Baton — ${active.map((s) => s.name).join(', ')}` : 'Baton — no active session',
	});
	return picked?.run();
}
