/**
 * Which workspace folder Baton serves (in a multi-root workspace: the folder of the active editor),
 * its backend, and the status every view reads. Context keys for `when` clauses are set here.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { RequestType } from 'vscode-jsonrpc/node';
import type { NotificationShowDto } from '../protocol/notificationDto';
import { workspaceStatus, type RpcErrorData, type WorkspaceStatus } from '../protocol/rpc';
import { configSection, ContextKeys, defaultCheckpointExcludes } from './ids';
import { Disposable } from './lifecycle';
import { ServerClient } from './serverClient';

/** VS Code setting → engine option. Only values a person set are passed; `.baton/config.json` fills the rest. */
const settingToEngine: Record<string, string> = {
	'gc.orphanAfter': 'orphanAfter',
	'gc.autoEndAfter': 'autoEndAfter',
	'limits.maxConcurrentSessions': 'maxConcurrentSessions',
	'limits.maxActiveTasksPerScope': 'maxActiveTasksPerScope',
	'scopes.validation': 'scopeValidation',
	'scopes.allowNested': 'allowNestedScopes',
	'scopes.allowOverlap': 'allowScopeOverlap',
	'briefing.nextTasks': 'briefingNextTasks',
	'checkpoints.policy': 'checkpoints.policy',
	'checkpoints.periodicInterval': 'checkpoints.periodicInterval',
	'checkpoints.escalation.costUsd': 'checkpoints.escalation.costUsd',
	'checkpoints.escalation.duration': 'checkpoints.escalation.duration',
	'checkpoints.escalation.errorCount': 'checkpoints.escalation.errorCount',
	'checkpoints.maxFileSize': 'checkpoints.maxFileSize',
	'checkpoints.timeBudget': 'checkpoints.timeBudget',
	'checkpoints.completeOnEnd': 'checkpoints.completeOnEnd',
	// Notifications: non-secret settings only (secrets live in SecretStorage, asked for per delivery).
	...Object.fromEntries(
		[
			'enabled',
			'channels',
			'routing.info',
			'routing.notice',
			'routing.warning',
			'routing.critical',
			'priorities',
			'dedupWindow',
			'rateLimit.perMinute',
			'budget.sessionUsd',
			'budget.threshold',
			'timeout',
			'ntfy.server',
			'ntfy.topic',
			'smtp.host',
			'smtp.port',
			'smtp.secure',
			'smtp.requireTls',
			'smtp.allowInvalidCertificate',
			'smtp.user',
			'smtp.from',
			'smtp.to',
			// Not sms.server: Twilio's credentials go where it points, and workspace settings come with a clone.
			'sms.to',
			'sms.from',
			'sms.messagingServiceSid',
			'sms.minPriority',
			'sms.maxLength',
		].map((key) => [`notifications.${key}`, `notifications.${key}`]),
	),
};

export class BatonWorkspace extends Disposable {
	private readonly clients = new Map<string, ServerClient>();
	private currentRoot: string | undefined;
	private statusValue: WorkspaceStatus | undefined;
	/** The folder `statusValue` describes. */
	private statusRoot: string | undefined;
	private refreshTimer: NodeJS.Timeout | undefined;
	private refreshDue = 0;
	/** Failures in a row per thing read (`retryLater`). */
	private readonly failures = new Map<string, number>();
	private readonly dataEmitter = this.register(new vscode.EventEmitter<void>());
	private readonly statusEmitter = this.register(new vscode.EventEmitter<WorkspaceStatus | undefined>());
	/** The served folder's data changed (or the served folder changed): views reload. */
	readonly onDidChangeData = this.dataEmitter.event;
	readonly onDidChangeStatus = this.statusEmitter.event;
	private readonly notificationEmitter = this.register(new vscode.EventEmitter<NotificationShowDto>());
	/** A notification any folder's backend asks the editor to show (the `editor` channel). */
	readonly onDidReceiveNotification = this.notificationEmitter.event;

	constructor(
		private readonly extensionUri: vscode.Uri,
		readonly log: vscode.LogOutputChannel,
		/** Where tokens, webhook URLs and passwords live; the backend asks for them one at a time. */
		readonly secrets: vscode.SecretStorage,
	) {
		super();
		this.currentRoot = this.pickRoot();
		this.register(vscode.window.onDidChangeActiveTextEditor(() => this.followActiveEditor()));
		this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.followActiveEditor(true)));
		this.register(
			vscode.workspace.onDidChangeConfiguration((e) => {
				if (e.affectsConfiguration(configSection)) {
					this.log.info('settings changed: restarting the backend with them');
					this.restartAll();
				}
			}),
		);
		this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.restartAll()));
		this.register({ dispose: () => this.clients.forEach((c) => c.dispose()) });
		void this.setContext();
	}

	get root(): string | undefined {
		return this.currentRoot;
	}

	get status(): WorkspaceStatus | undefined {
		return this.statusValue;
	}

	get trusted(): boolean {
		return vscode.workspace.isTrusted;
	}

	/** The backend of the served folder, started on first use. */
	get client(): ServerClient | undefined {
		const root = this.currentRoot;
		if (!root) {
			return undefined;
		}
		let client = this.clients.get(root);
		if (!client) {
			client = new ServerClient({
				serverPath: vscode.Uri.joinPath(this.extensionUri, 'dist', 'backend.js').fsPath,
				workspaceRoot: root,
				config: this.engineConfig(root),
				readOnly: !vscode.workspace.isTrusted,
				log: this.log,
				hostEnvironment: hostEnvironment(),
				secrets: this.secrets,
			});
			client.onCheckpointProgress((progress) => this.showSnapshotProgress(progress));
			client.onNotification((notification) => this.notificationEmitter.fire(notification));
			client.onDidChangeData(() => {
				if (this.currentRoot === root) {
					this.scheduleRefresh();
				}
			});
			this.clients.set(root, client);
		}
		return client;
	}

	async request<P, R>(type: RequestType<P, R, RpcErrorData>, params: P, token?: vscode.CancellationToken): Promise<R> {
		const client = this.client;
		if (!client) {
			throw new Error('Open a folder to use Baton: it keeps its data in the workspace.');
		}
		return client.request(type, params, token);
	}

	/** Ask the backend for the status now (views call this after their own writes, too). */
	async refresh(): Promise<WorkspaceStatus | undefined> {
		this.clearRefreshTimer();
		const root = this.currentRoot;
		try {
			this.statusValue = root ? await this.request(workspaceStatus, undefined) : undefined;
			this.statusRoot = root;
			this.retried('status');
		} catch (error) {
			this.log.error(`could not read the workspace status: ${(error as Error).message}`);
			// A passing failure (the backend restarting, a busy machine) must not make a set-up folder
			// look new, with the welcome view's Set Up button: keep what was known of it, and ask again.
			if (this.statusRoot !== root) {
				this.statusValue = undefined;
			}
			this.retryLater('status');
		}
		await this.setContext();
		this.statusEmitter.fire(this.statusValue);
		this.dataEmitter.fire();
		return this.statusValue;
	}

	/** Several changes in a burst (an agent's hook calls) refresh once; an earlier refresh already scheduled stands. */
	scheduleRefresh(delayMs = 80): void {
		const due = Date.now() + delayMs;
		if (this.refreshTimer && this.refreshDue <= due) {
			return;
		}
		this.clearRefreshTimer();
		this.refreshDue = due;
		this.refreshTimer = setTimeout(() => void this.refresh(), delayMs);
	}

	/**
	 * `what` (the status, a view's data) could not be read: refresh again after a pause that grows
	 * with each failure in a row (1 s, 2 s, … 30 s), so a view never stays empty after a passing error.
	 */
	retryLater(what: string): void {
		const failures = (this.failures.get(what) ?? 0) + 1;
		this.failures.set(what, failures);
		this.scheduleRefresh(Math.min(1000 * 2 ** (failures - 1), 30_000));
	}

	/** `what` was read again: its next failure retries after the shortest pause. */
	retried(what: string): void {
		this.failures.delete(what);
	}

	private clearRefreshTimer(): void {
		clearTimeout(this.refreshTimer);
		this.refreshTimer = undefined;
	}

	private progress: { report(p: { phase: string; done: number; total: number }): void; timer: NodeJS.Timeout } | undefined;

	/** A long snapshot shows in the status bar's progress area until it has been quiet for a moment. */
	private showSnapshotProgress(p: { phase: string; done: number; total: number }): void {
		if (!this.progress) {
			let report: (value: { message?: string }) => void = () => {};
			let finish: () => void = () => {};
			void vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Baton: snapshot' }, (progress) => {
				report = (value) => progress.report(value);
				return new Promise<void>((resolve) => {
					finish = resolve;
				});
			});
			const state = {
				report: (q: { phase: string; done: number; total: number }) => {
					report({ message: q.total > 0 ? `${q.phase} ${q.done}/${q.total} files` : q.phase });
					clearTimeout(state.timer);
					state.timer = setTimeout(() => {
						finish();
						this.progress = undefined;
					}, 1_500);
				},
				timer: setTimeout(() => undefined, 0),
			};
			this.progress = state;
		}
		this.progress.report(p);
	}

	private restartAll(): void {
		this.clients.forEach((c) => c.dispose());
		this.clients.clear();
		this.scheduleRefresh(0);
	}

	private followActiveEditor(force = false): void {
		const next = this.pickRoot();
		if (next !== this.currentRoot || force) {
			this.currentRoot = next;
			this.log.info(`serving ${next ?? 'no folder'}`);
			this.scheduleRefresh(0);
		}
	}

	/** The active editor's folder; else the first folder that has `.baton/`; else the first folder. */
	private pickRoot(): string | undefined {
		const folders = vscode.workspace.workspaceFolders ?? [];
		const editorUri = vscode.window.activeTextEditor?.document.uri;
		const fromEditor = editorUri ? vscode.workspace.getWorkspaceFolder(editorUri) : undefined;
		if (fromEditor?.uri.scheme === 'file') {
			return fromEditor.uri.fsPath;
		}
		if (this.currentRoot && folders.some((f) => f.uri.fsPath === this.currentRoot)) {
			return this.currentRoot;
		}
		const files = folders.filter((f) => f.uri.scheme === 'file');
		return (files.find((f) => fs.existsSync(path.join(f.uri.fsPath, '.baton'))) ?? files[0])?.uri.fsPath;
	}

	private engineConfig(root: string): Record<string, unknown> {
		const config = vscode.workspace.getConfiguration(configSection, vscode.Uri.file(root));
		const out: Record<string, unknown> = {};
		for (const [setting, option] of Object.entries(settingToEngine)) {
			const inspected = config.inspect(setting);
			const value = inspected?.workspaceFolderValue ?? inspected?.workspaceValue ?? inspected?.globalValue;
			// An emptied text setting (an ntfy topic, an SMTP host) means "not set".
			if (value !== undefined && value !== '') {
				setPath(out, option.split('.'), value);
			}
		}
		const extra = config.get<string[]>('checkpoints.excludes', []);
		if (extra.length > 0) {
			// Added to Baton's defaults, not instead of them.
			setPath(out, ['checkpoints', 'excludes'], [...defaultCheckpointExcludes, ...extra]);
		}
		return out;
	}

	private async setContext(): Promise<void> {
		const s = this.statusValue;
		const counts = s?.counts;
		const total = counts ? Object.values(counts).reduce((a, b) => a + b, 0) : 0;
		const set = (key: string, value: boolean) => vscode.commands.executeCommand('setContext', key, value);
		await Promise.all([
			set(ContextKeys.initialized, s?.initialized === true),
			set(ContextKeys.hasSessions, total > 0),
			set(ContextKeys.hasActiveSession, (counts?.active ?? 0) > 0),
			set(ContextKeys.hasResumableSession, (counts?.suspended ?? 0) + (counts?.ended ?? 0) + (counts?.orphaned ?? 0) > 0),
			set(ContextKeys.hasStaleCandidates, (counts?.active ?? 0) + (counts?.orphaned ?? 0) > 0),
			set(ContextKeys.hasPendingApprovals, (s?.pendingCheckpoints.length ?? 0) > 0),
			set(ContextKeys.hasCheckpoints, s?.initialized === true),
		]);
	}
}

/** Extensions a person installed (built-ins would only add noise to environment diffs). */
function hostEnvironment(): { version: string | null; extensions: Record<string, string> } {
	const extensions: Record<string, string> = {};
	for (const ext of vscode.extensions.all) {
		const pkg = ext.packageJSON as { isBuiltin?: boolean; version?: string };
		if (!pkg.isBuiltin && ext.id !== 'vscode.git') {
			extensions[ext.id] = String(pkg.version ?? '');
		}
	}
	return { version: vscode.version, extensions };
}

function setPath(target: Record<string, unknown>, keys: string[], value: unknown): void {
	let node = target;
	for (const key of keys.slice(0, -1)) {
		node = (node[key] ??= {}) as Record<string, unknown>;
	}
	node[keys[keys.length - 1] as string] = value;
}
