/**
 * Sync's entries in the session status bar item's menu: the sync controller says what they are, the
 * menu (commands/workspaceCommands.ts) shows them. One place for sync state, beside the session's.
 */
import type * as vscode from 'vscode';

export type SyncMenuItem = vscode.QuickPickItem & { run: () => Thenable<unknown> | Promise<unknown> };

let provider: (() => SyncMenuItem[]) | undefined;

export function provideSyncMenu(fn: (() => SyncMenuItem[]) | undefined): void {
	provider = fn;
}

export function syncMenuItems(): SyncMenuItem[] {
	return provider?.() ?? [];
}
