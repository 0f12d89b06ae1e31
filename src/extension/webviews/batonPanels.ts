import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { webviewKinds, webviewToHost, type HostToWebview, type WebviewKind, type WebviewToHost } from '../../protocol/webview';
import { CommandIds, type CommandId } from '../ids';
import type { PanelHost } from './panelHost';
import { briefingPanel } from './panels/briefingPanel';
import { createComparePanel } from './panels/comparePanel';
import { detailsPanel } from './panels/detailsPanel';
import { graphPanel } from './panels/graphPanel';
import { describeError, type AnyPanelProvider, type PanelProvider, type PanelTarget } from './panels/panelProvider';
import { webviewHtml } from './webviewHtml';

const transitionCommands: Record<'end' | 'suspend' | 'resume', CommandId> = {
	end: CommandIds.endSession,
	suspend: CommandIds.suspendSession,
	resume: CommandIds.resumeSession,
};

/** Data changes come in bursts (one per journal commit): panels refresh once per burst. */
const refreshDelayMs = 150;

interface OpenPanel {
	readonly kind: WebviewKind;
	readonly panel: vscode.WebviewPanel;
	target: PanelTarget;
	/** The page said `ready` since it last loaded. A hidden page is destroyed (no retainContextWhenHidden) and says it again when shown. */
	ready: boolean;
	visible: boolean;
	/** Bumped by every load, so a slow response never overwrites a newer one. */
	generation: number;
	readonly disposables: vscode.Disposable[];
}

/**
 * The host of the briefing, session details, chain graph and checkpoint comparison panels: one panel
 * per kind, reused and revealed; each kind's data, title and own messages come from its provider
 * (./panels). Inbound messages are validated (a webview is an untrusted page); data is fetched on
 * `ready`, on `refresh`, when a panel shows again, and (debounced) whenever the data changes.
 */
export class BatonPanels implements vscode.Disposable {
	private readonly providers: { [K in WebviewKind]: PanelProvider<K> };
	private readonly panels = new Map<WebviewKind, OpenPanel>();
	private readonly disposables: vscode.Disposable[] = [];
	private readonly iconPath: { light: vscode.Uri; dark: vscode.Uri } | undefined;
	private refreshTimer: ReturnType<typeof setTimeout> | undefined;

	constructor(
		private readonly extensionUri: vscode.Uri,
		private readonly host: PanelHost,
	) {
		this.providers = { briefing: briefingPanel, details: detailsPanel, graph: graphPanel, compare: createComparePanel() };
		const light = vscode.Uri.joinPath(extensionUri, 'media', 'baton.svg');
		const dark = vscode.Uri.joinPath(extensionUri, 'media', 'baton-dark.svg');
		this.iconPath = existsSync(light.fsPath) ? { light, dark: existsSync(dark.fsPath) ? dark : light } : undefined;
		this.disposables.push(host.onDidChangeData(() => this.scheduleRefresh()));
		for (const kind of webviewKinds) {
			this.disposables.push(
				vscode.window.registerWebviewPanelSerializer(this.providers[kind].viewType, {
					deserializeWebviewPanel: (panel, state: unknown) => this.restore(kind, panel, state),
				}),
			);
		}
	}

	showBriefing(target: { sessionId?: string; scope?: string }): Promise<void> {
		return this.show({ kind: 'briefing', ...target });
	}

	showDetails(sessionId: string): Promise<void> {
		return this.show({ kind: 'details', sessionId });
	}

	showGraph(focusId?: string): Promise<void> {
		return this.show({ kind: 'graph', focusId });
	}

	/** Compares checkpoint `from` with checkpoint `to`, or with the working tree when `to` is omitted. */
	showComparison(from: string, to?: string): Promise<void> {
		return this.show({ kind: 'compare', from, to });
	}

	/** What checkpoint `id` changed, to review it: the checkpoint before it (or, for the first, nothing) → it. */
	showChanges(id: string): Promise<void> {
		return this.show({ kind: 'compare', changesOf: id });
	}

	dispose(): void {
		clearTimeout(this.refreshTimer);
		for (const open of [...this.panels.values()]) {
			open.panel.dispose();
		}
		this.panels.clear();
		for (const disposable of this.disposables.splice(0)) {
			disposable.dispose();
		}
	}

	private provider(kind: WebviewKind): AnyPanelProvider {
		return this.providers[kind] as AnyPanelProvider;
	}

	private titleFor(target: PanelTarget): string {
		return (this.provider(target.kind).titleFor as (t: PanelTarget) => string)(target);
	}

	private async show(target: PanelTarget, column: vscode.ViewColumn = vscode.ViewColumn.Active): Promise<void> {
		const existing = this.panels.get(target.kind);
		if (existing) {
			existing.target = target;
			existing.panel.title = this.titleFor(target);
			existing.panel.reveal(undefined, false);
			// A live page gets the new target's data now; a hidden one reloads and asks with `ready`.
			if (existing.ready) {
				await this.load(existing);
			}
			return;
		}
		const panel = vscode.window.createWebviewPanel(
			this.providers[target.kind].viewType,
			this.titleFor(target),
			{ viewColumn: column, preserveFocus: false },
			{
				...this.webviewOptions(),
				enableFindWidget: true,
				retainContextWhenHidden: false,
			},
		);
		this.adopt(panel, target);
	}

	/** A panel VS Code kept across a window reload: its webview state says what it showed. */
	private async restore(kind: WebviewKind, panel: vscode.WebviewPanel, state: unknown): Promise<void> {
		const target = this.provider(kind).targetFromState(state);
		if (!target || this.panels.has(kind)) {
			panel.dispose();
			return;
		}
		this.adopt(panel, target);
	}

	private webviewOptions(): vscode.WebviewOptions {
		return {
			enableScripts: true,
			localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(this.extensionUri, 'media')],
		};
	}

	private adopt(panel: vscode.WebviewPanel, target: PanelTarget): void {
		const open: OpenPanel = { kind: target.kind, panel, target, ready: false, visible: panel.visible, generation: 0, disposables: [] };
		this.panels.set(open.kind, open);
		panel.webview.options = this.webviewOptions();
		panel.iconPath = this.iconPath;
		open.disposables.push(
			panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(open, raw)),
			panel.onDidChangeViewState(() => {
				const wasVisible = open.visible;
				open.visible = panel.visible;
				if (!panel.visible) {
					open.ready = false;
				} else if (!wasVisible && open.ready) {
					void this.load(open);
				}
			}),
			panel.onDidDispose(() => {
				open.generation++;
				for (const disposable of open.disposables.splice(0)) {
					disposable.dispose();
				}
				if (this.panels.get(open.kind) === open) {
					this.panels.delete(open.kind);
					this.provider(open.kind).closed?.();
				}
			}),
		);
		panel.webview.html = webviewHtml(panel.webview, this.extensionUri, open.kind, panel.title);
	}

	private receive(open: OpenPanel, raw: unknown): void {
		const parsed = webviewToHost.safeParse(raw);
		if (!parsed.success) {
			this.host.log.warn(`Ignored a malformed message from the ${open.kind} panel: ${parsed.error.message}`);
			return;
		}
		this.handle(open, parsed.data).catch((error: unknown) => this.fail(open, error, parsed.data.type));
	}

	/** The messages every panel may send; the rest belong to the panel's provider. */
	private async handle(open: OpenPanel, message: WebviewToHost): Promise<void> {
		switch (message.type) {
			case 'ready':
				open.ready = true;
				return this.load(open);
			case 'refresh':
				return this.load(open);
			case 'openSession':
				// From the graph, details open beside it so the graph keeps its place.
				return this.show(
					{ kind: 'details', sessionId: message.sessionId },
					open.kind === 'graph' ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active,
				);
			case 'openBriefing':
				return this.showBriefing({ sessionId: message.sessionId });
			case 'focusTask':
				await vscode.commands.executeCommand(CommandIds.focusTask, { id: message.taskId });
				return;
			case 'startSession':
				await vscode.commands.executeCommand(CommandIds.startSession, { scope: message.scope });
				return;
			case 'transition':
				await vscode.commands.executeCommand(transitionCommands[message.action], { id: message.sessionId });
				return;
			case 'linkIssue':
				await vscode.commands.executeCommand(CommandIds.linkIssue, { id: message.sessionId });
				return;
			default: {
				const handled = (await this.provider(open.kind).handle?.(message, this.host)) ?? false;
				if (!handled) {
					this.host.log.warn(`Ignored ${message.type} from the ${open.kind} panel`);
				}
			}
		}
	}

	private scheduleRefresh(): void {
		clearTimeout(this.refreshTimer);
		this.refreshTimer = setTimeout(() => {
			this.refreshTimer = undefined;
			// Hidden panels have no page to update; they fetch on their next `ready`.
			for (const open of this.panels.values()) {
				if (open.ready && open.panel.visible) {
					void this.load(open);
				}
			}
		}, refreshDelayMs);
	}

	private async load(open: OpenPanel): Promise<void> {
		const generation = ++open.generation;
		const provider = this.provider(open.kind);
		let message: HostToWebview;
		try {
			message = await (provider.fetch as (host: PanelHost, target: PanelTarget) => Promise<HostToWebview>)(this.host, open.target);
		} catch (error) {
			if (generation === open.generation) {
				this.fail(open, error, 'load');
			}
			return;
		}
		if (generation !== open.generation) {
			return;
		}
		const title = (provider.shown as ((data: HostToWebview) => string | undefined) | undefined)?.(message);
		if (title !== undefined) {
			open.panel.title = title;
		}
		await open.panel.webview.postMessage(message);
	}

	private fail(open: OpenPanel, error: unknown, action: string): void {
		const message = describeError(error);
		this.host.log.error(`Baton ${open.kind} panel: ${action} failed: ${message}`);
		if (this.panels.get(open.kind) === open) {
			void open.panel.webview.postMessage({ type: 'error', message } satisfies HostToWebview);
		}
	}
}
