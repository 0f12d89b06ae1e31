/**
 * Sync in the editor (docs/sync.md): `Baton: Sync Now`, sync state in the session status bar item
 * once a remote is enabled (ahead/behind, last sync and the last error with a Retry, in its tooltip
 * and menu), and a throttled automatic pull when
 * the window gains focus and after a `git fetch` (the repository's FETCH_HEAD changes — watched, never
 * written). A remote that refuses gets one clear message per distinct refusal, with Retry.
 */
import * as vscode from 'vscode';
import { syncNow, syncPull, syncStatus, type SyncNowResultDto, type SyncRemoteStatusDto } from '../../protocol/syncRpc';
import type { BatonWorkspace } from '../batonWorkspace';
import type { SessionStatusBar } from '../statusBar';
import { provideSyncMenu, type SyncMenuItem } from './syncMenu';
import { command } from '../commands/commandSupport';
import { escapeMarkdown, relativeTime } from '../format';
import { CommandIds } from '../ids';
import { Disposable } from '../lifecycle';

const autoPullEveryMs = 60_000;

export class SyncController extends Disposable {
	private remotes: SyncRemoteStatusDto[] = [];
	private lastAutoPull = 0;
	private running: Promise<unknown> | undefined;
	private lastShownError: string | undefined;

	constructor(
		private readonly workspace: BatonWorkspace,
		private readonly statusBar: SessionStatusBar,
	) {
		super();
		provideSyncMenu(() => this.menuItems());
		this.register({ dispose: () => provideSyncMenu(undefined) });
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
			this.statusBar.setSync(undefined);
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
			this.statusBar.setSync(undefined);
			return;
		}
		const ahead = enabled.reduce((n, r) => n + r.ahead, 0);
		const behind = enabled.reduce((n, r) => n + r.behind, 0);
		const failed = enabled.filter((r) => r.lastError);
		const lines = ['**Sync**'];
		for (const r of enabled) {
			const last = [r.lastPush ? `pushed ${relativeTime(r.lastPush)}` : 'never pushed', r.lastPull ? `pulled ${relativeTime(r.lastPull)}` : 'never pulled'].join(', ');
			lines.push(`$(sync) ${escapeMarkdown(r.name)}: ${r.ahead} ahead, ${r.behind} behind${r.queued ? `, ${r.queued} queued` : ''} — ${last}`);
			if (r.lastError) {
				lines.push(`$(error) ${escapeMarkdown(r.lastError)}`);
			}
		}
		const markdown = `${lines.join('  \n')}\n\n[${failed.length ? 'Retry' : 'Sync Now'}](command:${CommandIds.syncNow})`;
		const text = failed.length ? '$(warning) sync' : ahead + behind > 0 ? `$(sync) ${ahead}↑ ${behind}↓` : '';
		this.statusBar.setSync({ text, markdown, failed: failed.length > 0 });
	}

	/** Sync's entries in the session item's menu. */
	private menuItems(): SyncMenuItem[] {
		const enabled = this.remotes.filter((r) => r.enabled);
		if (enabled.length === 0) {
			return [];
		}
		const failed = enabled.filter((r) => r.lastError);
		const state = enabled.map((r) => `${r.name}: ${r.ahead}↑ ${r.behind}↓${r.lastPull ? `, pulled ${relativeTime(r.lastPull)}` : ''}`).join(' · ');
		return [
			failed.length
				? { label: '$(refresh) Retry Sync', description: state, detail: failed.map((r) => `${r.name}: ${r.lastError}`).join(' · '), run: () => this.syncNow(true) }
				: { label: '$(sync) Sync Now', description: state, run: () => this.syncNow(true) },
		];
	}

	private async actions(): Promise<unknown> {
		await this.refresh();
		const items: SyncMenuItem[] = [...this.menuItems(), { label: '$(output) Show Log', run: () => vscode.commands.executeCommand(CommandIds.showLog) }];
		const picked = await vscode.window.showQuickPick(items, { placeHolder: this.enabled ? 'Baton sync' : 'Baton sync is off: turn it on with “baton sync enable origin” in a terminal' });
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
			if (result.newEvents > 0) {
				await this.workspace.refresh();
			}
			if (explicit) {
				vscode.window.setStatusBarMessage(`$(sync) Baton: ${result.newEvents} new record(s), ${result.sessions.added} new session(s); pushed ${result.pushed.length} ref(s)`, 5_000);
			}
			this.lastShownError = undefined;
			this.tellRefused(result);
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
			this.tellRefused(result);
		} catch (error) {
			this.refused(error);
		} finally {
			this.running = undefined;
			await this.refresh();
		}
	}

	/** Pulled records that are no valid event were left out: said once (a pull refuses each only once), the log has them. */
	private tellRefused(result: SyncNowResultDto): void {
		if (result.refusedCount === 0) {
			return;
		}
		const first = result.refused[0];
		void vscode.window
			.showWarningMessage(
				`Baton sync left out ${result.refusedCount} pulled record(s) that are no valid event (written by something other than Baton, or damaged)${first ? `, first ${first.id}: ${first.reason}` : ''}. The rest was merged.`,
				'Show Log',
			)
			.then((choice) => {
				if (choice === 'Show Log') {
					this.workspace.log.show(true);
				}
			});
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
