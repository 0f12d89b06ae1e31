/**
 * Sync in the editor (docs/sync.md): `Baton: Sync Now`, sync state in the session status bar item
 * once a remote is enabled (ahead/behind, last sync and the last error with a Retry, in its tooltip
 * and menu), and a throttled automatic pull when
 * the window gains focus and after a `git fetch` (the repository's FETCH_HEAD changes — watched, never
 * written). A remote that refuses gets one clear message per distinct refusal, with Retry. Sharing
 * is turned on per remote (`Baton: Share Sessions Through a Git Remote…`, after saying plainly what
 * goes where) and off again, as `baton sync enable|disable` do.
 */
import * as vscode from 'vscode';
import { escapeControls } from '../../protocol/displayText';
import {
	syncDisable,
	syncEnable,
	syncNow,
	syncPull,
	syncRemotes,
	syncRetract,
	syncStatus,
	type SyncNowResultDto,
	type SyncRemoteDto,
	type SyncRemoteStatusDto,
	type SyncRetractResultDto,
} from '../../protocol/syncRpc';
import type { BatonWorkspace } from '../batonWorkspace';
import type { SessionStatusBar } from '../statusBar';
import { provideSyncMenu, type SyncMenuItem } from './syncMenu';
import { askToShare, confirmRetraction, pickRetraction } from './sharePrompts';
import { command } from '../commands/commandSupport';
import { escapeMarkdown, relativeTime } from '../format';
import { CommandIds } from '../ids';
import { Disposable } from '../lifecycle';
import { showErrorMessage, showInformationMessage, showQuickPick, showWarningMessage } from '../messages';

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
		this.register(command(CommandIds.syncEnable, (arg?: unknown) => this.enable(arg), log));
		this.register(command(CommandIds.syncDisable, (arg?: unknown) => this.disable(arg), log));
		this.register(command(CommandIds.syncRetract, (arg?: unknown) => this.retract(arg), log));
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
			const last = [
				r.lastPush ? `pushed ${relativeTime(r.lastPush)}` : 'never pushed',
				r.lastPull ? `pulled ${relativeTime(r.lastPull)}` : 'never pulled',
			].join(', ');
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
				? {
						label: '$(refresh) Retry Sync',
						description: state,
						detail: failed.map((r) => `${r.name}: ${r.lastError}`).join(' · '),
						run: () => this.syncNow(true),
					}
				: { label: '$(sync) Sync Now', description: state, run: () => this.syncNow(true) },
		];
	}

	private async actions(): Promise<unknown> {
		await this.refresh();
		const items: SyncMenuItem[] = [
			...this.menuItems(),
			{ label: '$(cloud-upload) Share Through a Git Remote…', run: () => vscode.commands.executeCommand(CommandIds.syncEnable) },
			...(this.enabled
				? [{ label: '$(circle-slash) Stop Sharing With a Git Remote…', run: () => vscode.commands.executeCommand(CommandIds.syncDisable) }]
				: []),
			{ label: '$(discard) Retract Shared Records…', run: () => vscode.commands.executeCommand(CommandIds.syncRetract) },
			{ label: '$(output) Show Log', run: () => vscode.commands.executeCommand(CommandIds.showLog) },
		];
		const picked = await showQuickPick(items, {
			placeHolder: this.enabled ? 'Baton sync' : 'Baton sync is off: no remote shares Baton’s records yet',
		});
		return picked?.run();
	}

	/**
	 * Turns sharing on for a remote: which one (the repository’s remotes), whether untracked files,
	 * transcripts and step files go too (off unless ticked), and a modal that says exactly what becomes readable
	 * to whom. `{ remote, transcripts, untracked, timeline }` (a caller that has decided: a test, another
	 * extension) skips the questions.
	 */
	private async enable(arg?: unknown): Promise<SyncRemoteDto | undefined> {
		const given = arg && typeof arg === 'object' ? (arg as { remote?: unknown; transcripts?: unknown; untracked?: unknown; timeline?: unknown }) : {};
		if (typeof given.remote === 'string') {
			return this.turnOn(given.remote, {
				transcripts: given.transcripts === true,
				untracked: given.untracked === true,
				timeline: given.timeline === true,
			});
		}
		const { remotes } = await this.workspace.request(syncRemotes, undefined);
		const inGit = remotes.filter((r) => r.inGit);
		if (inGit.length === 0) {
			void showInformationMessage(
				'Baton shares its records through the repository’s git remote, and this repository has none. Add one (git remote add origin URL), then try again.',
			);
			return undefined;
		}
		const chosen = await askToShare(inGit);
		if (!chosen) {
			return undefined;
		}
		const { remote, what } = chosen;
		const on = await this.turnOn(remote.name, what);
		const included = [
			...(on.untracked ? ['untracked files included'] : []),
			...(on.transcripts ? ['transcripts included'] : []),
			...(on.timeline ? ['step files included'] : []),
		];
		void showInformationMessage(
			`Baton shares its records through “${remote.name}”${included.length ? `, ${included.join(', ')}` : ''}. Nothing has been sent yet.`,
			'Sync Now',
		).then((choice) => {
			if (choice) {
				void this.syncNow(true);
			}
		});
		return on;
	}

	private async turnOn(remote: string, what: { transcripts: boolean; untracked: boolean; timeline: boolean }): Promise<SyncRemoteDto> {
		const result = await this.workspace.request(syncEnable, { remote, ...what });
		await this.refresh();
		return { name: result.remote, enabled: true, transcripts: result.transcripts, untracked: result.untracked, timeline: result.timeline, inGit: true };
	}

	/**
	 * Takes back what this machine shared: a checkpoint, a session (with its checkpoints), or
	 * everything since a time, picked from this machine's own records; a modal says plainly what it
	 * does and what it cannot undo before anything moves. `{ checkpoint }`, `{ session }` or
	 * `{ since }` (a caller that has decided: a test, a view's menu) skips the picking, not the modal.
	 */
	private async retract(arg?: unknown): Promise<SyncRetractResultDto | undefined> {
		const given = arg && typeof arg === 'object' ? (arg as { checkpoint?: unknown; session?: unknown; since?: unknown }) : {};
		let request: { checkpoint?: string; session?: string; since?: string } | undefined =
			typeof given.checkpoint === 'string'
				? { checkpoint: given.checkpoint }
				: typeof given.session === 'string'
					? { session: given.session }
					: typeof given.since === 'string'
						? { since: given.since }
						: undefined;
		let what = '';
		if (!request) {
			const picked = await pickRetraction(this.workspace);
			if (!picked) {
				return undefined;
			}
			({ request, what } = picked);
		}
		what ||= request.checkpoint
			? `checkpoint ${request.checkpoint}`
			: request.session
				? `session ${request.session} and its checkpoints`
				: `everything this machine shared since ${request.since}`;
		if (!(await confirmRetraction(what))) {
			return undefined;
		}
		try {
			const result = await vscode.window.withProgress(
				{ location: vscode.ProgressLocation.Notification, title: 'Baton: taking back shared records' },
				() => this.workspace.request(syncRetract, request),
			);
			const reached = [...new Set(result.pushed.map((p) => p.remote))];
			const message = `Baton took back ${what} (${result.events} record(s))${reached.length ? `; rewritten on ${reached.map((r) => `“${r}”`).join(', ')}` : ''}.${result.unreached.length ? ` Not reached: ${result.unreached.map((u) => `“${u.remote}”`).join(', ')} — the rewrite goes with the next push.` : ''}`;
			void (result.unreached.length ? showWarningMessage(message) : showInformationMessage(message));
			for (const line of result.cannotUndo) {
				this.workspace.log.info(`sync retract: ${line}`);
			}
			await this.workspace.refresh();
			return result;
		} catch (error) {
			void showErrorMessage(`Baton could not take back ${what}: ${(error as Error).message}`);
			return undefined;
		} finally {
			await this.refresh();
		}
	}

	/** Turns sharing off for a remote (the one, or the one picked); what was pushed stays on the remote. */
	private async disable(arg?: unknown): Promise<string | undefined> {
		const given = arg && typeof arg === 'object' ? (arg as { remote?: unknown }) : {};
		let name = typeof given.remote === 'string' ? given.remote : undefined;
		if (name === undefined) {
			const enabled = (await this.workspace.request(syncRemotes, undefined)).remotes.filter((r) => r.enabled);
			if (enabled.length === 0) {
				void showInformationMessage('Baton shares through no remote.');
				return undefined;
			}
			name =
				enabled.length === 1
					? enabled[0]?.name
					: await showQuickPick(
							enabled.map((r) => r.name),
							{ placeHolder: 'Stop sharing through which remote?' },
						);
			if (name === undefined) {
				return undefined;
			}
		}
		await this.workspace.request(syncDisable, { remote: name });
		await this.refresh();
		if (given.remote === undefined) {
			void showInformationMessage(`Baton no longer shares through “${name}”. What was already pushed stays there (under refs/baton/).`);
		}
		return name;
	}

	/** Pull then push; the explicit command reports its outcome and any refusal. */
	async syncNow(explicit: boolean): Promise<SyncNowResultDto | undefined> {
		if (this.running) {
			await this.running.catch(() => undefined);
		}
		if (explicit && !this.enabled) {
			await this.refresh();
			if (!this.enabled) {
				// Said, not reported as a sync of nothing ("0 new records; pushed 0 refs").
				void showInformationMessage(
					'Baton shares its records through no git remote yet, so there is nothing to sync.',
					'Share Through a Git Remote…',
				).then((choice) => {
					if (choice) {
						void vscode.commands.executeCommand(CommandIds.syncEnable);
					}
				});
				return undefined;
			}
		}
		const run = this.workspace.request(syncNow, undefined);
		this.running = run;
		try {
			const result = await (explicit
				? vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Baton: syncing' }, () => run)
				: run);
			if (result.newEvents > 0) {
				await this.workspace.refresh();
			}
			if (explicit) {
				vscode.window.setStatusBarMessage(
					`$(sync) Baton: ${result.newEvents} new record(s), ${result.sessions.added} new session(s); pushed ${result.pushed.length} ref(s)`,
					5_000,
				);
			}
			this.lastShownError = undefined;
			this.tellRefused(result);
			this.tellLeftOut(result);
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

	/** Checkpoint files the push kept off the remote (a credential found, or unreadable): named, so the person can fix them. */
	private tellLeftOut(result: SyncNowResultDto): void {
		const left = result.leftOut ?? [];
		if (left.length === 0) {
			return;
		}
		const paths = [...new Set(left.map((f) => f.path))];
		const first = left[0];
		void showWarningMessage(
			`Baton kept ${paths.length === 1 ? escapeControls(paths[0] ?? '') : `${paths.length} files`} off the remote: ${paths.length === 1 && first ? `it ${first.reason}` : `each looks like it holds a credential or could not be scanned (${paths.slice(0, 3).map(escapeControls).join(', ')}${paths.length > 3 ? ', …' : ''})`}. Everything else was shared; the file stays in this machine’s checkpoints and Replay.`,
			'Show Log',
		).then((choice) => {
			if (choice === 'Show Log') {
				this.workspace.log.show(true);
			}
		});
		for (const f of left) {
			this.workspace.log.warn(
				`sync: ${f.path} was left out of ${f.step ? `step ${f.step.step} of session ${f.step.sessionId}` : `checkpoint ${(f.snapshot ?? '').slice(0, 10)}`} on the remote: it ${f.reason}`,
			);
		}
	}

	/** Pulled records that are no valid event were left out: said once (a pull refuses each only once), the log has them. */
	private tellRefused(result: SyncNowResultDto): void {
		if (result.refusedCount === 0) {
			return;
		}
		const first = result.refused[0];
		void showWarningMessage(
			`Baton sync left out ${result.refusedCount} pulled record(s) that are no valid event (written by something other than Baton, or damaged)${first ? `, first ${first.id}: ${first.reason}` : ''}. The rest was merged.`,
			'Show Log',
		).then((choice) => {
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
		void showErrorMessage(`Baton sync: ${message}`, 'Retry', 'Show Log').then((choice) => {
			if (choice === 'Retry') {
				void this.syncNow(true);
			} else if (choice === 'Show Log') {
				this.workspace.log.show(true);
			}
		});
	}
}
