import { parseDuration } from '../engine/config';
import { sessionStatuses } from '../engine/storage/schema';
import type { Session, SessionStatus } from '../engine/storage/model';
import type { Engine } from '../engine/engine';
import { BatonError } from '../engine/errors';
import type { ForkNode } from '../engine/sessions/sessionQueries';
import { scopeForms } from '../engine/sessions/scope';
import { listOption, stringOption, UsageError, type Command } from './command';
import { activeSessionsList, briefingText, handoffText, sessionDetails, sessionLine } from './textFormat';

/** What `session list` shows when no --limit is given: a person's screenful, not a team's years. */
const defaultListLimit = 100;

export const sessionCommands: Command[] = [
	{
		path: ['session', 'start'],
		usage: `baton session start --name N [--scope ${scopeForms.join('|')}] [--agent A] [--agent-id ID] [--parent ID] [--task ID]`,
		summary: 'start a session; prints its briefing and the previous session’s handoff',
		options: {
			name: { type: 'string' },
			scope: { type: 'string' },
			agent: { type: 'string' },
			'agent-id': { type: 'string' },
			parent: { type: 'string' },
			task: { type: 'string' },
		},
		async run(ctx) {
			const name = stringOption(ctx.values, 'name');
			if (!name) {
				throw new UsageError('session start needs --name');
			}
			const engine = await ctx.engine();
			const result = await engine.sessions.start({
				name,
				scope: stringOption(ctx.values, 'scope') ?? 'global',
				agent: stringOption(ctx.values, 'agent') ?? null,
				agentIdentifier: stringOption(ctx.values, 'agent-id') ?? null,
				parentSessionId: stringOption(ctx.values, 'parent') ?? ctx.env['BATON_PARENT_SESSION_ID'] ?? null,
				currentTask: stringOption(ctx.values, 'task') ?? null,
				actor: ctx.actor,
			});
			return {
				json: { session: result.session, briefing: result.briefing, handoff: result.handoff, warnings: result.warnings },
				text: `Started ${result.session.name} (${result.session.id})\n\n${briefingText(result.briefing)}`,
			};
		},
	},
	{
		path: ['session', 'end'],
		usage: 'baton session end [--id ID] [--note T] [--next-action T] [--blocker T]…',
		summary: 'end a session, writing its handoff and debrief',
		options: { id: { type: 'string' }, note: { type: 'string' }, 'next-action': { type: 'string' }, blocker: { type: 'string', multiple: true } },
		async run(ctx) {
			const engine = await ctx.engine();
			const id = stringOption(ctx.values, 'id') ?? (await ctx.ownSession());
			const note = stringOption(ctx.values, 'note');
			const nextAction = stringOption(ctx.values, 'next-action');
			const result = await engine.sessions.end({
				...(id ? { id } : {}),
				...(note !== undefined ? { note } : {}),
				...(nextAction !== undefined ? { nextAction } : {}),
				blockers: listOption(ctx.values, 'blocker'),
				actor: ctx.actor,
			});
			return {
				json: { session: result.session, handoff: result.handoff, debrief: result.debrief, warnings: result.warnings },
				text: [
					`Ended ${result.session.name} (${result.session.id}) after ${result.debrief.durationMinutes} min`,
					'Handoff:',
					handoffText(result.handoff),
					...result.warnings.map((w) => `warning: ${w}`),
				].join('\n'),
			};
		},
	},
	{
		path: ['session', 'suspend'],
		usage: 'baton session suspend [ID]',
		summary: 'suspend an active session',
		positionals: [0, 1],
		async run(ctx) {
			const id = ctx.args[0] ?? (await ctx.ownSession());
			const session = await (await ctx.engine()).sessions.suspend({ ...(id ? { id } : {}), actor: ctx.actor });
			return { json: { session }, text: `Suspended ${session.name} (${session.id})` };
		},
	},
	{
		path: ['session', 'resume'],
		usage: 'baton session resume ID',
		summary: 'make a suspended, ended or orphaned session active again',
		positionals: [1, 1],
		async run(ctx) {
			const session = await (await ctx.engine()).sessions.resume({ id: ctx.args[0] as string, actor: ctx.actor });
			return { json: { session }, text: `Resumed ${session.name} (${session.id})` };
		},
	},
	{
		path: ['session', 'rename'],
		usage: 'baton session rename ID NAME',
		summary: 'give a session a name that says what it is doing (shared with teammates through sync)',
		positionals: [2, 2],
		async run(ctx) {
			const session = await (await ctx.engine()).sessions.rename({ id: ctx.args[0] as string, name: ctx.args[1] as string, actor: ctx.actor });
			return { json: { session }, text: `Renamed ${session.id} to ${session.name}` };
		},
	},
	{
		path: ['session', 'switch'],
		usage: 'baton session switch ID [--from ID]',
		summary: 'suspend the current session and activate another, atomically',
		positionals: [1, 1],
		options: { from: { type: 'string' } },
		async run(ctx) {
			const from = stringOption(ctx.values, 'from');
			const result = await (await ctx.engine()).sessions.switch({ id: ctx.args[0] as string, ...(from ? { from } : {}), actor: ctx.actor });
			return {
				json: { session: result.session, suspended: result.suspended },
				text: `${result.suspended ? `Suspended ${result.suspended.id}; ` : ''}active: ${result.session.name} (${result.session.id})`,
			};
		},
	},
	{
		path: ['session', 'show'],
		usage: 'baton session show [ID]',
		summary: 'one session with its handoff (without ID: the active session)',
		positionals: [0, 1],
		async run(ctx) {
			const engine = await ctx.engine();
			const session = await engine.briefings.get(ctx.args[0] ?? (await onlyActive(engine, 'show', 'baton session show ID')).id);
			const stored = await engine.briefings.handoff(session.id);
			const handoff = stored.kind === 'valid' ? stored.data : null;
			return {
				json: { session, handoff, ...(stored.kind === 'malformed' ? { warnings: [`stored handoff is malformed: ${stored.problem}`] } : {}) },
				text: `${sessionDetails(session)}${handoff ? `\nHandoff:\n${handoffText(handoff)}` : ''}`,
			};
		},
	},
	{
		path: ['session', 'list'],
		usage: `baton session list [--status active|suspended|ended|orphaned|archived|closed] [--scope ${scopeForms.join('|')}] [--limit N] [--after ID]`,
		summary: `sessions, newest first, ${defaultListLimit} at a time (--limit N for more, --after ID for the next page)`,
		options: { status: { type: 'string' }, scope: { type: 'string' }, limit: { type: 'string' }, after: { type: 'string' } },
		async run(ctx) {
			const status = stringOption(ctx.values, 'status');
			if (status && !(sessionStatuses as readonly string[]).includes(status)) {
				throw new UsageError(`--status must be one of ${sessionStatuses.join(', ')}`);
			}
			const limitText = stringOption(ctx.values, 'limit');
			const limit = limitText === undefined ? defaultListLimit : Number(limitText);
			if (!Number.isInteger(limit) || limit < 1) {
				throw new UsageError('--limit must be a positive whole number');
			}
			const scope = stringOption(ctx.values, 'scope');
			const after = stringOption(ctx.values, 'after');
			// One more than the page: whether there is a next page, without counting the whole history.
			const page = await (
				await ctx.engine()
			).briefings.list({
				...(status ? { status: status as SessionStatus } : {}),
				...(scope ? { scope } : {}),
				...(after ? { after } : {}),
				limit: limit + 1,
			});
			const sessions = page.slice(0, limit);
			const next = page.length > limit ? (sessions.at(-1)?.id ?? null) : null;
			const more = next
				? `\n… more: baton session list${status ? ` --status ${status}` : ''}${scope ? ` --scope ${scope}` : ''}${limitText ? ` --limit ${limit}` : ''} --after ${next}`
				: '';
			return { json: { sessions, next }, text: sessions.length ? `${sessions.map(sessionLine).join('\n')}${more}` : 'No sessions.' };
		},
	},
	{
		path: ['session', 'chain'],
		usage: 'baton session chain ID',
		summary: 'the whole chain a session belongs to, first to last',
		positionals: [1, 1],
		async run(ctx) {
			const sessions = await (await ctx.engine()).briefings.chain(ctx.args[0] as string);
			return { json: { sessions }, text: sessions.map((s, i) => `${String(i + 1).padStart(3)}. ${sessionLine(s)}`).join('\n') };
		},
	},
	{
		path: ['session', 'tree'],
		usage: 'baton session tree ID',
		summary: 'the fork tree (orchestrator and workers) a session belongs to',
		positionals: [1, 1],
		async run(ctx) {
			const tree = await (await ctx.engine()).briefings.forkTree(ctx.args[0] as string);
			const lines: string[] = [];
			const walk = (node: ForkNode, depth: number): void => {
				lines.push(`${'  '.repeat(depth)}${sessionLine(node.session)}`);
				node.children.forEach((c) => walk(c, depth + 1));
			};
			walk(tree, 0);
			return { json: { tree }, text: lines.join('\n') };
		},
	},
	{
		path: ['session', 'gc'],
		usage: 'baton session gc [--orphan-after DUR] [--end-after DUR]',
		summary: 'orphan idle active sessions and end long-idle ones (ages like 0, 30m, 1d, 7d)',
		options: { 'orphan-after': { type: 'string' }, 'end-after': { type: 'string' } },
		async run(ctx) {
			const orphanAfter = stringOption(ctx.values, 'orphan-after');
			const endAfter = stringOption(ctx.values, 'end-after');
			const result = await (
				await ctx.engine()
			).sessions.gc({
				...(orphanAfter !== undefined ? { orphanAfterMs: parseDurationOrUsage(orphanAfter) } : {}),
				...(endAfter !== undefined ? { endAfterMs: parseDurationOrUsage(endAfter) } : {}),
				actor: ctx.actor,
			});
			return {
				json: { orphaned: result.orphaned, ended: result.ended },
				text: `Orphaned ${result.orphaned.length}, ended ${result.ended.length}.${[...result.orphaned, ...result.ended].map((s) => `\n  ${sessionLine(s)}`).join('')}`,
			};
		},
	},
	{
		path: ['session', 'alias'],
		usage: 'baton session alias ID --agent A --agent-id ID',
		summary: 'record an agent’s own session id as an alias of a durable session',
		positionals: [1, 1],
		options: { agent: { type: 'string' }, 'agent-id': { type: 'string' } },
		async run(ctx) {
			const agent = stringOption(ctx.values, 'agent');
			const alias = stringOption(ctx.values, 'agent-id');
			if (!agent || !alias) {
				throw new UsageError('session alias needs --agent and --agent-id');
			}
			const session = await (await ctx.engine()).sessions.addAlias({ sessionId: ctx.args[0] as string, agent, alias, actor: ctx.actor });
			return { json: { session }, text: `${agent} id ${alias} → ${session.id}` };
		},
	},
	{
		path: ['session', 'touch'],
		usage: 'baton session touch ID',
		summary: 'record activity on a session (keeps it from being orphaned)',
		positionals: [1, 1],
		async run(ctx) {
			const session = await (await ctx.engine()).sessions.touch({ id: ctx.args[0] as string, actor: ctx.actor });
			return { json: { session }, text: `Touched ${session.id}` };
		},
	},
];

function parseDurationOrUsage(text: string): number {
	try {
		return parseDuration(text);
	} catch (error) {
		throw new UsageError((error as Error).message);
	}
}

/** The one active session, or a refusal that lists every active one so the person can choose. */
async function onlyActive(engine: Engine, verb: string, usage: string): Promise<Session> {
	const active = await engine.briefings.active();
	if (active.length === 1 && active[0]) {
		return active[0];
	}
	if (active.length === 0) {
		throw new BatonError('notFound', `no active session to ${verb}; give its id: ${usage}`);
	}
	throw new BatonError('invalidInput', `${active.length} sessions are active; say which one to ${verb}: ${usage}\n${activeSessionsList(active)}`);
}
