/**
 * `baton search QUERY [--agent A] [--file PATH] [--since T] [--json]` (docs/search.md): every
 * session's prompts, handoffs, decisions, memory, step files and transcript text, best first, each
 * with the passage that matched (the query's words between « and »).
 */
import path from 'node:path';
import { parseDuration } from '../engine/config';
import type { SearchHit } from '../engine/search/searchShapes';
import { searchLimits } from '../engine/search/searchService';
import { stringOption, UsageError, type Command } from './command';

const kindLabels: Record<SearchHit['kind'], string> = {
	session: 'session',
	handoff: 'handoff',
	decision: 'decision',
	memory: 'memory',
	prompt: 'prompt',
	step: 'step',
	transcript: 'transcript',
};

/** `--since`: a time (2026-11-28, 2026-11-28T09:00) or an age (90m, 7d, 2w). */
function sinceOption(text: string | undefined, now: number): string | undefined {
	if (text === undefined) {
		return undefined;
	}
	const at = /^\d+(?:\.\d+)?\s*(?:ms|s|m|h|d|w)$/.test(text.trim()) ? now - parseDuration(text) : Date.parse(text);
	if (Number.isNaN(at)) {
		throw new UsageError(`--since takes a time (2026-11-28 or 2026-11-28T09:00) or an age (7d, 12h), not ${JSON.stringify(text)}`);
	}
	return new Date(at).toISOString();
}

/** `--file`: workspace-relative, whether given from the workspace, a folder below it or as an absolute path. */
function fileOption(text: string | undefined, cwd: string, root: string): string | undefined {
	if (text === undefined) {
		return undefined;
	}
	const relative = path.relative(root, path.resolve(cwd, text));
	return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative.split(path.sep).join('/') : text;
}

function marked(hit: SearchHit): string {
	let out = '';
	let at = 0;
	for (const [start, end] of hit.matches) {
		out += `${hit.excerpt.slice(at, start)}«${hit.excerpt.slice(start, end)}»`;
		at = end;
	}
	return out + hit.excerpt.slice(at);
}

function where(hit: SearchHit): string {
	const place =
		hit.kind === 'step' && hit.step !== undefined
			? ` step ${hit.step}`
			: hit.kind === 'prompt' && hit.turn !== undefined
				? ` turn ${hit.turn}`
				: hit.kind === 'transcript' && hit.excerptIndex !== undefined
					? ` #${hit.excerptIndex + 1}`
					: '';
	const session = hit.sessionName ?? hit.sessionId ?? 'no session';
	return `${kindLabels[hit.kind]}${place} · ${session}${hit.at ? ` · ${hit.at.slice(0, 16).replace('T', ' ')}` : ''}`;
}

export const searchCommands: Command[] = [
	{
		path: ['search'],
		usage: 'baton search QUERY [--agent A] [--file PATH] [--since T] [--limit N] [--json]',
		summary: "search every session's prompts, handoffs, decisions, memory, step files and transcripts, best match first",
		options: { agent: { type: 'string' }, file: { type: 'string' }, since: { type: 'string' }, limit: { type: 'string' } },
		positionals: [1, 1_000],
		async run(ctx) {
			const limitText = stringOption(ctx.values, 'limit');
			const limit = limitText === undefined ? undefined : Number(limitText);
			if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > searchLimits.max)) {
				throw new UsageError(`--limit takes a whole number from 1 to ${searchLimits.max}, not ${JSON.stringify(limitText)}`);
			}
			const agent = stringOption(ctx.values, 'agent');
			const file = fileOption(stringOption(ctx.values, 'file'), ctx.cwd, ctx.workspaceRoot);
			const since = sinceOption(stringOption(ctx.values, 'since'), Date.now());
			const text = ctx.args.join(' ');
			const result = await (
				await ctx.engine()
			).search.search({
				text,
				...(agent !== undefined ? { agent } : {}),
				...(file !== undefined ? { file } : {}),
				...(since !== undefined ? { since } : {}),
				...(limit !== undefined ? { limit } : {}),
			});
			const head =
				result.total === 0
					? `no match for ${JSON.stringify(text)}`
					: `${result.totalEstimated ? 'about ' : ''}${result.total} match${result.total === 1 ? '' : 'es'} for ${JSON.stringify(text)}${result.hits.length < result.total ? ` (best ${result.hits.length} shown; --limit for more)` : ''}`;
			const lines = result.hits.map((hit) => `${where(hit)}\n    ${marked(hit)}`);
			return { json: { ...result }, text: [head, ...lines].join('\n') };
		},
	},
];
