/**
 * Every notification and message dialog Baton shows goes through here: no other file calls
 * `window.show{Information,Warning,Error}Message` (eslint.config.mjs keeps it). Their text often holds
 * stored text (a session's name, a task's title, a path, a refused record's id) that a teammate's push
 * or an agent's file wrote, and a notification obeys VS Code's link syntax in it: the message and a
 * dialog's detail are shown through `shownMessage` (format.ts; docs/architecture.md §2, "Stored text is
 * shown, never obeyed"). The buttons are Baton's own words.
 */
import * as vscode from 'vscode';
import { shownMessage } from './format';

type Show = typeof vscode.window.showInformationMessage;

function shownArgument(arg: unknown): unknown {
	if (typeof arg === 'object' && arg !== null && !('title' in arg) && 'detail' in arg && typeof arg.detail === 'string') {
		return { ...arg, detail: shownMessage(arg.detail) };
	}
	return arg;
}

/** `show` with its message (and a dialog's detail) shown, never obeyed; `show` read when called, so a later replacement of the API counts. */
function shown(show: () => Show): Show {
	return ((message: string, ...rest: unknown[]) =>
		show().apply(vscode.window, [shownMessage(message), ...rest.map(shownArgument)] as Parameters<Show>)) as Show;
}

export const showInformationMessage: Show = shown(() => vscode.window.showInformationMessage);
export const showWarningMessage: Show = shown(() => vscode.window.showWarningMessage);
export const showErrorMessage: Show = shown(() => vscode.window.showErrorMessage);
