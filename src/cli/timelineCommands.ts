/**
 * `baton timeline …`: a session's replay on the command line (docs/replay.md) — its prompts, agent
 * and human steps, checkpoints and approvals; one step with its diff; reverting one step.
 */
import type { StepRecord } from '../engine/timeline/timelineQueries';
import { maintainTimeline } from '../engine/timeline/timelineRetention';
import type { TimelineEntry, TimelineStep } from '../engine/timeline/timelineShapes';
import { stringOption, type Command } from './command';

function filesText(step: TimelineStep): string {
	const files = step.files.map((f) => `${f.change[0]?.toUpperCase()} ${f.path} (+${f.additions} -${f.deletions})`);
	return files.length ? files.join(', ') + (step.moreFiles ? `, … ${step.moreFiles} more` : '') : 'no files changed';
}

function stepLine(step: TimelineStep): string {
	const who = step.actor === 'human' ? 'human' : (step.tool ?? 'agent');
	const state =
		(step.captured ? filesText(step) : `not captured: ${step.reason ?? 'unknown'}`) +
		(step.treesGone ? `\n             trees gone: ${step.treesGone}` : '');
	return `  step ${String(step.step).padStart(3)}  turn ${step.turn}  ${who}${step.summary && step.actor !== 'human' ? `: ${step.summary}` : ''}\n             ${state}`;
}

function entryLine(entry: TimelineEntry): string {
	switch (entry.type) {
		case 'prompt':
			return `turn ${entry.turn}  prompt: ${entry.text.replace(/\s+/g, ' ').slice(0, 200)}`;
		case 'step':
			return stepLine(entry);
		case 'checkpoint':
			return `  checkpoint ${entry.checkpointId} (${entry.trigger})${entry.message ? ` ${entry.message}` : ''}`;
		case 'approval':
			return `  ${entry.status} ${entry.checkpointId}${entry.user ? ` by ${entry.user}` : ''}${entry.reason ? ` — ${entry.reason}` : ''}`;
	}
}

function publicStep(step: StepRecord | (TimelineStep & { id: string })): Record<string, unknown> {
	return { ...step };
}

export const timelineCommands: Command[] = [
	{
		path: ['timeline'],
		usage: 'baton timeline [--session ID] [--json]',
		summary: "a session's replay: prompts, agent and human steps with their files, checkpoints and approvals",
		options: { session: { type: 'string' } },
		async run(ctx) {
			const timeline = await (await ctx.engine()).timeline.timeline(stringOption(ctx.values, 'session') ?? null);
			const steps = timeline.entries
				.filter((e): e is Extract<TimelineEntry, { type: 'step' }> => e.type === 'step')
				.map(({ type: _type, ...step }) => step);
			const prompts = timeline.entries.filter((e) => e.type === 'prompt').map(({ type: _type, ...prompt }) => prompt);
			return {
				json: { session: timeline.session, steps, prompts, entries: timeline.entries },
				text: [`${timeline.session}: ${steps.length} step(s), ${prompts.length} prompt(s)`, ...timeline.entries.map(entryLine)].join('\n'),
			};
		},
	},
	{
		path: ['timeline', 'show'],
		usage: 'baton timeline show STEP [--session ID] [--diff]',
		summary: 'one step (its number in the session, or its evt_ id): files, where they stand now, and with --diff its patch',
		options: { session: { type: 'string' }, diff: { type: 'boolean' } },
		positionals: [1, 1],
		async run(ctx) {
			const timeline = (await ctx.engine()).timeline;
			const step = await timeline.step(ctx.args[0] as string, stringOption(ctx.values, 'session') ?? null);
			const now = await timeline.filesNow(step);
			const diff = ctx.values['diff'] === true ? await timeline.diff(step) : undefined;
			const nowByPath = new Map(now.map((f) => [f.path, f.now]));
			const text = [
				`step ${step.step} of ${step.sessionId} (${step.id})`,
				`  turn       ${step.turn}${step.toolUseId ? ` (tool use ${step.toolUseId})` : ''}`,
				`  actor      ${step.actor}${step.agent ? ` (${step.agent})` : ''}`,
				...(step.tool ? [`  tool       ${step.tool}: ${step.summary}`] : []),
				`  started    ${step.startedAt}`,
				step.captured ? `  trees      ${step.treeBefore} → ${step.treeAfter}` : `  captured   no: ${step.reason ?? 'unknown'}`,
				...(step.treesGone ? [`  gone       ${step.treesGone}`] : []),
				...step.files.map(
					(f) =>
						`  ${f.change[0]?.toUpperCase()} ${f.path} (+${f.additions} -${f.deletions})${step.treesGone ? '' : `  now ${nowByPath.get(f.path) ?? 'unknown'}`}`,
				),
				...(diff !== undefined ? ['', diff.trimEnd()] : []),
			].join('\n');
			return { json: { step: publicStep(step), filesNow: now, ...(diff !== undefined ? { diff } : {}) }, text };
		},
	},
	{
		path: ['timeline', 'revert'],
		usage: 'baton timeline revert STEP [--session ID] [--dry-run]',
		summary:
			'undo one step where its lines are still as it left them (three-way); a safety checkpoint first; anything changed since is left alone and reported',
		options: { session: { type: 'string' }, 'dry-run': { type: 'boolean' } },
		positionals: [1, 1],
		async run(ctx) {
			const result = await (
				await ctx.engine()
			).timeline.revert(ctx.args[0] as string, {
				sessionId: stringOption(ctx.values, 'session') ?? null,
				dryRun: ctx.values['dry-run'] === true,
				actor: ctx.actor,
			});
			const verb = result.dryRun ? 'would revert' : 'reverted';
			// Nothing reverted is said as such: every file of the step changed since (or is gone).
			const headline =
				result.reverted.length === 0
					? `${result.dryRun ? 'would revert' : 'reverted'} nothing of step ${result.step} of ${result.sessionId}: every file it touched has changed since`
					: `${verb} step ${result.step} of ${result.sessionId}`;
			const text = [
				`${headline}${result.checkpoint ? ` (safety checkpoint ${result.checkpoint})` : ''}`,
				...result.reverted.map((p) => `  ${verb} ${p}`),
				...result.skipped.map((s) => `  left alone ${s.path}: ${s.reason}`),
			].join('\n');
			return { json: { ...result }, text };
		},
	},
	{
		path: ['timeline', 'prune'],
		usage: 'baton timeline prune [--dry-run] [--pack]',
		summary:
			"drop the replay trees of sessions past the retention (checkpoints.timelineKeep, timelineKeepSessions; their records stay) and pack Baton's store",
		options: { 'dry-run': { type: 'boolean' }, pack: { type: 'boolean' } },
		async run(ctx) {
			const engine = await ctx.engine();
			const result = await maintainTimeline(engine.ctx, engine.checkpoints.shadow, {
				dryRun: ctx.values['dry-run'] === true,
				forcePack: ctx.values['pack'] === true,
			});
			const verb = result.dryRun ? 'would prune' : 'pruned';
			const text = [
				`${verb} the trees of ${result.pruned.length} session(s), kept ${result.kept}${result.packed ? `; store packed (${result.looseObjects} loose object(s) left)` : ''}`,
				...result.pruned.map((p) => `  ${verb} ${p.sessionId} (ended ${p.endedAt})`),
			].join('\n');
			return { json: { ...result }, text };
		},
	},
];
