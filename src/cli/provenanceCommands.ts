/**
 * `baton blame` and `baton provenance …`: who wrote each line (an agent's session and prompt, or a
 * person), from git's own blame plus Baton's attribution of each commit.
 */
import fs from 'node:fs';
import packageJson from '../../package.json';
import path from 'node:path';
import { BatonError } from '../engine/errors';
import { blameFile, provenanceStats, startBlame, type BlameLine } from '../engine/provenance/blameReader';
import { exportOpenFormat, importOpenFormat, openFormats, type OpenFormat } from '../engine/provenance/openFormatIo';
import { stringOption, UsageError, type Command } from './command';

function lineText(l: BlameLine): string {
	const who = l.origin === 'agent' ? `${l.agent ?? 'agent'} ${l.session ?? ''}${l.turn !== null ? ` turn ${l.turn}` : ''}` : l.origin;
	return `${String(l.line).padStart(5)} ${(l.commit?.slice(0, 10) ?? 'uncommitted').padEnd(11)} ${`${who}${l.recovered ? ' (recovered)' : ''}`.padEnd(48)} │ ${l.text}`;
}

function workspacePath(workspaceRoot: string, cwd: string, file: string): string {
	const relative = path.relative(workspaceRoot, path.resolve(cwd, file));
	if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) {
		throw new BatonError('invalidInput', `${file} is not a file inside the workspace ${workspaceRoot}`);
	}
	return relative.split(path.sep).join('/');
}

export const provenanceCommands: Command[] = [
	{
		path: ['blame'],
		usage: 'baton blame FILE [--line N] [--rev REV] [--json]',
		summary: 'who wrote each line of FILE: an agent (session, turn, prompt), a person, or unknown',
		options: { line: { type: 'string' }, rev: { type: 'string' } },
		positionals: [1, 1],
		async run(ctx) {
			const lineOption = stringOption(ctx.values, 'line');
			const line = lineOption === undefined ? undefined : Number(lineOption);
			if (line !== undefined && (!Number.isInteger(line) || line < 1)) {
				throw new UsageError(`--line takes a line number (1 or more), not ${JSON.stringify(lineOption)}`);
			}
			const file = workspacePath(ctx.workspaceRoot, ctx.cwd, ctx.args[0] ?? '');
			const rev = stringOption(ctx.values, 'rev');
			const options = { ...(rev ? { rev } : {}), ...(line ? { line } : {}) };
			// A process of its own starts git's blame while it opens the store; the daemon's warm engine may have the blame kept.
			const started = ctx.engineKept ? undefined : startBlame(ctx.workspaceRoot, file, options);
			const service = (await ctx.engine()).provenance;
			const result = await blameFile(service, file, { ...options, ...(started ? { started } : {}) });
			// Each form is built only when printed: a 100,000-line file's other form is 100,000 lines of work.
			return {
				get json() {
					return { file: result.file, ...(result.rev ? { rev: result.rev } : {}), lines: result.lines.map(({ text: _text, ...rest }) => rest) };
				},
				get text() {
					return result.lines.map(lineText).join('\n') || `${file} has no lines`;
				},
			};
		},
	},
	{
		path: ['provenance', 'stats'],
		usage: 'baton provenance stats [--rev RANGE] [--json]',
		summary: 'lines added in RANGE (default HEAD) by agents, people and unknown hands, per file and per session',
		options: { rev: { type: 'string' } },
		async run(ctx) {
			const service = (await ctx.engine()).provenance;
			const stats = await provenanceStats(service, stringOption(ctx.values, 'rev') ?? 'HEAD');
			const row = (name: string, c: { agent: number; human: number; unknown: number }): string =>
				`${String(c.agent).padStart(7)} ${String(c.human).padStart(7)} ${String(c.unknown).padStart(7)}  ${name}`;
			const text = [
				`${'agent'.padStart(7)} ${'human'.padStart(7)} ${'unknown'.padStart(7)}  file (${stats.range})`,
				...stats.files.map((f) => row(f.path, f)),
				row('total', stats.total),
				...(stats.sessions.length
					? ['', 'sessions:', ...stats.sessions.map((s) => `${String(s.lines).padStart(7)}  ${s.session}${s.agent ? ` (${s.agent})` : ''}`)]
					: []),
			].join('\n');
			return { json: stats as unknown as Record<string, unknown>, text };
		},
	},
	{
		path: ['provenance', 'commit'],
		usage: 'baton provenance commit [REV…] [--new-only] [--json]',
		summary: 'attribute commits now (the post-commit hook runs it); without REV, every commit not attributed yet',
		options: { 'new-only': { type: 'boolean' } },
		positionals: [0, 100],
		async run(ctx) {
			const service = (await ctx.engine()).provenance;
			let report;
			if (ctx.args.length === 0) {
				report = await service.attributePending();
			} else {
				// From the post-commit hook: an amend or a rebase pick waits for post-rewrite's exact pairs.
				// The revisions are resolved by the same git call that reads their diffs (an unknown one is named).
				report = await service.attribute(ctx.args, { newOnly: ctx.values['new-only'] === true });
			}
			return {
				json: report as unknown as Record<string, unknown>,
				text: report.attributed.length ? `attributed ${report.attributed.length} commit(s)` : 'nothing new to attribute',
			};
		},
	},
	{
		path: ['provenance', 'rewritten'],
		usage: 'baton provenance rewritten [amend|rebase] --pairs-file FILE [--json]',
		summary: 'record git\'s post-rewrite pairs ("old new" lines) so attribution follows amended and rebased commits exactly',
		options: { 'pairs-file': { type: 'string' } },
		positionals: [0, 1],
		async run(ctx) {
			const file = stringOption(ctx.values, 'pairs-file');
			if (!file) {
				throw new UsageError('usage: baton provenance rewritten [amend|rebase] --pairs-file FILE');
			}
			let text: string;
			try {
				text = fs.readFileSync(path.resolve(ctx.cwd, file), 'utf8');
			} catch (error) {
				throw new BatonError('invalidInput', `cannot read the rewrite pairs: ${(error as Error).message}`);
			}
			const service = (await ctx.engine()).provenance;
			let recorded;
			try {
				recorded = await service.recordRewrites(text, ctx.actor);
			} catch (error) {
				throw new BatonError('invalidInput', (error as Error).message);
			}
			return { json: { recorded }, text: `recorded ${recorded.length} rewritten commit(s)` };
		},
	},
	{
		path: ['provenance', 'export'],
		usage: 'baton provenance export --format agent-trace|git-ai --out PATH [--rev RANGE] [--json]',
		summary:
			"write the attribution of RANGE's commits as Agent Trace records (a JSON-lines file) or git-ai authorship logs (a folder, one <commit>.txt each)",
		options: { format: { type: 'string' }, out: { type: 'string' }, rev: { type: 'string' } },
		async run(ctx) {
			const format = formatOption(ctx.values['format']);
			const out = stringOption(ctx.values, 'out');
			if (!out) {
				throw new UsageError('usage: baton provenance export --format agent-trace|git-ai --out PATH [--rev RANGE]');
			}
			const service = (await ctx.engine()).provenance;
			const result = await exportOpenFormat(service, format, stringOption(ctx.values, 'rev') ?? 'HEAD', path.resolve(ctx.cwd, out), {
				name: 'baton',
				version: packageJson.version,
			});
			return { json: result, text: `wrote ${result.commits} commit(s) to ${result.out}` };
		},
	},
	{
		path: ['provenance', 'import'],
		usage: 'baton provenance import --format agent-trace|git-ai [PATH] [--json]',
		summary:
			"bring in Agent Trace records or git-ai authorship logs (a folder of <commit>.txt, or without PATH the repository's refs/notes/ai, read only); all or nothing",
		options: { format: { type: 'string' } },
		positionals: [0, 1],
		async run(ctx) {
			const format = formatOption(ctx.values['format']);
			const service = (await ctx.engine()).provenance;
			const result = await importOpenFormat(service, format, ctx.args[0] ? path.resolve(ctx.cwd, ctx.args[0]) : undefined, ctx.actor);
			const lost = result.droppedLines > 0;
			return {
				json: result as unknown as Record<string, unknown>,
				text: [
					lost
						? `imported ${result.imported.length} commit(s), skipped ${result.skipped.length}, but ${result.droppedLines} attributed line(s) could not be placed:`
						: `imported ${result.imported.length} commit(s), skipped ${result.skipped.length}`,
					...result.dropped.map((d) => `  dropped ${d.lines} line(s) of ${d.path} at ${d.commit.slice(0, 10)}: ${d.reason}`),
					...result.warnings.map((w) => `warning: ${w}`),
				].join('\n'),
				// Lines lost is not a success: the rest is in, and the exit code says something was not.
				...(lost ? { exitCode: 1 } : {}),
			};
		},
	},
];

function formatOption(value: unknown): OpenFormat {
	if (typeof value !== 'string' || !(openFormats as readonly string[]).includes(value)) {
		throw new UsageError(`--format takes ${openFormats.join(' or ')}`);
	}
	return value as OpenFormat;
}
