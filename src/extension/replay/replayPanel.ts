/**
 * `Baton: Replay Session`: a session's timeline in a webview (webview/replayMain.ts) — prompts, agent
 * and human steps, checkpoints and approvals on one axis. Selecting a step shows its files, where they
 * stand now and the transcript around it; Enter or a file opens the diff editor; `Revert This Step`
 * undoes it after a confirmation. Messages from the page are checked: it is an untrusted page.
 *
 * First paint: the panel is created as the command runs, so VS Code builds the webview while the
 * timeline is read; the page then arrives with its first screen of rows written into it (replayPage.ts),
 * shown without waiting for its script, which asks for the whole timeline once it has loaded.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { timelineGet, timelineRevert, timelineStep, type StepDetailDto, type TimelineDto } from '../../protocol/timelineRpc';
import { replayToHost, type HostToReplay, type ReplayFromPage } from '../../protocol/replayMessages';
import type { BatonWorkspace } from '../batonWorkspace';
import { command, pickSession, sessionIdOf } from '../commands/commandSupport';
import { CommandIds } from '../ids';
import { escapeHtml } from '../webviews/escapeHtml';
import { replayPageHtml } from './replayPage';
import { openStepDiff } from './timelineDocuments';
import { showInformationMessage, showWarningMessage } from '../messages';

export const replayCommandId = CommandIds.replaySession;
const replayViewType = 'baton.replay';

type Paint = Omit<Extract<ReplayFromPage, { type: 'painted' }>, 'type'>;

/** A message from the page, checked (an untrusted page): null when it is none of the Replay's. */
function parseMessage(value: unknown): ReplayFromPage | null {
	const parsed = replayToHost.safeParse(value);
	return parsed.success ? parsed.data : null;
}

export class ReplayPanel implements vscode.Disposable {
	private panel: vscode.WebviewPanel | undefined;
	/** The timeline the page shows. */
	private timeline: TimelineDto | undefined;
	/** The step the page's first screen was written around, for its script's `ready`. */
	private focusStep: number | undefined;
	/** Counts the command's runs: a slower read of an earlier run must not replace a later one's page. */
	private generation = 0;
	private readonly details = new Map<string, StepDetailDto>();
	/** The page's last first paint (ms after the page loaded and after the command; rows on screen), for the log and the benchmark. */
	lastPaint: Paint | undefined;
	/** Whether the next paint is the first of a page a command just wrote (a reloaded page is not). */
	private paintAnswersCommand = false;

	constructor(
		private readonly extensionUri: vscode.Uri,
		private readonly workspace: BatonWorkspace,
	) {}

	async show(sessionId?: string, focusStep?: number, startedAt = Date.now()): Promise<void> {
		const generation = ++this.generation;
		// The read starts first; the panel is created meanwhile (VS Code's part of the wait) and filled once it is in.
		const readStarted = Date.now();
		const reading = this.workspace.request(timelineGet, sessionId ? { sessionId } : {});
		reading.catch(() => undefined);
		const shown = this.panel ? this.timeline : undefined;
		const panel = this.panel ?? this.createPanel();
		panel.reveal();
		let timeline: TimelineDto;
		try {
			timeline = await reading;
		} catch (error) {
			if (generation === this.generation) {
				this.timeline = undefined;
				panel.webview.html = this.errorHtml((error as Error).message);
			}
			return;
		}
		if (generation !== this.generation || this.panel !== panel) {
			return;
		}
		this.timeline = timeline;
		this.details.clear();
		if (shown?.session === timeline.session) {
			// The page is open on this session: its timeline as it is now, without reloading it (the selection stays).
			// A page VS Code reloads later (hidden, then shown) asks again with `ready`: it gets this step too.
			this.focusStep = focusStep ?? this.focusStep;
			void panel.webview.postMessage({ type: 'timeline', data: timeline, ...(focusStep !== undefined ? { focusStep } : {}) } satisfies HostToReplay);
			return;
		}
		this.lastPaint = undefined;
		this.paintAnswersCommand = true;
		this.focusStep = focusStep;
		const nonce = randomBytes(16).toString('base64');
		const script = panel.webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview', 'replay.js')).toString();
		panel.webview.html = replayPageHtml({
			nonce,
			cspSource: panel.webview.cspSource,
			scriptUri: script,
			commandStartedAt: startedAt,
			readMs: Date.now() - readStarted,
			timeline,
			...(focusStep !== undefined ? { focusStep } : {}),
		});
	}

	/** An empty panel at once: VS Code builds its webview while the timeline is read. */
	private createPanel(): vscode.WebviewPanel {
		const panel = vscode.window.createWebviewPanel(replayViewType, 'Baton: Replay', vscode.ViewColumn.Active, {
			enableScripts: true,
			localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview')],
		});
		this.panel = panel;
		panel.onDidDispose(() => {
			if (this.panel === panel) {
				this.panel = undefined;
				this.timeline = undefined;
			}
		});
		panel.webview.onDidReceiveMessage((raw: unknown) => void this.onMessage(parseMessage(raw)));
		return panel;
	}

	private async onMessage(message: ReplayFromPage | null): Promise<void> {
		const post = (m: HostToReplay): void => void this.panel?.webview.postMessage(m);
		try {
			switch (message?.type) {
				case 'ready':
					// The page's script has loaded: the whole timeline (its first screen was written into the HTML).
					if (this.timeline) {
						post({ type: 'timeline', data: this.timeline, ...(this.focusStep !== undefined ? { focusStep: this.focusStep } : {}) });
					}
					return;
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
				case 'painted': {
					// Only the first paint of a page answers the command that wrote it: VS Code reloads a hidden
					// tab's page when it is shown again, and that page still carries the command's time.
					const fromCommandMs = this.paintAnswersCommand ? message.fromCommandMs : undefined;
					this.paintAnswersCommand = false;
					this.lastPaint = {
						ms: message.ms,
						entries: message.entries,
						rows: message.rows,
						...(fromCommandMs !== undefined ? { fromCommandMs } : {}),
					};
					this.workspace.log.debug(
						`Replay: ${message.entries} entries, first ${message.rows} rows painted ${fromCommandMs !== undefined ? `${fromCommandMs.toFixed(0)} ms after the command, ` : '(page reloaded) '}${message.ms.toFixed(0)} ms after the page loaded`,
					);
					return;
				}
				default:
					return;
			}
		} catch (error) {
			post({ type: 'error', message: (error as Error).message });
		}
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
		const choice = await showWarningMessage(
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
		void showInformationMessage(`Reverted ${result.reverted.length} file(s) of step ${result.step}${skipped}.`);
		void this.panel?.webview.postMessage({ type: 'step', detail: await this.detail(id) } satisfies HostToReplay);
	}

	private errorHtml(message: string): string {
		return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><title>Baton: Replay</title></head>
<body><p>The replay could not be read: ${escapeHtml(message)}</p></body></html>`;
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
			const id =
				sessionIdOf(arg) ??
				(await pickSession(workspace, ['active', 'suspended', 'ended', 'orphaned'], 'Replay which session?', 'No sessions yet.'))?.id;
			if (id) {
				// The first-paint clock starts here: once the session is known (a person's pick is not Baton's time).
				await panel.show(id, typeof step === 'number' && Number.isInteger(step) ? step : undefined, Date.now());
			}
		},
		workspace.log,
	);
}
