/**
 * Sync in the editor (docs/sync.md): `Baton: Sync Now`, a status bar item shown once a remote is
 * enabled (ahead/behind, last sync, the last error with a Retry), and a throttled automatic pull when
 * the window gains focus and after a `git fetch` (the repository's FETCH_HEAD changes — watched, never
 * written). A remote that refuses gets one clear message per distinct refusal, with Retry.
 */
import * as vscode from 'vscode';
import { syncNow, syncPull, syncStatus, type SyncNowResultDto, type SyncRemoteStatusDto } from '../../protocol/syncRpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { command } from '../commands/commandSupport';
import { escapeMarkdown, relativeTime } from '../format';
import { CommandIds } from '../ids';
import { Disposable } from '../lifecycle';

const autoPullEveryMs = 60_000;

export class SyncController extends Disposable {
	private readonly item = this.register(vscode.window.createStatusBarItem('baton.sync', vscode.StatusBarAlignment.Left, 49));
	private remotes: SyncRemoteStatusDto[] = [];
	private lastAutoPull = 0;
	private running: Promise<unknown> | undefined;
	private lastShownError: string | undefined;

	constructor(private readonly workspace: BatonWorkspace) {
		super();
		this.item.name = 'Baton Sync';
		this.item.command = CommandIds.syncActions;
		const log = workspace.log;
		this.register(command(CommandIds.syncNow, () => this.syncNow(true), log));
		this.register(command(CommandIds.syncActions, () => this.actions(), log));
		this.register(workspace.onDidChangeStatus(() => void this.refresh()));
		this.register(
			vscode.window.onDidChangeWindowState((state) => {
				if (state.focused) {
					void this.autoPull('focus');
				}
			}),
		);
		for (const folder of vscode.workspace.workspaceFolders ?? []) {
			const watcher = this.register(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '.git/FETCH_HEAD'), false, false, true));
			this.register(watcher.onDidChange(() => void this.autoPull('git fetch')));
			this.register(watcher.onDidCreate(() => void this.autoPull('git fetch')));
		}
	}

	get enabled(): boolean {
		return this.remotes.some((r) => r.enabled);
	}

	async refresh(): Promise<void> {
		if (!this.workspace.status?.initialized) {
			this.item.hide();
			return;
		}
		try {
			this.remotes = (await this.workspace.request(syncStatus, undefined)).remotes;
		} catch {
			// An older backend or a closing one: no sync item rather than a broken one.
			this.remotes = [];
		}
		this.render();
	}

	private render(): void {
		const enabled = this.remotes.filter((r) => r.enabled);
		if (enabled.length === 0) {
			this.item.hide();
			return;
		}
		const ahead = enabled.reduce((n, r) => n + r.ahead, 0);
		const behind = enabled.reduce((n, r) => n + r.behind, 0);
		const failed = enabled.filter((r) => r.lastError);
		this.item.text = `${failed.length ? '$(warning)' : '$(sync)'} ${ahead}↑ ${behind}↓`;
		this.item.backgroundColor = failed.length ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
		const tooltip = new vscode.MarkdownString(undefined, true);
		tooltip.isTrusted = { enabledCommands: [CommandIds.syncNow] };
		tooltip.appendMarkdown('**Baton sync**');
		for (const r of enabled) {
			const last = [r.lastPush ? `pushed ${relativeTime(r.lastPush)}` : 'never pushed', r.lastPull ? `pulled ${relativeTime(r.lastPull)}` : 'never pulled'].join(', ');
			tooltip.appendMarkdown(`  \n${escapeMarkdown(r.name)}: ${r.ahead} ahead, ${r.behind} behind${r.queued ? `, ${r.queued} queued` : ''} — ${last}`);
			if (r.lastError) {
				tooltip.appendMarkdown(`  \n$(error) ${escapeMarkdown(r.lastError)}`);
			}
		}
		tooltip.appendMarkdown(`\n\n[${failed.length ? 'Retry' : 'Sync Now'}](command:${CommandIds.syncNow})`);
		this.item.tooltip = tooltip;
		this.item.accessibilityInformation = { label: `Baton sync: ${ahead} ahead, ${behind} behind${failed.length ? ', failed' : ''}`, role: 'button' };
		this.item.show();
	}

	private async actions(): Promise<unknown> {
		await this.refresh();
		const failed = this.remotes.some((r) => r.enabled && r.lastError);
		const items: (vscode.QuickPickItem & { run: () => Thenable<unknown> | Promise<unknown> })[] = [
			{ label: failed ? '$(refresh) Retry Sync' : '$(sync) Sync Now', description: 'pull, then push Baton’s records', run: () => this.syncNow(true) },
			{ label: '$(output) Show Log', run: () => vscode.commands.executeCommand(CommandIds.showLog) },
		];
		const picked = await vscode.window.showQuickPick(items, {
			placeHolder: this.remotes.map((r) => `${r.name}: ${r.ahead}↑ ${r.behind}↓${r.lastError ? ' — failed' : ''}`).join(' · ') || 'Baton sync is off (`baton sync enable origin`)',
		});
		return picked?.run();
	}

	/** Pull then push; the explicit command reports its outcome and any refusal. */
	async syncNow(explicit: boolean): Promise<SyncNowResultDto | undefined> {
		if (this.running) {
			await this.running.catch(() => undefined);
		}
		const run = this.workspace.request(syncNow, undefined);
		this.running = run;
		try {
			const result = await (explicit ? vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Baton: syncing' }, () => run) : run);
			if (explicit) {
				vscode.window.setStatusBarMessage(`$(sync) Baton: ${result.newEvents} new record(s), ${result.sessions.added} new session(s); pushed ${result.pushed.length} ref(s)`, 5_000);
			}
			this.lastShownError = undefined;
			return result;
		} catch (error) {
			this.refused(error);
			return undefined;
		} finally {
			this.running = undefined;
			await this.refresh();
		}
	}

	private async autoPull(reason: string): Promise<void> {
		if (!this.enabled || this.running || Date.now() - this.lastAutoPull < autoPullEveryMs) {
			return;
		}
		this.lastAutoPull = Date.now();
		const run = this.workspace.request(syncPull, undefined);
		this.running = run;
		try {
			const result = await run;
			if (result.newEvents > 0) {
				this.workspace.log.info(`sync: pulled ${result.newEvents} record(s) (${reason})`);
				await this.workspace.refresh();
			}
		} catch (error) {
			this.refused(error);
		} finally {
			this.running = undefined;
			await this.refresh();
		}
	}

	private refused(error: unknown): void {
		const message = (error as Error).message ?? String(error);
		this.workspace.log.warn(`sync: ${message}`);
		if (message === this.lastShownError) {
			return;
		}
		this.lastShownError = message;
		void vscode.window.showErrorMessage(`Baton sync: ${message}`, 'Retry', 'Show Log').then((choice) => {
			if (choice === 'Retry') {
				void this.syncNow(true);
			} else if (choice === 'Show Log') {
				this.workspace.log.show(true);
			}
		});
	}
}
