/**
 * `baton agents [--json]` (issue 26, item 4): the Agents board — every agent session running now in
 * this workspace, whichever agent, with its state (working, waiting for you, done, failed) and why.
 * The rules are the engine's (src/engine/board/boardRules.ts), as the Agents view shows them.
 */
import { maxOf } from '../engine/arrays';
import type { BoardEntry } from '../engine/board/boardShapes';
import { agentNames } from '../engine/text/actorNames';
import type { Command } from './command';

/** `3m`, `2h`, `5d`: how long ago, for a terminal line. */
function ageOf(since: string, now: number): string {
	const seconds = Math.max(0, Math.round((now - Date.parse(since)) / 1000));
	if (seconds < 60) {
		return `${seconds}s`;
	}
	const minutes = Math.round(seconds / 60);
	return minutes < 60 ? `${minutes}m` : minutes < 48 * 60 ? `${Math.round(minutes / 60)}h` : `${Math.round(minutes / 1440)}d`;
}

function agentOf(entry: BoardEntry): string {
	return entry.agent ? (Object.hasOwn(agentNames, entry.agent) ? (agentNames[entry.agent] as string) : entry.agent) : '';
}

/** Aligned columns: state, age, agent, name, then why. */
function boardLines(entries: readonly BoardEntry[], now: number): string[] {
	const rows = entries.map((e) => [e.state, ageOf(e.since, now), agentOf(e), e.name, e.reason]);
	const widths = [0, 1, 2, 3].map((i) =>
		maxOf(
			rows.map((r) => (r[i] as string).length),
			0,
		),
	);
	return rows.map((r) => r.map((cell, i) => (i < 4 ? cell.padEnd(widths[i] as number) : cell)).join('  '));
}

export const boardCommands: Command[] = [
	{
		path: ['agents'],
		usage: 'baton agents [--json]',
		summary: 'every agent session running now in this workspace and whether it waits for you (working, waiting, done, failed)',
		async run(ctx) {
			const report = await (await ctx.engine()).board.list();
			const now = Date.parse(report.at);
			const head =
				report.entries.length === 0
					? 'no agent session is running in this workspace'
					: `${report.entries.length} agent session${report.entries.length === 1 ? '' : 's'}, ${report.waiting === 0 ? 'none waits' : `${report.waiting} wait${report.waiting === 1 ? 's' : ''}`} for you`;
			return { json: { ...report }, text: [head, ...boardLines(report.entries, now)].join('\n') };
		},
	},
];
