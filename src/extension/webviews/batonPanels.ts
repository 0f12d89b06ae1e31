import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { z } from 'zod';
import type { ComparisonDto } from '../../protocol/checkpointDto';
import type { SessionDto } from '../../protocol/dto';
import { briefingGet, checkpointDiff, sessionDetails, sessionList } from '../../protocol/rpc';
import { webviewKinds, webviewToHost, type HostToWebview, type WebviewKind, type WebviewToHost } from '../../protocol/webview';
import { CommandIds, type CommandId } from '../ids';
import type { PanelHost } from './panelHost';
import { webviewHtml } from './webviewHtml';

/** What a panel shows; kept so `ready`, `refresh` and data changes can fetch it again. */
export type PanelTarget =
	| { kind: 'briefing'; sessionId?: string; scope?: string }
	| { kind: 'details'; sessionId: string }
	| { kind: 'graph'; focusId?: string }
	/** `to` undefined: the working tree. */
	| { kind: 'compare'; from: string; to?: string };

/** Webview panel view types (also the `onWebviewPanel:` activation events that restore them after a reload). */
export const panelViewTypes: Record<WebviewKind, string> = {
	briefing: 'baton.briefing',
	details: 'baton.sessionDetails',
	graph: 'baton.chainGraph',
	compare: 'baton.compare',
};

const panelTitles: Record<WebviewKind, string> = {
	briefing: 'Baton Briefing',
	details: 'Baton Session',
	graph: 'Baton Chain Graph',
	compare: 'Baton: Compare',
};

const transitionCommands: Record<'end' | 'suspend' | 'resume', CommandId> = {
	end: CommandIds.endSession,
	suspend: CommandIds.suspendSession,
	resume: CommandIds.resumeSession,
};

const checkpointActionCommands: Record<'approve' | 'reject' | 'rollback', CommandId> = {
	approve: CommandIds.approveCheckpoint,
	reject: CommandIds.rejectCheckpoint,
	rollback: CommandIds.rollbackCheckpoint,
};

/** The graph shows the newest sessions up to this many. */
const graphLimit = 2000;
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
	/** What a comparison panel last sent its page: its messages may only name these checkpoints and files. */
	shown?: ShownComparison;
	readonly disposables: vscode.Disposable[];
}

interface ShownComparison {
	readonly from: string;
	readonly to: string | undefined;
	readonly checkpointIds: ReadonlySet<string>;
	readonly paths: ReadonlySet<string>;
}

/**
 * The briefing, session details, chain graph and checkpoint comparison panels: one panel per kind, reused and revealed.
 * Inbound messages are validated (a webview is an untrusted page); data is fetched from the backend
 * on `ready`, on `refresh`, when a panel shows again, and (debounced) whenever the data changes.
 */
export class BatonPanels implements vscode.Disposable {
	private readonly panels = new Map<WebviewKind, OpenPanel>();
	private readonly disposables: vscode.Disposable[] = [];
	private readonly iconPath: { light: vscode.Uri; dark: vscode.Uri } | undefined;
	private refreshTimer: ReturnType<typeof setTimeout> | undefined;

	constructor(
		private readonly extensionUri: vscode.Uri,
		private readonly host: PanelHost,
	) {
		const light = vscode.Uri.joinPath(extensionUri, 'media', 'baton.svg');
		const dark = vscode.Uri.joinPath(extensionUri, 'media', 'baton-dark.svg');
		this.iconPath = existsSync(light.fsPath) ? { light, dark: existsSync(dark.fsPath) ? dark : light } : undefined;
		this.disposables.push(
			host.onDidChangeData(() => this.scheduleRefresh()),
			...webviewKinds.map((kind) =>
				vscode.window.registerWebviewPanelSerializer(panelViewTypes[kind], {
					deserializeWebviewPanel: (panel, state: unknown) => this.restore(kind, panel, state),
				}),
			),
		);
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

	private async show(target: PanelTarget, column: vscode.ViewColumn = vscode.ViewColumn.Active): Promise<void> {
		const existing = this.panels.get(target.kind);
		if (existing) {
			existing.target = target;
			existing.panel.title = titleFor(target);
			existing.panel.reveal(undefined, false);
			// A live page gets the new target's data now; a hidden one reloads and asks with `ready`.
			if (existing.ready) {
				await this.load(existing);
			}
			return;
		}
		const panel = vscode.window.createWebviewPanel(
			panelViewTypes[target.kind],
			titleFor(target),
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
		const target = targetFromState(kind, state);
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

	private async handle(open: OpenPanel, message: WebviewToHost): Promise<void> {
		switch (message.type) {
			case 'ready':
				open.ready = true;
				return this.load(open);
			case 'refresh':
				return this.load(open);
			case 'openSession':
				// From the graph, details open beside it so the graph keeps its place.
				return this.show({ kind: 'details', sessionId: message.sessionId }, open.kind === 'graph' ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active);
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
			case 'openFileDiff': {
				const shown = this.comparisonOf(open, message.type);
				if (!shown) {
					return;
				}
				if (!shown.paths.has(message.path)) {
					this.host.log.warn(`Ignored openFileDiff for a file the comparison does not list: ${JSON.stringify(message.path.slice(0, 200))}`);
					return;
				}
				await vscode.commands.executeCommand(CommandIds.diffCheckpointFile, { from: shown.from, to: shown.to, path: message.path });
				return;
			}
			case 'checkpointAction': {
				const shown = this.comparisonOf(open, message.type);
				if (!shown) {
					return;
				}
				if (!shown.checkpointIds.has(message.checkpointId)) {
					this.host.log.warn(`Ignored ${message.action} of checkpoint ${message.checkpointId}: not one of the compared checkpoints`);
					return;
				}
				await vscode.commands.executeCommand(checkpointActionCommands[message.action], { id: message.checkpointId });
				return;
			}
			default: {
				const unexpected: never = message;
				this.host.log.warn(`Unhandled webview message ${JSON.stringify(unexpected)}`);
			}
		}
	}

	/** The comparison a panel shows, for the messages only a comparison sends (else logged and `undefined`). */
	private comparisonOf(open: OpenPanel, type: string): ShownComparison | undefined {
		if (open.kind !== 'compare') {
			this.host.log.warn(`Ignored ${type} from the ${open.kind} panel`);
			return undefined;
		}
		if (!open.shown) {
			this.host.log.warn(`Ignored ${type}: the comparison has not loaded yet`);
		}
		return open.shown;
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
		let message: HostToWebview;
		try {
			message = await this.fetch(open.target);
		} catch (error) {
			if (generation === open.generation) {
				this.fail(open, error, 'load');
			}
			return;
		}
		if (generation !== open.generation) {
			return;
		}
		if (message.type === 'details') {
			open.panel.title = `${panelTitles.details}: ${message.details.session.name}`;
		} else if (message.type === 'compare') {
			open.shown = shownComparison(message.comparison);
			open.panel.title = comparisonTitle(`#${message.comparison.from.seq}`, message.comparison.to ? `#${message.comparison.to.seq}` : undefined);
		}
		await open.panel.webview.postMessage(message);
	}

	private async fetch(target: PanelTarget): Promise<HostToWebview> {
		switch (target.kind) {
			case 'briefing': {
				const { briefing } = await this.host.request(briefingGet, { sessionId: target.sessionId, scope: target.scope });
				return { type: 'briefing', briefing, session: briefing.sessionId ? await this.sessionOrNull(briefing.sessionId) : null };
			}
			case 'details':
				return { type: 'details', details: await this.host.request(sessionDetails, { id: target.sessionId }) };
			case 'graph': {
				const { sessions } = await this.host.request(sessionList, { limit: graphLimit });
				return { type: 'graph', sessions, focusId: target.focusId ?? null };
			}
			case 'compare':
				return { type: 'compare', comparison: await this.host.request(checkpointDiff, target.to === undefined ? { from: target.from } : { from: target.from, to: target.to }) };
		}
	}

	/** The briefing's header names its session; a session that vanished meanwhile only loses the header. */
	private async sessionOrNull(id: string): Promise<SessionDto | null> {
		try {
			return (await this.host.request(sessionDetails, { id })).session;
		} catch (error) {
			this.host.log.warn(`Briefing: could not read session ${id}: ${describeError(error)}`);
			return null;
		}
	}

	private fail(open: OpenPanel, error: unknown, action: string): void {
		const message = describeError(error);
		this.host.log.error(`Baton ${open.kind} panel: ${action} failed: ${message}`);
		if (this.panels.get(open.kind) === open) {
			void open.panel.webview.postMessage({ type: 'error', message } satisfies HostToWebview);
		}
	}
}

function titleFor(target: PanelTarget): string {
	return target.kind === 'compare' ? comparisonTitle(shortCheckpointId(target.from), target.to === undefined ? undefined : shortCheckpointId(target.to)) : panelTitles[target.kind];
}

/** "Baton: Compare #14 → #17", "Baton: Compare #18 → working tree". */
export function comparisonTitle(from: string, to: string | undefined): string {
	return `${panelTitles.compare} ${from} → ${to ?? 'working tree'}`;
}

/** `cp_20250312135200_3c9d1e` → `3c9d1e` (the title says which checkpoints before their numbers are known). */
export function shortCheckpointId(id: string): string {
	const match = /^cp_\d{14}_([0-9a-f]{6})$/.exec(id);
	return match?.[1] ?? (id.length > 14 ? `${id.slice(0, 13)}…` : id);
}

function shownComparison(comparison: ComparisonDto): ShownComparison {
	const ids = [comparison.from.id, ...(comparison.to ? [comparison.to.id] : [])];
	return { from: comparison.from.id, to: comparison.to?.id, checkpointIds: new Set(ids), paths: new Set(comparison.files.map((f) => f.path)) };
}

/** A backend ResponseError carries the engine's stable code in `data.code`: shown with the message. */
export function describeError(error: unknown): string {
	const text = error instanceof Error ? error.message : String(error);
	const data = typeof error === 'object' && error !== null && 'data' in error ? (error as { data: unknown }).data : undefined;
	const code = typeof data === 'object' && data !== null && 'code' in data && typeof data.code === 'string' ? data.code : undefined;
	return code && !text.includes(code) ? `${text} (${code})` : text;
}

const restoredState = {
	briefing: z.object({ data: z.object({ briefing: z.object({ sessionId: z.string().nullable(), scope: z.string() }) }) }),
	details: z.object({ data: z.object({ details: z.object({ session: z.object({ id: z.string().min(1).max(100) }) }) }) }),
	graph: z.object({ data: z.object({ focusId: z.string().nullable() }) }),
	compare: z.object({
		data: z.object({
			comparison: z.object({ from: z.object({ id: z.string().min(1).max(100) }), to: z.object({ id: z.string().min(1).max(100) }).nullable() }),
		}),
	}),
};

/** What a restored panel showed, read from the state its page saved (webview/hostIpc.ts `ViewState`). */
export function targetFromState(kind: WebviewKind, state: unknown): PanelTarget | undefined {
	switch (kind) {
		case 'briefing': {
			const parsed = restoredState.briefing.safeParse(state);
			const briefing = parsed.success ? parsed.data.data.briefing : undefined;
			return { kind, sessionId: briefing?.sessionId ?? undefined, scope: briefing ? briefing.scope : undefined };
		}
		case 'details': {
			const parsed = restoredState.details.safeParse(state);
			return parsed.success ? { kind, sessionId: parsed.data.data.details.session.id } : undefined;
		}
		case 'graph': {
			const parsed = restoredState.graph.safeParse(state);
			return { kind, focusId: parsed.success ? (parsed.data.data.focusId ?? undefined) : undefined };
		}
		case 'compare': {
			const parsed = restoredState.compare.safeParse(state);
			const comparison = parsed.success ? parsed.data.data.comparison : undefined;
			return comparison ? { kind, from: comparison.from.id, to: comparison.to?.id } : undefined;
		}
	}
}
