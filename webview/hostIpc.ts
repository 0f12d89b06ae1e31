import type { HostToWebview, WebviewKind, WebviewToHost } from '../src/protocol/webview';

/** The data messages, one per view kind (everything but `error`). */
export type DataMessage = Exclude<HostToWebview, { type: 'error' }>;

/**
 * What the page keeps in VS Code's webview state: the last data it showed, so a panel that was hidden
 * (and so destroyed: retainContextWhenHidden is off) draws at once when shown again, before the host's
 * fresh data arrives. The host also reads it to restore panels after a window reload.
 */
interface ViewState {
	view: WebviewKind;
	data: DataMessage | null;
	/** View settings the user chose (the graph's time alignment); they outlive the data. */
	prefs?: ViewPrefs;
}

export interface ViewPrefs {
	alignTime?: boolean;
}

interface VsCodeApi {
	postMessage(message: unknown): void;
	getState(): unknown;
	setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const dataTypes: ReadonlySet<string> = new Set<HostToWebview['type']>(['briefing', 'details', 'graph', 'compare', 'error']);

/** The typed side of postMessage. `acquireVsCodeApi` may be called once per page: make one of these. */
export class HostIpc {
	private readonly api = acquireVsCodeApi();

	send(message: WebviewToHost): void {
		this.api.postMessage(message);
	}

	/** Host messages only: the host is the one sender, but the page ignores anything not shaped like one. */
	onMessage(handler: (message: HostToWebview) => void): void {
		window.addEventListener('message', (event: MessageEvent<unknown>) => {
			const data = event.data;
			if (typeof data === 'object' && data !== null && 'type' in data && typeof data.type === 'string' && dataTypes.has(data.type)) {
				handler(data as HostToWebview);
			}
		});
	}

	/** The saved state when it belongs to this view, else `null`. */
	getState(view: WebviewKind): ViewState | null {
		const state = this.api.getState();
		if (typeof state !== 'object' || state === null || !('view' in state) || state.view !== view || !('data' in state)) {
			return null;
		}
		return state as ViewState;
	}

	setState(state: ViewState): void {
		this.api.setState(state);
	}
}
