import type { HostToWebview, WebviewKind, WebviewToHost } from '../../../protocol/webview';
import type { PanelHost } from '../panelHost';

/** What a panel shows; kept so `ready`, `refresh` and data changes can fetch it again. */
export type PanelTarget =
	| { kind: 'briefing'; sessionId?: string; scope?: string }
	| { kind: 'details'; sessionId: string }
	| { kind: 'graph'; focusId?: string }
	/** `to` undefined: the working tree. */
	| { kind: 'compare'; from: string; to?: string }
	/** What checkpoint `changesOf` changed: the checkpoint before it → it (a review). */
	| { kind: 'compare'; changesOf: string };

export type TargetOf<K extends WebviewKind> = Extract<PanelTarget, { kind: K }>;

/** The data message of one panel kind. */
export type DataOf<K extends WebviewKind> = Extract<HostToWebview, { type: K }>;

/**
 * One kind of Baton panel: what it is called, how it fetches its data, what it does with the
 * messages only it sends, and how it finds its target again after a window reload. The host
 * (BatonPanels) owns the VS Code panel, its lifecycle and the messages every panel shares.
 */
export interface PanelProvider<K extends WebviewKind> {
	readonly kind: K;
	/** The view type (also the `onWebviewPanel:` activation event that restores it after a reload). */
	readonly viewType: string;
	/** Shown before the data has loaded. */
	titleFor(target: TargetOf<K>): string;
	fetch(host: PanelHost, target: TargetOf<K>): Promise<DataOf<K>>;
	/** The data went to the page: the title it gives the panel now (undefined keeps it). */
	shown?(data: DataOf<K>): string | undefined;
	/** A message only this kind sends; false when it is not one. */
	handle?(message: WebviewToHost, host: PanelHost): Promise<boolean>;
	/** The panel closed: forget what it showed. */
	closed?(): void;
	/** What a restored panel showed, read from the state its page saved (webview/hostIpc.ts `ViewState`). */
	targetFromState(state: unknown): TargetOf<K> | undefined;
}

export type AnyPanelProvider = { [K in WebviewKind]: PanelProvider<K> }[WebviewKind];

/** A backend ResponseError carries the engine's stable code in `data.code`: shown with the message. */
export function describeError(error: unknown): string {
	const text = error instanceof Error ? error.message : String(error);
	const data = typeof error === 'object' && error !== null && 'data' in error ? (error as { data: unknown }).data : undefined;
	const code = typeof data === 'object' && data !== null && 'code' in data && typeof data.code === 'string' ? data.code : undefined;
	return code && !text.includes(code) ? `${text} (${code})` : text;
}
