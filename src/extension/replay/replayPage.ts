/**
 * The Replay page's HTML. The first screen of rows is written into it, styled by a stylesheet in its
 * head, so the rows are on screen before any script has loaded: the page's script (dist/webview/
 * replay.js, with the virtual list and the keyboard) is only added after that first frame, and then
 * asks for the whole timeline (`ready` → `timeline`). The page carries no more than its first screen:
 * VS Code passes a webview's HTML through several hops (extension host, workbench, the webview's
 * frames) before it starts: a page that carried the whole timeline (about 290 KB for 500 steps)
 * took about 70 ms longer to paint than an empty one, this one about 20 ms. A small inline script
 * marks the first frame (the time since the command, for the tests and `npm run bench`) and adds the
 * page's script.
 */
import type { TimelineDto } from '../../protocol/timelineRpc';
import { replayHeading, replayRowView } from '../../ui/replayRows';
import { replayCss } from '../../ui/replayStyles';
import { escapeHtml } from '../webviews/escapeHtml';

/** Rows written into the page: a screen of 1,320 px, more than the editor area shows at once. */
export const firstScreenRows = 30;

interface ReplayPageInput {
	nonce: string;
	/** The webview's `cspSource` (its resource origin). */
	cspSource: string;
	/** The page's script, as a webview URI. */
	scriptUri: string;
	/** Date.now() when the command had its session (0: not timed). */
	commandStartedAt: number;
	/** How long the timeline took to read (shown beside the paint time: it runs while VS Code builds the webview). */
	readMs?: number;
	timeline: TimelineDto;
	/** A step to select and scroll to (opened from a line's provenance hover). */
	focusStep?: number;
}

/** The index of the first row written into the page: the focused step a few rows down, or the top. */
export function firstScreenStart(timeline: TimelineDto, focusStep: number | undefined): number {
	if (focusStep === undefined) {
		return 0;
	}
	const index = timeline.entries.findIndex((e) => e.type === 'step' && e.step === focusStep);
	return Math.max(0, Math.min(index - 3, timeline.entries.length - firstScreenRows));
}

function rowsHtml(timeline: TimelineDto, start: number): string {
	const rows: string[] = [];
	for (let i = start; i < Math.min(timeline.entries.length, start + firstScreenRows); i++) {
		const entry = timeline.entries[i];
		if (!entry) {
			continue;
		}
		const row = replayRowView(entry, timeline.you);
		const title = row.title !== undefined ? ` title="${escapeHtml(row.title)}"` : '';
		rows.push(
			`<div class="${row.className}" role="option" aria-selected="false" data-index="${i}">` +
				`<span class="marker">${escapeHtml(row.marker)}</span><span class="label">${escapeHtml(row.label)}</span>` +
				`<span class="text"${title}>${escapeHtml(row.text)}</span>` +
				(row.stats !== undefined ? `<span class="stats">${escapeHtml(row.stats)}</span>` : '') +
				'</div>',
		);
	}
	return rows.join('\n');
}

/** Marks the first frame (a task queued from that frame's callback runs once it is drawn), then adds the page's script. */
const firstFrameScript = `(function () {
	var nonce = document.currentScript.nonce;
	requestAnimationFrame(function () {
		setTimeout(function () {
			var body = document.body;
			var started = Number(body.dataset.commandStarted);
			body.dataset.paintMs = performance.now().toFixed(0);
			if (started > 0) body.dataset.commandPaintMs = String(Date.now() - started);
			body.dataset.paintRows = String(document.querySelectorAll('.first-screen .row').length);
			var script = document.createElement('script');
			script.type = 'module';
			script.nonce = nonce;
			script.src = body.dataset.script;
			body.append(script);
		}, 0);
	});
})();`;

export function replayPageHtml(input: ReplayPageInput): string {
	const { nonce, timeline } = input;
	const csp = [`default-src 'none'`, `style-src ${input.cspSource} 'nonce-${nonce}'`, `font-src ${input.cspSource}`, `script-src 'nonce-${nonce}'`].join(
		'; ',
	);
	const heading = replayHeading(timeline);
	const start = firstScreenStart(timeline, input.focusStep);
	const rows = timeline.entries.length
		? `<div class="rows first-screen" role="listbox" aria-label="Timeline" tabindex="0">\n${rowsHtml(timeline, start)}\n</div>`
		: `<div class="rows first-screen" role="listbox" aria-label="Timeline"><p class="meta">This session has no steps yet.</p></div>`;
	return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Baton: Replay</title>
<style nonce="${nonce}">${replayCss}</style>
</head>
<body data-view="replay" data-command-started="${input.commandStartedAt}" data-entries="${timeline.entries.length}"${input.readMs !== undefined ? ` data-read-ms="${input.readMs}"` : ''} data-script="${escapeHtml(input.scriptUri)}">
<main id="root">
<header><h1>${escapeHtml(heading.title)}</h1><span class="hint">${escapeHtml(heading.hint)}</span></header>
${rows}
<section class="detail" aria-live="polite"><p class="meta">Select a step (↑/↓), Enter opens its diff.</p></section>
</main>
<script nonce="${nonce}">${firstFrameScript}</script>
</body>
</html>`;
}
