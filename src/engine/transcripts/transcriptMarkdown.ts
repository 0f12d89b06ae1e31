/**
 * A readable rendering of an archived transcript (`baton transcripts show`, later the editor's
 * Transcripts view). A view of the archive, never read back.
 */
import { agentLabel } from '../agentKinds';
import type { TranscriptInfo } from './transcriptArchive';
import type { Excerpt } from './transcriptExcerpts';
import type { SessionNote } from './transcriptIndex';
import { escapeControls } from '../text/controlChars';
import { pushAll } from '../arrays';

/**
 * `excerptLines`, when given, receives each excerpt's first line in the markdown (0-based), so a
 * search hit opens the transcript at its line.
 */
export function renderTranscriptMarkdown(
	info: TranscriptInfo,
	excerpts: readonly Excerpt[],
	notes: readonly SessionNote[] = [],
	excerptLines?: number[],
): string {
	const out: string[] = [];
	/** The `out` entry each excerpt starts at. */
	const starts: number[] = [];
	const name = info.parentAgentSessionId ? `subagent ${info.agentSessionId} of ${info.parentAgentSessionId}` : info.agentSessionId;
	out.push(`# ${info.title ? `${escapeLine(info.title)} — ` : ''}${agentLabel(info.agent)} transcript ${name}`);
	out.push('');
	pushAll(out, [...transcriptFacts(info).map((f) => `- ${f}`), '']);
	for (const note of notes) {
		out.push(`> **Baton ${note.kind} note** (${time(note.at)}): ${escapeLine(note.text)}`, '');
	}
	let tools: string[] = [];
	let toolExcerpts: number[] = [];
	const flushTools = (): void => {
		if (tools.length) {
			toolExcerpts.forEach((n, i) => (starts[n] = out.length + i));
			pushAll(out, [...tools, '']);
			tools = [];
			toolExcerpts = [];
		}
	};
	for (const [n, e] of excerpts.entries()) {
		if (e.type === 'tool') {
			toolExcerpts.push(n);
			const files = e.files.length ? ` ${e.files.map((f) => `\`${f}\``).join(', ')}` : '';
			tools.push(`- ${e.edit ? '✎ ' : ''}\`${e.name}\`${files}${e.detail ? ` — ${escapeLine(e.detail)}` : ''}`);
			continue;
		}
		flushTools();
		starts[n] = out.length;
		pushAll(out, excerptBlock(e));
	}
	flushTools();
	if (excerpts.length === 0) {
		out.push(info.bootstrap ? '*A bootstrap transcript: only file-history snapshots, nothing to show.*' : '*Nothing archived yet.*');
	}
	if (excerptLines) {
		let line = 0;
		const lineAt: number[] = [];
		for (const entry of out) {
			lineAt.push(line);
			line += entry.split('\n').length;
		}
		excerpts.forEach((_, n) => (excerptLines[n] = lineAt[starts[n] ?? 0] ?? 0));
	}
	return `${escapeControls(out.join('\n').trimEnd())}\n`;
}

/** The transcript's facts under its title: its session, time, counts, tokens and cost, source, and what kind of run it was. */
function transcriptFacts(info: TranscriptInfo): string[] {
	const tokens = Object.values(info.tokens).reduce((n, t) => ({ input: n.input + t.input + t.cacheRead + t.cacheCreation, output: n.output + t.output }), {
		input: 0,
		output: 0,
	});
	const facts = [
		`Durable session: ${info.sessionId ?? '(not linked)'}`,
		`Time: ${info.firstAt ?? '?'} → ${info.lastAt ?? '?'}`,
		`Requests: ${info.userRequests} · tool calls: ${info.toolCalls} · errors: ${info.errors} · compactions: ${info.compactions}`,
		`Tokens: ${tokens.input.toLocaleString('en-US')} in, ${tokens.output.toLocaleString('en-US')} out (≈ $${info.costUsd.toFixed(2)})`,
		`Source: ${info.sourcePath}${info.sourceMissing ? ' (deleted by the agent; this archive is what remains)' : ''}`,
	];
	if (info.agentType || info.description) {
		facts.push(`Subagent: ${[info.agentType, info.description].filter(Boolean).join(' — ')}`);
	}
	if (info.filesTouched.length) {
		facts.push(`Files changed: ${info.filesTouched.map((f) => `\`${f}\``).join(', ')}`);
	}
	if (!info.archiving) {
		facts.push('Archiving is off for this session.');
	}
	return facts;
}

/** The lines of one excerpt that is not a tool call (tool calls are listed together, as one block). */
function excerptBlock(e: Exclude<Excerpt, { type: 'tool' }>): string[] {
	switch (e.type) {
		case 'user':
			return [`## ${time(e.at)} User`, '', quote(e.text), ''];
		case 'assistant':
			return [`### ${time(e.at)} Assistant`, '', e.text, ''];
		case 'error':
			return [`**Error${e.tool ? ` (${e.tool})` : ''}:**`, '', fence(e.text), ''];
		case 'compact':
			return [
				`---`,
				'',
				`*Conversation compacted${e.trigger ? ` (${e.trigger})` : ''}${e.preTokens !== null ? ` at ${e.preTokens.toLocaleString('en-US')} tokens` : ''}.*`,
				'',
			];
		case 'summary':
			return ['<details><summary>Summary the agent continued from</summary>', '', e.text, '', '</details>', ''];
	}
}

function time(at: string | null): string {
	return at ? at.slice(0, 19).replace('T', ' ') : '';
}

function quote(text: string): string {
	return text
		.split('\n')
		.map((l) => `> ${l}`)
		.join('\n');
}

function fence(text: string): string {
	const ticks = text.includes('```') ? '````' : '```';
	return `${ticks}\n${text}\n${ticks}`;
}

function escapeLine(text: string): string {
	return text.replace(/\s+/g, ' ').trim();
}
