/**
 * `baton import` and `baton export` (issue 6). Import prints `{dryRun, source, path, added, unchanged,
 * errors, warnings}` and exits 1 when a record failed validation (nothing is written then); export
 * prints `{out, files}`, or with `--markdown` the handoff (or `--briefing`) of a session as markdown.
 */
import os from 'node:os';
import path from 'node:path';
import { agentLabel, agentProductName, parseAgentName } from '../engine/agentKinds';
import type { AgentHistoryReport } from '../engine/agentHistory/historyShapes';
import { historyAgents, type HistoryAgent } from '../engine/agentHistory/historySources';
import { parseDuration } from '../engine/config';
import { isImportFormat } from '../engine/interop/importService';
import { importFormats, type ImportCounts, type ImportReport } from '../engine/interop/importTypes';
import { listOption, stringOption, UsageError, type Command } from './command';

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

/** `--since`: a time (2026-11-28, 2026-11-28T09:00) or how long ago (90m, 4h, 7d, 2w). */
function sinceOption(text: string | undefined, now: number): string | null {
	if (text === undefined) {
		return null;
	}
	if (/^\d+(?:\.\d+)?\s*(ms|s|m|h|d|w)$/.test(text.trim())) {
		return new Date(now - parseDuration(text)).toISOString();
	}
	const at = Date.parse(text);
	if (Number.isNaN(at)) {
		throw new UsageError(`--since takes a time (2026-11-28T09:00 or 2026-11-28) or how long ago (4h, 7d), not ${JSON.stringify(text)}`);
	}
	return new Date(at).toISOString();
}

/** The agents named, and the products asked for by a narrower name (`roo`: Roo Code's tasks, not Cline's, unless `cline` is named too). */
function historyAgentsOption(names: readonly string[]): { agents: HistoryAgent[]; products?: Partial<Record<HistoryAgent, string[]>> } {
	const agents: HistoryAgent[] = [];
	const products: Partial<Record<HistoryAgent, string[]>> = {};
	const whole = new Set<HistoryAgent>();
	for (const name of names) {
		const agent = parseAgentName(name);
		if (!agent || !(historyAgents as readonly string[]).includes(agent)) {
			throw new UsageError(`--agent: Baton reads the history of ${historyAgents.join(', ')} (and roo-code), not ${JSON.stringify(name)}`);
		}
		const kind = agent as HistoryAgent;
		agents.push(kind);
		const product = agentProductName(name);
		if (product) (products[kind] ??= []).push(product);
		else whole.add(kind);
	}
	for (const kind of whole) delete products[kind];
	return Object.keys(products).length ? { agents, products } : { agents };
}

function agentHistoryText(report: AgentHistoryReport): string {
	const lines = [report.dryRun ? 'Dry run: nothing was written.' : `Agent history of this workspace${report.since ? ` since ${report.since}` : ''}:`];
	for (const [agent, c] of Object.entries(report.agents)) {
		const label = parseAgentName(agent) ? agentLabel(parseAgentName(agent) as HistoryAgent) : agent;
		const verb = report.dryRun ? 'would import' : 'imported';
		lines.push(
			`  ${label.padEnd(12)} ${c.found} found: ${verb} ${c.imported}, ${report.dryRun ? 'would update' : 'updated'} ${c.updated}, unchanged ${c.unchanged}, skipped ${c.skipped}${c.unknownRecords ? `; ${c.unknownRecords} record(s) of unknown types passed over` : ''}${c.badLines ? `; ${c.badLines} damaged line(s) passed over` : ''}`,
		);
	}
	for (const s of report.skipped) lines.push(`  skipped  ${s.path}: ${s.reason}`);
	return lines.join('\n');
}

export const interopCommands: Command[] = [
	{
		path: ['import', 'agents'],
		usage: 'baton import agents [--agent A] [--since T] [--dry-run] [--json]',
		summary:
			"read every agent's own history of this workspace (Claude Code, Codex, Gemini CLI, Copilot CLI, VS Code chat sessions, Cline, Roo Code) into Baton: read-only, and a second run adds only what is new",
		options: { agent: { type: 'string', multiple: true }, since: { type: 'string' }, 'dry-run': { type: 'boolean' } },
		positionals: [0, 0],
		async run(ctx) {
			const { agents, products } = historyAgentsOption(listOption(ctx.values, 'agent'));
			const since = sinceOption(stringOption(ctx.values, 'since'), Date.now());
			const report = await (
				await ctx.engine()
			).agentHistory.import({
				agents,
				...(products ? { products } : {}),
				since,
				dryRun: ctx.values['dry-run'] === true,
				actor: ctx.actor,
				env: ctx.env,
				homeDir: ctx.env['HOME'] || os.homedir(),
			});
			return { json: { ...report }, text: agentHistoryText(report) };
		},
	},
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
			const report = await (
				await ctx.engine()
			).imports.run({ format, path: path.resolve(ctx.cwd, file), dryRun: ctx.values['dry-run'] === true, actor: ctx.actor });
			return { json: { ...report }, text: importText(report), exitCode: report.errors.length > 0 ? 1 : 0 };
		},
	},
	{
		path: ['export'],
		usage: 'baton export (--session ID | --chain ID) --out DIR   |   baton export --session ID --markdown [--briefing]',
		summary: 'write a session or its whole chain as JSON files (index.json + one per session); or show a handoff or briefing as markdown',
		options: {
			session: { type: 'string' },
			chain: { type: 'string' },
			out: { type: 'string' },
			markdown: { type: 'boolean' },
			briefing: { type: 'boolean' },
		},
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
			const result = await (
				await ctx.engine()
			).exports.export({ ...(sessionId ? { sessionId } : { chainId: chainId as string }), out: path.resolve(ctx.cwd, out) });
			return {
				json: { out: result.out, files: result.files },
				text: `Exported ${result.files.length - 1} session(s) to ${result.out}: ${result.files.join(', ')}`,
			};
		},
	},
];
