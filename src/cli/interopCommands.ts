/**
 * `baton import` and `baton export` (issue 6). Import prints `{dryRun, source, path, added, unchanged,
 * errors, warnings}` and exits 1 when a record failed validation (nothing is written then); export
 * prints `{out, files}`, or with `--markdown` the handoff (or `--briefing`) of a session as markdown.
 */
import path from 'node:path';
import { isImportFormat } from '../engine/interop/importService';
import { importFormats, type ImportCounts, type ImportReport } from '../engine/interop/importTypes';
import { stringOption, UsageError, type Command } from './command';

function countsText(counts: ImportCounts): string {
	const parts = Object.entries(counts)
		.filter(([, n]) => n > 0)
		.map(([kind, n]) => `${n} ${n === 1 ? kind.replace(/s$/, '') : kind}`);
	return parts.length ? parts.join(', ') : 'nothing';
}

function importText(report: ImportReport): string {
	const failed = report.errors.length > 0;
	const head = failed
		? `Import of ${report.path} refused: ${report.errors.length} problem(s); nothing was written.`
		: `${report.dryRun ? 'Dry run: would add' : 'Imported'} ${countsText(report.added)} from ${report.path} (${report.source}); already there: ${countsText(report.unchanged)}.`;
	const lines = [head];
	for (const e of report.errors) lines.push(`  error    ${e.record}${e.field ? `: ${e.field}` : ''}: ${e.message}`);
	for (const w of report.warnings) lines.push(`  warning  ${w.record}${w.field ? `: ${w.field}` : ''}: ${w.message}`);
	return lines.join('\n');
}

export const interopCommands: Command[] = [
	{
		path: ['import'],
		usage: `baton import ${importFormats.join('|')} PATH [--dry-run]`,
		summary: 'bring CLEO, JSON-file or Beads history in: all or nothing, and importing twice adds nothing',
		options: { 'dry-run': { type: 'boolean' } },
		positionals: [2, 2],
		async run(ctx) {
			const [format, file] = ctx.args as [string, string];
			if (!isImportFormat(format)) {
				throw new UsageError(`unknown format "${format}" (one of ${importFormats.join(', ')})`);
			}
			const report = await (await ctx.engine()).imports.run({ format, path: path.resolve(ctx.cwd, file), dryRun: ctx.values['dry-run'] === true, actor: ctx.actor });
			return { json: { ...report }, text: importText(report), exitCode: report.errors.length > 0 ? 1 : 0 };
		},
	},
	{
		path: ['export'],
		usage: 'baton export (--session ID | --chain ID) --out DIR   |   baton export --session ID --markdown [--briefing]',
		summary: 'write a session or its whole chain as JSON files (index.json + one per session); or show a handoff or briefing as markdown',
		options: { session: { type: 'string' }, chain: { type: 'string' }, out: { type: 'string' }, markdown: { type: 'boolean' }, briefing: { type: 'boolean' } },
		async run(ctx) {
			const sessionId = stringOption(ctx.values, 'session');
			const chainId = stringOption(ctx.values, 'chain');
			const out = stringOption(ctx.values, 'out');
			if (ctx.values['markdown'] === true || ctx.values['briefing'] === true) {
				if (!sessionId || chainId || out) {
					throw new UsageError('--markdown renders one session: baton export --session ID --markdown [--briefing] (it prints to stdout)');
				}
				const kind = ctx.values['briefing'] === true ? 'briefing' : 'handoff';
				const view = await (await ctx.engine()).exports.markdown({ sessionId, kind });
				return { json: { sessionId, kind, title: view.title, markdown: view.markdown }, text: view.markdown.trimEnd() };
			}
			if (!!sessionId === !!chainId || !out) {
				throw new UsageError('usage: baton export (--session ID | --chain ID) --out DIR');
			}
			const result = await (await ctx.engine()).exports.export({ ...(sessionId ? { sessionId } : { chainId: chainId as string }), out: path.resolve(ctx.cwd, out) });
			return { json: { out: result.out, files: result.files }, text: `Exported ${result.files.length - 1} session(s) to ${result.out}: ${result.files.join(', ')}` };
		},
	},
];
