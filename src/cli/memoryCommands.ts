/**
 * Project memory at the command line (`baton memory add|list|retire|confirm`) and the session
 * summary (`baton session summary`). Facts are de-duplicated by their normalised text: adding one
 * that is known already confirms it and says so (`duplicate: true`).
 */
import type { Engine } from '../engine/engine';
import { BatonError } from '../engine/errors';
import type { MemoryEntry, MemoryKind } from '../engine/storage/model';
import { memoryKinds } from '../engine/storage/schema';
import { listOption, stringOption, UsageError, type Command } from './command';

function entryLine(e: MemoryEntry): string {
	const marks = [e.retiredAt ? 'retired' : '', e.staleSince ? `stale: ${e.staleReason ?? '?'}` : '', e.confirmations > 1 ? `×${e.confirmations}` : ''].filter(
		Boolean,
	);
	return `${e.id}  ${e.kind.padEnd(9)}  ${e.text}${e.files.length ? `  (${e.files.join(', ')})` : ''}${marks.length ? `  [${marks.join('; ')}]` : ''}`;
}

function kindOption(value: string | undefined, required: boolean): MemoryKind | undefined {
	if (value === undefined) {
		if (required) {
			throw new UsageError(`memory add needs --kind ${memoryKinds.join('|')}`);
		}
		return undefined;
	}
	if (!(memoryKinds as readonly string[]).includes(value)) {
		throw new UsageError(`--kind must be one of ${memoryKinds.join(', ')} (got "${value}")`);
	}
	return value as MemoryKind;
}

/** The session a summary is about: the one named, else the only active one, else the most recent. */
async function summarySessionId(engine: Engine, id: string | undefined): Promise<string> {
	if (id) {
		return id;
	}
	const active = await engine.briefings.active();
	if (active.length === 1 && active[0]) {
		return active[0].id;
	}
	if (active.length > 1) {
		throw new BatonError('invalidInput', `${active.length} sessions are active; say which one (baton session summary ID)`);
	}
	const recent = await engine.briefings.mostRecent();
	if (!recent) {
		throw new BatonError('notFound', 'no session yet');
	}
	return recent.id;
}

export const memoryCommands: Command[] = [
	{
		path: ['memory', 'add'],
		usage: 'baton memory add --kind knowledge|gotcha TEXT [--file PATH]… [--session ID]',
		summary: 'record a fact in project memory (a repeat of a known fact confirms it)',
		options: { kind: { type: 'string' }, file: { type: 'string', multiple: true }, session: { type: 'string' } },
		positionals: [1, 1_000],
		async run(ctx) {
			const kind = kindOption(stringOption(ctx.values, 'kind'), true) as MemoryKind;
			const session = stringOption(ctx.values, 'session') ?? (await ctx.ownSession());
			const { entry, duplicate } = await (
				await ctx.engine()
			).memory.record({
				kind,
				text: ctx.args.join(' '),
				files: listOption(ctx.values, 'file'),
				sourceSessionId: session ?? null,
				source: 'manual',
				actor: ctx.actor,
			});
			return {
				json: { entry, duplicate },
				text: duplicate ? `Known already: confirmed ${entry.id} (${entry.confirmations}×)` : `Recorded ${entry.kind} ${entry.id}`,
			};
		},
	},
	{
		path: ['memory', 'list'],
		usage: 'baton memory list [--kind knowledge|gotcha] [--stale] [--session ID] [--all]',
		summary: 'project memory, gotchas first; --stale only stale facts, --all with retired ones',
		options: { kind: { type: 'string' }, stale: { type: 'boolean' }, session: { type: 'string' }, all: { type: 'boolean' } },
		async run(ctx) {
			const kind = kindOption(stringOption(ctx.values, 'kind'), false);
			const session = stringOption(ctx.values, 'session');
			const engine = await ctx.engine();
			// The marks as of now: files may have changed since the last briefing.
			await engine.memory.refreshStalenessQuietly();
			const entries = await engine.memory.list({
				...(kind ? { kind } : {}),
				...(ctx.values['stale'] === true ? { stale: true } : {}),
				...(session ? { sessionId: session } : {}),
				includeRetired: ctx.values['all'] === true,
			});
			return { json: { entries }, text: entries.length ? entries.map(entryLine).join('\n') : 'No facts in project memory.' };
		},
	},
	{
		path: ['memory', 'retire'],
		usage: 'baton memory retire ID',
		summary: 'retire a fact that no longer holds (it never reaches a briefing again)',
		positionals: [1, 1],
		async run(ctx) {
			const entry = await (await ctx.engine()).memory.retire(ctx.args[0] as string, ctx.actor);
			return { json: { entry }, text: `Retired ${entry.id}` };
		},
	},
	{
		path: ['memory', 'confirm'],
		usage: 'baton memory confirm ID',
		summary: 'confirm a fact still holds (clears its stale mark)',
		positionals: [1, 1],
		async run(ctx) {
			const entry = await (await ctx.engine()).memory.confirm(ctx.args[0] as string, ctx.actor);
			return { json: { entry }, text: `Confirmed ${entry.id} (${entry.confirmations}×)` };
		},
	},
	{
		path: ['session', 'summary'],
		usage: 'baton session summary [ID]',
		summary: 'a session’s work summarised from its records and transcripts (markdown; --json for the fields)',
		positionals: [0, 1],
		async run(ctx) {
			const engine = await ctx.engine();
			const result = await engine.memory.sessionSummary(await summarySessionId(engine, ctx.args[0]));
			return { json: { summary: result.summary, markdown: result.markdown }, text: result.markdown.trimEnd() };
		},
	},
];
