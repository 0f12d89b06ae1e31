/**
 * Every notification, message dialog and quick pick Baton shows goes through here: no other file calls
 * `window.show{Information,Warning,Error}Message` or `window.showQuickPick` (eslint.config.mjs keeps
 * it). Their text often holds stored text (a session's name, a task's title, a path, a refused
 * record's id) that a teammate's push or an agent's file wrote (docs/architecture.md §2, "Stored text
 * is shown, never obeyed"): a notification obeys VS Code's link syntax in it, so the message and a
 * dialog's detail are shown through `shownMessage` (format.ts); a quick pick's items go through
 * `shownItem`, as every tree item does (control characters escaped). The buttons are Baton's own words.
 */
import * as vscode from 'vscode';
import { escapeControls } from '../protocol/displayText';
import { shownItem, shownMessage } from './format';

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
		Reflect.apply(show(), vscode.window, [shownMessage(message), ...rest.map(shownArgument)]) as ReturnType<Show>) as Show;
}

export const showInformationMessage: Show = shown(() => vscode.window.showInformationMessage);
export const showWarningMessage: Show = shown(() => vscode.window.showWarningMessage);
export const showErrorMessage: Show = shown(() => vscode.window.showErrorMessage);

type ShowQuickPick = typeof vscode.window.showQuickPick;

function shownItems(items: readonly unknown[]): unknown[] {
	return items.map((item) => (typeof item === 'string' ? escapeControls(item) : typeof item === 'object' && item !== null ? shownItem(item) : item));
}

/** `window.showQuickPick` with each item shown through `shownItem` (the item itself comes back when picked). */
export const showQuickPick: ShowQuickPick = ((items: unknown, ...rest: unknown[]) => {
	const shown = Array.isArray(items) ? shownItems(items) : Promise.resolve(items as Thenable<unknown[]>).then(shownItems);
	return Reflect.apply(vscode.window.showQuickPick, vscode.window, [shown, ...rest]) as ReturnType<ShowQuickPick>;
}) as ShowQuickPick;
