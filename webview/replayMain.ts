/**
 * The Replay Session page's script (dist/webview/replay.js): the session's timeline on the left
 * (virtualised, webview/replayList.ts), the selected step on the right — its files (click: diff),
 * where they stand now, the transcript around it, and Revert This Step. The page arrives with its
 * first screen of rows already drawn (src/extension/replay/replayPage.ts); this script is added after
 * that first frame, asks for the whole timeline (`ready`) and takes the view over once it is in.
 * Talks to replayPanel.ts.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import type { HostToReplay, ReplayToHost } from '../src/protocol/replayMessages';
import type { StepDetailDto, TimelineDto, TimelineEntryDto } from '../src/protocol/timelineRpc';
import { replayHeading } from '../src/ui/replayRows';
import { el } from './dom';
import { ReplayList } from './replayList';

interface VsCodeApi {
	postMessage(message: ReplayToHost): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

type StepEntry = Extract<TimelineEntryDto, { type: 'step' }>;

const api = acquireVsCodeApi();

const root = document.getElementById('root') as HTMLElement;
const detail = el('section', { class: 'detail', 'aria-live': 'polite' }, el('p', { class: 'meta' }, 'Select a step (↑/↓), Enter opens its diff.'));
const list = new ReplayList({
	onSelect: (entry) => {
		selectedId = entry.id;
		detail.replaceChildren(stepHeader(entry), el('p', { class: 'meta' }, 'Loading…'));
		api.postMessage({ type: 'select', id: entry.id });
	},
	onOpen: (entry) => api.postMessage({ type: 'openDiff', id: entry.id }),
});
let selectedId: string | null = null;

function stepHeader(step: StepEntry | StepDetailDto['step']): HTMLElement {
	const who = step.actor === 'human' ? 'You (between agent steps)' : `${step.agent ?? 'agent'}${step.model ? ` (${step.model})` : ''} · ${step.tool ?? ''}`;
	return el(
		'div',
		{},
		el('h2', {}, `Step ${step.step} · turn ${step.turn}`),
		el('div', { class: 'meta' }, who),
		step.summary && step.actor !== 'human' ? el('div', { class: 'meta' }, step.summary) : null,
	);
}

function showDetail(d: StepDetailDto): void {
	if (d.step.id !== selectedId) {
		return;
	}
	const now = new Map(d.filesNow.map((f) => [f.path, f.now]));
	const nowLabel = { unchanged: 'unchanged since', changed: 'changed later', deleted: 'deleted' } as const;
	const gone = d.step.treesGone;
	const files = gone
		? el(
				'div',
				{},
				el('p', { class: 'meta' }, `No diff: ${gone}.`),
				el(
					'ul',
					{},
					d.step.files.map((f) =>
						el(
							'li',
							{},
							el('span', {}, f.change === 'added' ? 'A' : f.change === 'deleted' ? 'D' : 'M'),
							el('span', {}, f.path),
							el('span', { class: 'meta' }, `+${f.additions} −${f.deletions}`),
						),
					),
				),
			)
		: d.step.captured
			? el(
					'ul',
					{},
					d.step.files.map((f) => {
						const state = now.get(f.path);
						return el(
							'li',
							{},
							el('span', {}, f.change === 'added' ? 'A' : f.change === 'deleted' ? 'D' : 'M'),
							el('a', { onClick: () => api.postMessage({ type: 'openDiff', id: d.step.id, path: f.path }), title: 'Open the diff' }, f.path),
							el('span', { class: 'meta' }, `+${f.additions} −${f.deletions}`),
							state ? el('span', { class: `now-${state}` }, nowLabel[state]) : null,
						);
					}),
				)
			: el('p', { class: 'error' }, `Not captured: ${d.step.reason ?? 'unknown'}`);
	const transcript = el(
		'div',
		{ class: 'transcript' },
		el('h2', {}, 'Transcript'),
		d.transcript.length
			? d.transcript.map((line) => el('p', { class: line.current ? 'current' : '' }, el('span', { class: 'role' }, line.role), line.text))
			: el(
					'p',
					{ class: 'meta' },
					d.step.actor === 'human' ? 'A person’s edit: no prompt or transcript goes with it.' : 'No transcript excerpt for this step.',
				),
	);
	const toolbar = el(
		'div',
		{ class: 'toolbar' },
		d.step.captured && !gone && d.step.files.length
			? el('vscode-button', { onClick: () => api.postMessage({ type: 'openDiff', id: d.step.id }) }, 'Open Diff')
			: null,
		d.step.captured && !gone && d.step.files.length
			? el('vscode-button', { secondary: true, onClick: () => api.postMessage({ type: 'revert', id: d.step.id }) }, 'Revert This Step')
			: null,
	);
	detail.replaceChildren(stepHeader(d.step), toolbar, el('h2', {}, 'Files'), files, transcript);
}

function showTimeline(data: TimelineDto, focusStep?: number): void {
	const heading = replayHeading(data);
	root.replaceChildren(el('header', {}, el('h1', {}, heading.title), el('span', { class: 'hint' }, heading.hint)), list.element, detail);
	list.set(data.entries, selectedId, data.you);
	// Opened from a line's provenance hover: that line's step is selected, scrolled to and shown.
	const focus = focusStep !== undefined ? data.entries.findIndex((e) => e.type === 'step' && e.step === focusStep) : -1;
	if (focus >= 0) {
		list.select(focus);
	}
	list.element.focus();
	document.body.dataset['rendered'] = 'replay';
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
	// From the extension host (replayPanel.ts), which alone can post to this page.
	const m = event.data as HostToReplay | undefined;
	if (m?.type === 'timeline') {
		// Its answer to `ready`, and the same session shown again later: the timeline as it is now, the selection kept.
		showTimeline(m.data, m.focusStep);
	} else if (m?.type === 'step') {
		showDetail(m.detail);
	} else if (m?.type === 'error') {
		detail.replaceChildren(el('p', { class: 'error' }, m.message));
	}
});

// The first frame was marked by the page itself, before this script was loaded: report it, then ask for the timeline.
const body = document.body.dataset;
const paintMs = Number(body['paintMs']);
const fromCommandMs = body['commandPaintMs'] !== undefined ? Number(body['commandPaintMs']) : undefined;
if (paintMs > 0) {
	api.postMessage({
		type: 'painted',
		ms: paintMs,
		entries: Number(body['entries'] ?? 0),
		rows: Number(body['paintRows'] ?? 0),
		...(fromCommandMs !== undefined ? { fromCommandMs } : {}),
	});
}
api.postMessage({ type: 'ready' });
