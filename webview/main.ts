/**
 * The one webview bundle. `<body data-view>` says which view this page is; the page asks the host
 * for its data with `ready`, draws what it last showed (from the webview state) meanwhile, and
 * re-renders on every host message.
 */
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-progress-ring/index.js';
// Types only: a value import would bundle zod, whose schema setup probes `new Function` and so trips the CSP.
import type { WebviewKind, WebviewToHost } from '../src/protocol/webview';
import { briefingView } from './briefingView';
import { compareView } from './compareView';
import { detailsView } from './detailsView';
import { el, refreshRelativeTimes } from './dom';
import { graphView } from './graphView';
import { HostIpc, type DataMessage, type ViewPrefs } from './hostIpc';
import css from './styles.css';
import { button, callout } from './widgets';

const viewTitles: Record<WebviewKind, string> = { briefing: 'briefing', details: 'session', graph: 'chain graph', compare: 'comparison' };

function parseView(value: string | undefined): WebviewKind {
	return value !== undefined && Object.hasOwn(viewTitles, value) ? (value as WebviewKind) : 'briefing';
}

/** The CSP allows styles only with the page's nonce, which the host put on our own script tag. */
function injectStyles(text: string): void {
	const style = document.createElement('style');
	style.nonce = document.querySelector<HTMLScriptElement>('script[nonce]')?.nonce ?? '';
	style.textContent = text;
	document.head.append(style);
}

const view = parseView(document.body.dataset['view']);
injectStyles(css);
const ipc = new HostIpc();
const send = (message: WebviewToHost): void => ipc.send(message);
const root = document.getElementById('root') ?? document.body.appendChild(el('main', { id: 'root' }));

const saved = ipc.getState(view);
let data: DataMessage | null = saved?.data ?? null;
let prefs: ViewPrefs = saved?.prefs ?? {};
let error: string | null = null;

function save(): void {
	ipc.setState({ view, data, prefs });
}

function content(message: DataMessage): HTMLElement {
	switch (message.type) {
		case 'briefing':
			return briefingView(message, send);
		case 'details':
			return detailsView(message.details, send);
		case 'graph':
			return graphView(message, send, {
				alignTime: prefs.alignTime ?? false,
				onAlignTimeChange: (alignTime) => {
					prefs = { ...prefs, alignTime };
					save();
					render();
				},
			});
		case 'compare':
			return compareView(message.comparison, send);
	}
}

function errorBanner(message: string): HTMLElement {
	return callout(
		'error',
		data ? 'Could not refresh' : `Could not load the ${viewTitles[view]}`,
		el('p', { class: 'error-message' }, message),
		el(
			'div',
			{ class: 'toolbar' },
			button('Retry', () => send({ type: 'refresh' }), { focusKey: 'retry' }),
			data
				? button(
						'Dismiss',
						() => {
							error = null;
							render();
						},
						{ secondary: true, focusKey: 'dismiss' },
					)
				: null,
		),
	);
}

function loading(): HTMLElement {
	return el(
		'div',
		{ class: 'loading', role: 'status' },
		el('vscode-progress-ring', { 'aria-label': 'Loading' }),
		el('span', {}, `Loading ${viewTitles[view]}…`),
	);
}

/**
 * Replaces the page, keeping keyboard focus and scroll positions where the same controls still exist.
 * Focus is given back only while the page has it: the frame's activeElement stays set after the person
 * moved on (to a quick pick), and focusing it again took the focus from the workbench and closed the
 * quick pick they were typing in (a refresh after a rollback did, under Compare Checkpoints).
 */
function render(): void {
	const focusKey = document.hasFocus() ? document.activeElement?.closest('[data-focus-key]')?.getAttribute('data-focus-key') : undefined;
	const scrolls = [...root.querySelectorAll<HTMLElement>('[data-keep-scroll]')].map(
		(node) => [node.dataset['keepScroll'], node.scrollLeft, node.scrollTop] as const,
	);
	const windowScroll = window.scrollY;

	let body: HTMLElement | null;
	try {
		body = data ? content(data) : error ? null : loading();
	} catch (failure) {
		// Saved state from an older version, or data the view does not expect: say so rather than go blank.
		body = callout(
			'error',
			`Could not show the ${viewTitles[view]}`,
			el('p', { class: 'error-message' }, failure instanceof Error ? failure.message : String(failure)),
		);
	}
	root.replaceChildren(...[error ? errorBanner(error) : null, body].filter((n) => n !== null));

	for (const [key, left, top] of scrolls) {
		const node = root.querySelector<HTMLElement>(`[data-keep-scroll="${CSS.escape(key ?? '')}"]`);
		if (node) {
			node.scrollLeft = left;
			node.scrollTop = top;
		}
	}
	window.scrollTo({ top: windowScroll });
	if (focusKey) {
		root.querySelector<HTMLElement | SVGElement>(`[data-focus-key="${CSS.escape(focusKey)}"]`)?.focus({ preventScroll: true });
	}
	document.body.dataset['rendered'] = data ? data.type : error ? 'error' : 'loading';
}

ipc.onMessage((message) => {
	if (message.type === 'error') {
		error = message.message;
	} else if (message.type === view) {
		data = message;
		error = null;
		save();
	} else {
		return;
	}
	render();
});

render();
send({ type: 'ready' });
// Relative times ("3 min ago") go stale while a panel stays open.
setInterval(() => refreshRelativeTimes(root), 60_000);
