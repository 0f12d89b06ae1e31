import { BatonError } from '../engine/errors';
import { runDoctor, type RepairPlan } from '../engine/storage/doctor';
import { spoolCounts } from '../hookHost/hookSpool';
import { countSteps } from '../engine/timeline/timelineQueries';
import { shadowStoreSize, storeSizeLine } from '../engine/timeline/timelineStorage';
import { batonDir, initWorkspace } from '../engine/workspace';
import { silentLogger, systemClock } from '../engine/ports';
import { taskPriorities, taskStatuses, taskTypes } from '../engine/storage/schema';
import type { TaskPriority, TaskStatus, TaskType } from '../engine/storage/model';
import type { TaskWithDependencies } from '../engine/tasks/taskService';
import { listOption, stringOption, UsageError, type Command, type ParsedValues } from './command';
import { activeSessionsList, briefingText } from './textFormat';
import { pushAll } from '../engine/arrays';
import os from 'node:os';
import { reindexFix, reindexText, transcriptIndexCheck } from './doctorTranscripts';

function taskLine(t: TaskWithDependencies): string {
	const deps = t.dependsOn.length ? `  ← ${t.dependsOn.join(', ')}` : '';
	return `${t.id.padEnd(6)} ${t.status.padEnd(9)} ${t.type.padEnd(7)} ${t.priority.padEnd(8)} ${t.title}${t.parentId ? `  (in ${t.parentId})` : ''}${deps}`;
}

function enumOption<T extends string>(values: ParsedValues, name: string, allowed: readonly T[]): T | undefined {
	const value = stringOption(values, name);
	if (value !== undefined && !(allowed as readonly string[]).includes(value)) {
		throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
	}
	return value as T | undefined;
}

export const workspaceCommands: Command[] = [
	{
		path: ['init'],
		usage: 'baton init',
		summary: 'create .baton/ (database, journal, .gitignore) in the workspace',
		needsInit: false,
		async run(ctx) {
			const created = initWorkspace(ctx.workspaceRoot);
			const engine = await ctx.engine();
			return {
				json: { workspace: ctx.workspaceRoot, dataDir: batonDir(ctx.workspaceRoot), created, sequence: engine.store.sequence },
				text: `${created ? 'Initialised' : 'Already initialised:'} ${batonDir(ctx.workspaceRoot)}`,
			};
		},
	},
	{
		path: ['briefing'],
		usage: 'baton briefing [--session ID] [--scope S]',
		summary: 'the briefing for the active session, a given session, or a scope (its active session’s, if any)',
		options: { session: { type: 'string' }, scope: { type: 'string' } },
		async run(ctx) {
			const engine = await ctx.engine();
			const scope = stringOption(ctx.values, 'scope');
			let sessionId = stringOption(ctx.values, 'session');
			if (!sessionId && !scope) {
				// Never a silent fresh-session briefing: brief the one active session, or refuse with the list.
				const active = await engine.briefings.active();
				if (active.length > 1) {
					throw new BatonError(
						'invalidInput',
						`${active.length} sessions are active; say which one to brief: baton briefing --session ID (or --scope S)\n${activeSessionsList(active)}`,
					);
				}
				sessionId = active[0]?.id;
			}
			const briefing = await engine.briefings.briefing({ ...(sessionId ? { sessionId } : {}), ...(scope ? { scope } : {}) });
			// A scope with a running session is briefed as that session (the engine says which).
			const subject = briefing.sessionId ? await engine.briefings.get(briefing.sessionId) : null;
			const heading = subject
				? `Briefing for session ${subject.name} (${subject.id})`
				: `Briefing for a new session in scope ${scope ?? 'global'} (no session given or active there)`;
			return { json: { briefing, sessionId: subject?.id ?? null }, text: `${heading}\n\n${briefingText(briefing)}` };
		},
	},
	{
		path: ['decision', 'record'],
		usage: 'baton decision record --text T [--rationale R] [--assumption] [--task ID] [--session ID]',
		summary: 'record a decision (or an assumption) in the active session',
		options: {
			text: { type: 'string' },
			rationale: { type: 'string' },
			assumption: { type: 'boolean' },
			task: { type: 'string' },
			session: { type: 'string' },
		},
		async run(ctx) {
			const text = stringOption(ctx.values, 'text');
			if (!text) {
				throw new UsageError('decision record needs --text');
			}
			const rationale = stringOption(ctx.values, 'rationale');
			const taskId = stringOption(ctx.values, 'task');
			const sessionId = stringOption(ctx.values, 'session') ?? (await ctx.ownSession());
			const decision = await (
				await ctx.engine()
			).sessions.recordDecision({
				text,
				...(rationale ? { rationale } : {}),
				...(taskId ? { taskId } : {}),
				...(sessionId ? { sessionId } : {}),
				kind: ctx.values['assumption'] ? 'assumption' : 'decision',
				actor: ctx.actor,
			});
			return { json: { decision }, text: `Recorded ${decision.kind} ${decision.id}` };
		},
	},
	{
		path: ['task', 'add'],
		usage: 'baton task add --title T [--type epic|task|subtask|bug] [--priority P] [--parent ID] [--depends-on ID]… [--description D] [--phase P]',
		summary: 'add a task',
		options: {
			title: { type: 'string' },
			type: { type: 'string' },
			priority: { type: 'string' },
			parent: { type: 'string' },
			'depends-on': { type: 'string', multiple: true },
			description: { type: 'string' },
			phase: { type: 'string' },
		},
		async run(ctx) {
			const title = stringOption(ctx.values, 'title');
			if (!title) {
				throw new UsageError('task add needs --title');
			}
			const type = enumOption<TaskType>(ctx.values, 'type', taskTypes);
			const priority = enumOption<TaskPriority>(ctx.values, 'priority', taskPriorities);
			const parentId = stringOption(ctx.values, 'parent');
			const description = stringOption(ctx.values, 'description');
			const phase = stringOption(ctx.values, 'phase');
			const task = await (
				await ctx.engine()
			).tasks.add({
				title,
				...(type ? { type } : {}),
				...(priority ? { priority } : {}),
				...(parentId ? { parentId } : {}),
				...(description ? { description } : {}),
				...(phase ? { phase } : {}),
				dependsOn: listOption(ctx.values, 'depends-on'),
				actor: ctx.actor,
			});
			return { json: { task }, text: `Added ${task.id}: ${task.title}` };
		},
	},
	{
		path: ['task', 'list'],
		usage: 'baton task list [--status S] [--type T]',
		summary: 'tasks in creation order',
		options: { status: { type: 'string' }, type: { type: 'string' } },
		async run(ctx) {
			const status = enumOption<TaskStatus>(ctx.values, 'status', taskStatuses);
			const type = enumOption<TaskType>(ctx.values, 'type', taskTypes);
			const tasks = await (await ctx.engine()).tasks.list({ ...(status ? { status } : {}), ...(type ? { type } : {}) });
			return { json: { tasks }, text: tasks.length ? tasks.map(taskLine).join('\n') : 'No tasks.' };
		},
	},
	{
		path: ['task', 'show'],
		usage: 'baton task show ID',
		summary: 'one task',
		positionals: [1, 1],
		async run(ctx) {
			const task = await (await ctx.engine()).tasks.get(ctx.args[0] as string);
			return { json: { task }, text: taskLine(task) };
		},
	},
	{
		path: ['task', 'update'],
		usage: 'baton task update ID [--status S] [--title T] [--priority P] [--parent ID|none] [--depends-on ID]… [--no-depends-on ID]…',
		summary: 'change a task',
		positionals: [1, 1],
		options: {
			status: { type: 'string' },
			title: { type: 'string' },
			priority: { type: 'string' },
			parent: { type: 'string' },
			'depends-on': { type: 'string', multiple: true },
			'no-depends-on': { type: 'string', multiple: true },
		},
		async run(ctx) {
			const status = enumOption<TaskStatus>(ctx.values, 'status', taskStatuses);
			const priority = enumOption<TaskPriority>(ctx.values, 'priority', taskPriorities);
			const title = stringOption(ctx.values, 'title');
			const parent = stringOption(ctx.values, 'parent');
			const task = await (
				await ctx.engine()
			).tasks.update({
				id: ctx.args[0] as string,
				...(status ? { status } : {}),
				...(priority ? { priority } : {}),
				...(title !== undefined ? { title } : {}),
				...(parent !== undefined ? { parentId: parent === 'none' ? null : parent } : {}),
				addDependsOn: listOption(ctx.values, 'depends-on'),
				removeDependsOn: listOption(ctx.values, 'no-depends-on'),
				actor: ctx.actor,
			});
			return { json: { task }, text: taskLine(task) };
		},
	},
	{
		path: ['focus'],
		usage: 'baton focus ID [--session ID]',
		summary: 'make a task the current task of the active session',
		positionals: [1, 1],
		options: { session: { type: 'string' } },
		async run(ctx) {
			const sessionId = stringOption(ctx.values, 'session');
			const result = await (await ctx.engine()).tasks.focus({ id: ctx.args[0] as string, ...(sessionId ? { sessionId } : {}), actor: ctx.actor });
			return {
				json: { task: result.task, sessionId: result.sessionId, warnings: result.warnings },
				text: [`Focused ${result.task.id} in ${result.sessionId}`, ...result.warnings.map((w) => `warning: ${w}`)].join('\n'),
			};
		},
	},
	{
		path: ['doctor'],
		usage: 'baton doctor [--repair [--accept-loss]] [--reindex]',
		summary:
			"check the database, journal and transcript index; --repair rebuilds from every good copy (snapshots, journals) and, when that cannot recover every acknowledged write, says how much is lost and asks first (without a terminal it refuses unless --accept-loss is given); --reindex rebuilds the transcript index from the archive and the agents' files still on disk",
		options: { repair: { type: 'boolean' }, 'accept-loss': { type: 'boolean' }, reindex: { type: 'boolean' } },
		needsInit: true,
		async run(ctx) {
			const acceptLoss = ctx.values['accept-loss'] === true;
			if (acceptLoss && ctx.values['repair'] !== true) {
				throw new UsageError('--accept-loss goes with --repair');
			}
			const ask = ctx.ask;
			const report = await runDoctor({
				dir: batonDir(ctx.workspaceRoot),
				repair: ctx.values['repair'] === true,
				clock: systemClock,
				log: silentLogger,
				...(acceptLoss
					? { acceptLoss: () => true }
					: ask
						? {
								acceptLoss: (plan: RepairPlan) =>
									ask(`Repair would lose ${plan.losses.join('; ')}. Rebuild anyway (damaged files are kept aside)?`),
							}
						: {}),
			});
			// The transcript index is rebuilt only once the store it links sessions through is sound.
			const reindex =
				ctx.values['reindex'] === true && report.ok
					? await (await ctx.engine()).agentHistory.reindex({ env: ctx.env, homeDir: ctx.env['HOME'] || os.homedir() })
					: null;
			// The search index (and its copy in .baton/cache) is derived from both: built again after them.
			const searchIndex = reindex ? { records: await (await ctx.engine()).search.rebuild() } : null;
			const transcripts = transcriptIndexCheck(ctx.workspaceRoot);
			const checks = [...report.checks, transcripts];
			const lines = checks.map((c) => `${c.ok ? 'ok  ' : 'FAIL'}  ${c.name.padEnd(10)} ${c.detail}`);
			// The step count needs the database: only once the checks above found it sound.
			const steps = report.ok
				? await ctx.engine().then(
						(engine) => engine.store.read(countSteps),
						() => null,
					)
				: null;
			const storage = await shadowStoreSize(ctx.workspaceRoot, steps).catch(() => null);
			lines.push(storeSizeLine(storage));
			// Hook events that could not be recorded in time (docs/daemon.md, "The hook spool").
			const spool = spoolCounts(ctx.workspaceRoot);
			lines.push(`hook spool: ${spool.spooled} spooled (waiting, ${spool.bytes} bytes), ${spool.drained} drained, ${spool.dropped} dropped`);
			pushAll(lines, repairLines(report));
			if (reindex) {
				pushAll(lines, reindexText(reindex));
				if (searchIndex) lines.push(`search index rebuilt: ${searchIndex.records} records`);
			} else if (!transcripts.ok) {
				lines.push(reindexFix);
			}
			// Problems found and not repaired: exit 1, so scripts and CI notice.
			const exitCode = (report.ok || report.repair) && transcripts.ok ? 0 : 1;
			return {
				json: {
					ok: report.ok && transcripts.ok,
					checks,
					repair: report.repair ?? null,
					declined: report.declined ?? null,
					storage,
					spool,
					reindex,
					searchIndex,
				},
				text: lines.join('\n'),
				exitCode,
			};
		},
	},
];

/** What doctor says of its repair: what it rebuilt and lost, what a declined rebuild would lose, or how to repair. */
function repairLines(report: Awaited<ReturnType<typeof runDoctor>>): string[] {
	const lines: string[] = [];
	if (report.repair) {
		lines.push(
			`Repaired from the ${report.repair.base} up to sequence ${report.repair.recoveredSequence}; ${report.repair.droppedRecords} record(s) dropped.`,
		);
		pushAll(
			lines,
			report.repair.losses.map((l) => `  lost: ${l}`),
		);
		pushAll(
			lines,
			report.repair.movedAside.map((f) => `  kept aside: ${f}`),
		);
		pushAll(
			lines,
			report.repair.notes.map((n) => `  ${n}`),
		);
	} else if (report.declined) {
		lines.push(
			`Not repaired, nothing was changed: a rebuild (from the ${report.declined.base}, up to sequence ${report.declined.recoveredSequence}) would lose:`,
		);
		pushAll(
			lines,
			report.declined.losses.map((l) => `  ${l}`),
		);
		pushAll(
			lines,
			report.declined.notes.map((n) => `  ${n}`),
		);
		lines.push('Run `baton doctor --repair --accept-loss` to rebuild anyway; damaged files are kept aside, never deleted.');
	} else if (!report.ok) {
		lines.push('Run `baton doctor --repair` to rebuild; damaged files are kept aside, never deleted.');
	}
	return lines;
}
