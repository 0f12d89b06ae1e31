/**
 * The session summary as markdown (Parhelia's `summary.md`): a view rendered from the typed summary,
 * never read back as state. Empty sections say so, so "no blockers" reads as a fact.
 */
import type { SessionSummary } from '../storage/jsonShapes';
import { escapeControls } from '../text/controlChars';
import { pushAll } from '../arrays';

const maxFilesShown = 50;

export function renderSessionSummaryMarkdown(s: SessionSummary): string {
	const out: string[] = [];
	out.push(`# Session summary: ${s.name}`, '');
	out.push(
		`\`${s.sessionId}\` · ${s.status} · scope \`${s.scope}\`${s.agent ? ` · ${s.agent}` : ''} · started ${s.startedAt}${s.endedAt ? ` · ended ${s.endedAt}` : ''} · ${s.durationMinutes} min`,
		'',
	);
	out.push('## Progress', '', s.progress, '');
	out.push('## Files changed', '');
	if (s.filesChanged.length) {
		pushAll(out, [...s.filesChanged.slice(0, maxFilesShown).map((f) => `- \`${f}\``)]);
		if (s.filesChanged.length > maxFilesShown) {
			out.push(`- … and ${s.filesChanged.length - maxFilesShown} more`);
		}
	} else {
		out.push('None recorded.');
	}
	out.push('', '## Decisions', '');
	pushAll(out, [
		...(s.decisions.length
			? s.decisions.map((d) => `- ${d.kind === 'assumption' ? '(assumption) ' : ''}${d.text}${d.rationale ? ` — ${d.rationale}` : ''}`)
			: ['None recorded.']),
	]);
	out.push('', '## Failed approaches', '');
	pushAll(out, [...(s.failedApproaches.length ? s.failedApproaches.map((f) => `- ${f.description}: ${f.reason}`) : ['None recorded.'])]);
	out.push('', '## Blockers', '');
	pushAll(out, [...(s.blockers.length ? s.blockers.map((b) => `- ${b}`) : ['None.'])]);
	out.push('', '## Resume from here', '', s.resumeContext, '');
	out.push('## Activity', '');
	out.push(
		`- ${s.turns} turn${s.turns === 1 ? '' : 's'}, ${s.toolCalls} tool call${s.toolCalls === 1 ? '' : 's'}, ${s.errors} error${s.errors === 1 ? '' : 's'}, ${s.compactions} compaction${s.compactions === 1 ? '' : 's'}`,
		`- ${s.tokens.total.toLocaleString('en-US')} tokens (input ${s.tokens.input.toLocaleString('en-US')}, output ${s.tokens.output.toLocaleString('en-US')}, cache read ${s.tokens.cacheRead.toLocaleString('en-US')}, cache write ${s.tokens.cacheCreation.toLocaleString('en-US')})`,
		`- estimated cost $${s.estimatedCostUsd.toFixed(2)}${s.transcripts ? ` from ${s.transcripts} transcript${s.transcripts === 1 ? '' : 's'}` : ' (no agent transcript)'}`,
	);
	return `${escapeControls(out.join('\n'))}\n`;
}
