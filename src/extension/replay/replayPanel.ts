/**
 * `Baton: Replay Session`: a session's timeline in a webview (webview/replayMain.ts) — prompts, agent
 * and human steps, checkpoints and approvals on one axis. Selecting a step shows its files, where they
 * stand now and the transcript around it; Enter or a file opens the diff editor; `Revert This Step`
 * undoes it after a confirmation. Messages from the page are checked: it is an untrusted page.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { timelineGet, timelineRevert, timelineStep, type StepDetailDto, type TimelineDto } from '../../protocol/timelineRpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { command, pickSession, sessionIdOf } from '../commands/commandSupport';
import { CommandIds } from '../ids';
import { openStepDiff } from './timelineDocuments';

export const replayCommandId = CommandIds.replaySession;
export const replayViewType = 'baton.replay';

type FromPage = { type: 'ready' } | { type: 'select'; id: string } | { type: 'openDiff'; id: string; path?: string } | { type: 'revert'; id: string } | { type: 'painted'; ms: number; entries: number; fromCommandMs?: number };

function parseMessage(value: unknown): FromPage | null {
	if (!value || typeof value !== 'object') {
		return null;
	}
	const m = value as Record<string, unknown>;
	const id = typeof m['id'] === 'string' && /^evt_[0-9A-Za-z_]{1,80}$/.test(m['id']) ? m['id'] : null;
	switch (m['type']) {
		case 'ready':
			return { type: 'ready' };
		case 'select':
		case 'revert':
			return id ? { type: m['type'], id } : null;
		case 'openDiff':
			return id ? { type: 'openDiff', id, ...(typeof m['path'] === 'string' ? { path: m['path'] } : {}) } : null;
		case 'painted':
			return typeof m['ms'] === 'number' && typeof m['entries'] === 'number'
				? { type: 'painted', ms: m['ms'], entries: m['entries'], ...(typeof m['fromCommandMs'] === 'number' && m['fromCommandMs'] >= 0 ? { fromCommandMs: m['fromCommandMs'] } : {}) }
				: null;
		default:
			return null;
	}
}

export class ReplayPanel implements vscode.Disposable {
	private panel: vscode.WebviewPanel | undefined;
	private sessionId: string | undefined;
	private focusStep: number | undefined;
	private timeline: TimelineDto | undefined;
	/** The timeline asked for when the command ran, while the page loads: the page's `ready` then waits less. */
	private prefetch: Promise<TimelineDto> | undefined;
	/** Date.now() when the command had its session: the page reports its first paint against it. */
	private commandStartedAt = 0;
	private readonly details = new Map<string, StepDetailDto>();
	/** The page's last first-paint time (ms after the page loaded, and after the command), for tests and the benchmark. */
	lastPaint: { ms: number; entries: number; fromCommandMs?: number } | undefined;

	constructor(
		private readonly extensionUri: vscode.Uri,
		private readonly workspace: BatonWorkspace,
	) {}

	async show(sessionId?: string, focusStep?: number, startedAt = Date.now()): Promise<void> {
		this.sessionId = sessionId;
		this.focusStep = focusStep;
		this.commandStartedAt = startedAt;
		this.details.clear();
		this.lastPaint = undefined;
		this.prefetch = this.fetchTimeline();
		// Read on `ready`; a page that never gets there must not leave an unhandled rejection behind.
		this.prefetch.catch(() => undefined);
		if (this.panel) {
			this.panel.reveal();
			this.panel.webview.html = this.html(this.panel.webview);
			return;
		}
		const panel = vscode.window.createWebviewPanel(replayViewType, 'Baton: Replay', vscode.ViewColumn.Active, {
			enableScripts: true,
			localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview')],
		});
		this.panel = panel;
		panel.onDidDispose(() => (this.panel = undefined));
		panel.webview.onDidReceiveMessage((raw: unknown) => void this.onMessage(parseMessage(raw)));
		panel.webview.html = this.html(panel.webview);
	}

	private async onMessage(message: FromPage | null): Promise<void> {
		const post = (m: unknown) => void this.panel?.webview.postMessage(m);
		try {
			switch (message?.type) {
				case 'ready': {
					// The prefetch once (a reloaded page asks again and gets the timeline as it is now).
					const pending = this.prefetch ?? this.fetchTimeline();
					this.prefetch = undefined;
					this.timeline = await pending;
					post({ type: 'timeline', data: this.timeline, ...(this.focusStep !== undefined ? { focusStep: this.focusStep } : {}) });
					return;
				}
				case 'select':
					post({ type: 'step', detail: await this.detail(message.id) });
					return;
				case 'openDiff': {
					const detail = await this.detail(message.id);
					const file = message.path ?? detail.step.files[0]?.path;
					if (file && (message.path === undefined || detail.step.files.some((f) => f.path === file))) {
						await openStepDiff(detail.step, file);
					}
					return;
				}
				case 'revert':
					await this.revert(message.id);
					return;
				case 'painted':
					this.lastPaint = { ms: message.ms, entries: message.entries, ...(message.fromCommandMs !== undefined ? { fromCommandMs: message.fromCommandMs } : {}) };
					this.workspace.log.info(
						`Replay: ${message.entries} entries painted ${message.fromCommandMs !== undefined ? `${message.fromCommandMs.toFixed(0)} ms after the command, ` : ''}${message.ms.toFixed(0)} ms after the page loaded`,
					);
					return;
				default:
					return;
			}
		} catch (error) {
			post({ type: 'error', message: (error as Error).message });
		}
	}

	private fetchTimeline(): Promise<TimelineDto> {
		return this.workspace.request(timelineGet, this.sessionId ? { sessionId: this.sessionId } : {});
	}

	private async detail(id: string): Promise<StepDetailDto> {
		const known = this.details.get(id);
		if (known) {
			return known;
		}
		const detail = await this.workspace.request(timelineStep, { id });
		this.details.set(id, detail);
		return detail;
	}

	private async revert(id: string): Promise<void> {
		const preview = await this.workspace.request(timelineRevert, { id, dryRun: true });
		const lines = [...preview.reverted.map((p) => `revert ${p}`), ...preview.skipped.map((s) => `leave ${s.path}: ${s.reason}`)];
		const choice = await vscode.window.showWarningMessage(
			`Revert step ${preview.step}? Baton takes a safety checkpoint first and leaves anything changed since alone.`,
			{ modal: true, detail: lines.join('\n') || 'Nothing to revert.' },
			'Revert This Step',
		);
		if (choice !== 'Revert This Step') {
			return;
		}
		const result = await this.workspace.request(timelineRevert, { id });
		this.details.delete(id);
		const skipped = result.skipped.length ? `; left alone: ${result.skipped.map((s) => `${s.path} (${s.reason})`).join(', ')}` : '';
		void vscode.window.showInformationMessage(`Reverted ${result.reverted.length} file(s) of step ${result.step}${skipped}.`);
		void this.panel?.webview.postMessage({ type: 'step', detail: await this.detail(id) });
	}

	private html(webview: vscode.Webview): string {
		const nonce = randomBytes(16).toString('base64');
		const script = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview', 'replay.js'));
		const csp = [`default-src 'none'`, `style-src ${webview.cspSource} 'nonce-${nonce}'`, `font-src ${webview.cspSource}`, `script-src 'nonce-${nonce}'`].join('; ');
		return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Baton: Replay</title>
</head>
<body data-view="replay" data-command-started="${this.commandStartedAt}">
<main id="root"><p role="status">Loading the replay…</p></main>
<script type="module" nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
	}

	dispose(): void {
		this.panel?.dispose();
	}
}

export function registerReplayCommand(workspace: BatonWorkspace, panel: ReplayPanel): vscode.Disposable {
	return command(
		CommandIds.replaySession,
		// (session) from the tree or palette; (session, step) from a line's provenance hover.
		async (arg?: unknown, step?: unknown) => {
			const id = sessionIdOf(arg) ?? (await pickSession(workspace, ['active', 'suspended', 'ended', 'orphaned'], 'Replay which session?', 'No sessions yet.'))?.id;
			if (id) {
				// The first-paint clock starts here: once the session is known (a person's pick is not Baton's time).
				await panel.show(id, typeof step === 'number' && Number.isInteger(step) ? step : undefined, Date.now());
			}
		},
		workspace.log,
	);
}
