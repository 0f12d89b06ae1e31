/**
 * What every command shares: turning backend refusals into clear messages, finding which session a
 * command was invoked on (tree row, webview, argument or a pick), and the quick picks.
 */
import * as vscode from 'vscode';
import { ResponseError } from 'vscode-jsonrpc/node';
import { escapeControls } from '../../protocol/displayText';
import type { SessionDto, SessionStatusDto, TaskDto } from '../../protocol/dto';
import { sessionList, taskList, workspaceInit, workspaceStatus, type RpcErrorData } from '../../protocol/rpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { relativeTime, sessionMoment, shownItem, statusLabel, withoutIcons } from '../format';
import { SessionNode } from '../views/sessionChainsProvider';
import { showErrorMessage, showInformationMessage, showQuickPick, showWarningMessage } from '../messages';

/** Registers a command whose failures become a notification (never an unhandled rejection). */
export function command(id: string, run: (...args: unknown[]) => Promise<unknown>, log: vscode.LogOutputChannel): vscode.Disposable {
	return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
		try {
			// eslint-disable-next-line no-restricted-syntax -- passes on the arguments this call received, as many as were already on the stack
			return await run(...args);
		} catch (error) {
			reportError(error, log);
			return undefined;
		}
	});
}

/** Logs and shows a failure; never waits for the person to dismiss the notification. */
function reportError(error: unknown, log: vscode.LogOutputChannel): void {
	const code = error instanceof ResponseError ? (error.data as RpcErrorData | undefined)?.code : undefined;
	// A refusal can quote stored text (a name, a note): shown with its control characters escaped.
	const message = escapeControls((error as Error).message ?? String(error));
	log.error(`${code ? `[${code}] ` : ''}${message}`);
	// Refusals the engine explains are plain warnings; anything else offers the log.
	if (code !== undefined && code !== 'internal') {
		void showWarningMessage(message);
		return;
	}
	void showErrorMessage(`Baton: ${message}`, 'Show Log').then((choice) => {
		if (choice === 'Show Log') {
			log.show(true);
		}
	});
}

/** The session id a command was invoked on: a tree row, `{ id }`, or an id string. */
export function sessionIdOf(arg: unknown): string | undefined {
	if (arg instanceof SessionNode) {
		return arg.session.id;
	}
	if (typeof arg === 'string') {
		return arg;
	}
	if (arg && typeof arg === 'object' && typeof (arg as { id?: unknown }).id === 'string') {
		return (arg as { id: string }).id;
	}
	return undefined;
}

interface SessionPickItem extends vscode.QuickPickItem {
	session: SessionDto;
}

/** A quick pick of sessions in the given states, newest first; undefined when cancelled or none. */
export async function pickSession(
	workspace: BatonWorkspace,
	statuses: SessionStatusDto[],
	placeholder: string,
	emptyMessage: string,
): Promise<SessionDto | undefined> {
	// A command that acts in the active session (end, suspend, record a decision) offers those active on
	// this machine: a teammate's, pulled through sync, runs on its own and is not one to end from here.
	const activeHere = statuses.length === 1 && statuses[0] === 'active';
	const candidates = activeHere
		? (await workspace.request(workspaceStatus, undefined)).active
		: (await workspace.request(sessionList, { limit: 2000 })).sessions.filter((s) => statuses.includes(s.status));
	if (candidates.length === 0) {
		void showInformationMessage(emptyMessage);
		return undefined;
	}
	if (candidates.length === 1 && statuses.length === 1 && statuses[0] === 'active') {
		return candidates[0];
	}
	const picked = await showQuickPick<SessionPickItem>(
		candidates.map((s) =>
			shownItem({
				label: withoutIcons(s.name),
				description: `${statusLabel[s.status]} · ${relativeTime(sessionMoment(s))}`,
				detail: withoutIcons(`${s.scopeKey}${s.agent ? ` · ${s.agent}` : ''} · ${s.id}`),
				session: s,
			}),
		),
		{ placeHolder: placeholder, matchOnDescription: true, matchOnDetail: true },
	);
	return picked?.session;
}

interface ScopePickItem extends vscode.QuickPickItem {
	scope?: string;
	custom?: boolean;
}

const scopePattern =
	/^(global|(epic|task|subtree|taskGroup|custom):[A-Za-z0-9][A-Za-z0-9._-]{0,63}(,[A-Za-z0-9][A-Za-z0-9._-]{0,63})*|epicPhase:[A-Za-z0-9][A-Za-z0-9._-]{0,63}:[^:\s]+)$/;

function validateScopeText(text: string): string | undefined {
	return scopePattern.test(text.trim()) ? undefined : 'Use global, epic:ID, task:ID, subtree:ID, taskGroup:ID, epicPhase:ID:PHASE or custom:ID[,ID…]';
}

/** Scopes built from the task graph: global, each open epic, each open task; or a typed one. */
export async function pickScope(workspace: BatonWorkspace, title: string): Promise<string | undefined> {
	const { tasks } = await workspace.request(taskList, undefined);
	const open = tasks.filter((t) => t.status !== 'done' && t.status !== 'cancelled');
	const item = (t: TaskDto, kind: 'epic' | 'task'): ScopePickItem =>
		shownItem({
			label: `${kind === 'epic' ? '$(layers)' : '$(circle-outline)'} ${t.id} · ${t.title}`,
			description: `${kind}:${t.id}`,
			detail: kind === 'epic' ? plural(tasks.filter((c) => c.parentId === t.id).length, 'task') : undefined,
			scope: `${kind}:${t.id}`,
		});
	const items: ScopePickItem[] = [
		{ label: '$(globe) Global', description: 'global', detail: 'The whole workspace', scope: 'global' },
		...(open.some((t) => t.type === 'epic') ? [{ label: 'Epics', kind: vscode.QuickPickItemKind.Separator } as ScopePickItem] : []),
		...open.filter((t) => t.type === 'epic').map((t) => item(t, 'epic')),
		...(open.some((t) => t.type !== 'epic') ? [{ label: 'Tasks', kind: vscode.QuickPickItemKind.Separator } as ScopePickItem] : []),
		...open.filter((t) => t.type !== 'epic').map((t) => item(t, 'task')),
		{ label: '', kind: vscode.QuickPickItemKind.Separator },
		{ label: '$(edit) Other scope…', description: 'subtree:ID, custom:ID,ID, epicPhase:ID:PHASE', custom: true },
	];
	const picked = await showQuickPick(items, { title, placeHolder: 'Which part of the work is this session about?', matchOnDescription: true });
	if (!picked) {
		return undefined;
	}
	if (picked.custom) {
		return vscode.window.showInputBox({ title, prompt: 'Scope', placeHolder: 'subtree:T4', validateInput: validateScopeText });
	}
	return picked.scope;
}

function plural(n: number, word: string): string {
	return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** When Baton is not set up in the folder, offer to set it up; true when it is ready. */
export async function ensureInitialized(workspace: BatonWorkspace): Promise<boolean> {
	const status = workspace.status ?? (await workspace.refresh());
	if (status?.initialized) {
		return true;
	}
	if (!workspace.root) {
		void showWarningMessage('Open a folder first: Baton keeps its sessions in the workspace.');
		return false;
	}
	const choice = await showInformationMessage(
		`Baton is not set up in ${workspace.root}. Set it up? It creates a .baton folder (ignored by git).`,
		{ modal: true },
		'Set Up Baton',
	);
	if (choice !== 'Set Up Baton') {
		return false;
	}
	await workspace.request(workspaceInit, undefined);
	await workspace.refresh();
	return true;
}
