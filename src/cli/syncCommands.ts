/**
 * `baton sync enable|disable|push|pull|status` and `baton connect git [--remove]`: sessions,
 * handoffs and checkpoints shared through the repository's git remote (docs/sync.md).
 */
import { connectGitHooks, type HookFile } from '../engine/sync/gitHooks';
import { connectProvenanceHooks } from '../engine/provenance/gitHooks';
import { batonLauncher, shellCommandOf } from '../engine/agentConfig/batonLauncher';
import { batonCliPath } from './batonCliPath';
import { stringOption, UsageError, type Command } from './command';
import type { RetractRequest } from '../engine/sync/retraction';

const enable: Command = {
	path: ['sync', 'enable'],
	usage: 'baton sync enable REMOTE [--transcripts] [--untracked] [--timeline]',
	summary:
		'share this workspace’s sessions, handoffs and checkpoints through the git remote REMOTE (off until enabled); a checkpoint shares only the files git tracks (--untracked: also untracked files git would add), each scanned for credentials first; --timeline: each step’s changed files too, under the same rules, so a teammate’s Replay shows and can revert it',
	options: { transcripts: { type: 'boolean' }, untracked: { type: 'boolean' }, timeline: { type: 'boolean' } },
	positionals: [1, 1],
	async run(ctx) {
		const engine = await ctx.engine();
		const result = await engine.sync.enable(ctx.args[0] as string, {
			transcripts: ctx.values['transcripts'] === true,
			untracked: ctx.values['untracked'] === true,
			timeline: ctx.values['timeline'] === true,
		});
		const extras = [
			...(result.transcripts ? ['transcripts included'] : []),
			...(result.untracked ? ['untracked files git would add included in checkpoints'] : []),
			...(result.timeline ? ["each step's changed files included"] : []),
		];
		return { json: result, text: `sync enabled for ${result.remote} (${result.url})${extras.length ? `, ${extras.join(', ')}` : ''}` };
	},
};

const disable: Command = {
	path: ['sync', 'disable'],
	usage: 'baton sync disable REMOTE',
	summary: 'stop sharing through REMOTE (nothing more is pushed to or pulled from it)',
	positionals: [1, 1],
	async run(ctx) {
		const engine = await ctx.engine();
		const result = await engine.sync.disable(ctx.args[0] as string);
		return { json: result, text: result.wasEnabled ? `sync disabled for ${result.remote}` : `sync was not enabled for ${result.remote}; nothing changed` };
	},
};

const push: Command = {
	path: ['sync', 'push'],
	usage: 'baton sync push [--remote R]',
	summary: 'push this machine’s Baton records (refs/baton/…) to the enabled remote(s)',
	options: { remote: { type: 'string' } },
	async run(ctx) {
		const engine = await ctx.engine();
		const results = await engine.sync.push(stringOption(ctx.values, 'remote'));
		const first = results[0] ?? { pushed: [], remote: '' };
		const leftOut = results.flatMap((r) => r.leftOut ?? []);
		return {
			json: { pushed: first.pushed, remote: first.remote, leftOut, ...(results.length > 1 ? { results } : {}) },
			text: [
				...results.map((r) => (r.pushed.length ? r.pushed.map((p) => `${r.remote}  ${p.ref}  ${p.oid}`).join('\n') : `${r.remote}  up to date`)),
				...leftOut.map(
					(f) =>
						`left out of ${f.step ? `step ${f.step.step} of ${f.step.sessionId}` : `checkpoint ${(f.snapshot ?? '').slice(0, 10)}`}: ${f.path} — it ${f.reason}`,
				),
			].join('\n'),
		};
	},
};

const pull: Command = {
	path: ['sync', 'pull'],
	usage: 'baton sync pull [--remote R]',
	summary: 'fetch the other machines’ Baton records from the enabled remote(s) and merge them',
	options: { remote: { type: 'string' } },
	async run(ctx) {
		const engine = await ctx.engine();
		const r = await engine.sync.pull(stringOption(ctx.values, 'remote'));
		return {
			json: {
				fetched: r.fetched,
				newEvents: r.newEvents,
				sessions: r.sessions,
				checkpoints: r.checkpoints,
				records: r.records,
				transcripts: r.transcripts,
				...(r.refused.length ? { refused: r.refused } : {}),
				...(r.opinions.length ? { opinions: r.opinions } : {}),
				...(r.retracted ? { retracted: r.retracted } : {}),
			},
			text: [
				`${r.newEvents} new events from ${r.fetched} machine refs; sessions +${r.sessions.added} ~${r.sessions.updated}; checkpoints +${r.checkpoints.added} ~${r.checkpoints.updated}; decisions +${r.records.decisions}, tasks ${r.records.tasks}, facts ${r.records.memory}, labels ${r.records.checkpointLabels}, imports ${r.records.imports}; transcripts ${r.transcripts}`,
				...r.refused.map((x) => `refused ${x.id}: ${x.reason}`),
				...r.opinions.map(
					(o) =>
						`opinion ${o.checkpointId}: ${o.status} by ${o.author ?? o.by ?? 'a teammate'} on ${o.machineName ?? o.machine} (not applied: this machine's checkpoints are decided here)`,
				),
				...(r.retracted ? [`dropped ${r.retracted} record(s) their machines took back (sync retract)`] : []),
			].join('\n'),
		};
	},
};

const retract: Command = {
	path: ['sync', 'retract'],
	usage: 'baton sync retract (CHECKPOINT | SESSION | --since TIME) [--yes]',
	summary:
		'take back what this machine shared: a checkpoint, a session (with its checkpoints), or everything since TIME; Baton’s refs are rewritten without it and force-pushed, and other machines drop it on their next pull',
	options: { since: { type: 'string' }, yes: { type: 'boolean' } },
	positionals: [0, 1],
	async run(ctx) {
		const id = ctx.args[0];
		const sinceText = stringOption(ctx.values, 'since');
		if ((id === undefined) === (sinceText === undefined)) {
			throw new UsageError('usage: baton sync retract (CHECKPOINT | SESSION | --since TIME): name one checkpoint or session, or give --since');
		}
		let request: RetractRequest;
		if (sinceText !== undefined) {
			const since = Date.parse(sinceText);
			if (Number.isNaN(since)) {
				throw new UsageError(`--since takes a time (2026-11-28T09:00 or 2026-11-28), not ${JSON.stringify(sinceText)}`);
			}
			request = { since: new Date(since).toISOString() };
		} else if (id?.startsWith('cp_')) {
			request = { checkpoint: id };
		} else if (id?.startsWith('ses_')) {
			request = { session: id };
		} else {
			throw new UsageError(`${JSON.stringify(id)} is neither a checkpoint id (cp_…) nor a session id (ses_…)`);
		}
		if (ctx.ask && ctx.values['yes'] !== true) {
			const what =
				'checkpoint' in request
					? `checkpoint ${request.checkpoint}`
					: 'session' in request
						? `session ${request.session} and its checkpoints`
						: `everything this machine shared since ${request.since}`;
			if (!(await ctx.ask(`Take back ${what} from every remote it was shared with? Baton's refs are rewritten and force-pushed. [y/N] `))) {
				return { json: { retracted: null }, text: 'nothing was changed', exitCode: 1 };
			}
		}
		const engine = await ctx.engine();
		const r = await engine.sync.retract(request, ctx.actor);
		return {
			json: r as unknown as Record<string, unknown>,
			text: [
				`took back ${r.retracted}: ${r.events} event(s)${r.checkpoints.length ? `, ${r.checkpoints.length} checkpoint(s) with their shared files` : ''}`,
				...r.pushed.map((p) => `${p.remote}  ${p.ref}  ${p.oid} (rewritten)`),
				...r.unreached.map((u) => `${u.remote}: not reached (${u.error}); the rewritten refs go with the next push`),
				'What this cannot undo:',
				...r.cannotUndo.map((line) => `  - ${line}`),
			].join('\n'),
		};
	},
};

const status: Command = {
	path: ['sync', 'status'],
	usage: 'baton sync status',
	summary: 'per remote: enabled, events ahead/behind, last push and pull, refs queued for push',
	async run(ctx) {
		const engine = await ctx.engine();
		const s = await engine.sync.status();
		return {
			json: s as unknown as Record<string, unknown>,
			text: s.remotes.length
				? s.remotes
						.map(
							(r) =>
								`${r.name.padEnd(12)} ${r.enabled ? 'enabled ' : 'disabled'}${r.enabled && r.untracked ? ' (checkpoints with untracked files)' : ''}${r.enabled && r.transcripts ? ' (transcripts)' : ''}${r.enabled && r.timeline ? ' (timeline)' : ''} ahead ${r.ahead} behind ${r.behind} queued ${r.queued}  last push ${r.lastPush ?? 'never'}  last pull ${r.lastPull ?? 'never'}${r.lastError ? `\n  error: ${r.lastError}` : ''}`,
						)
						.join('\n')
				: 'sync is off (no remote enabled; `baton sync enable origin`)',
		};
	},
};

const origin: Command = {
	path: ['sync', 'origin'],
	usage: 'baton sync origin SESSION…',
	summary: 'who and where sessions ran (machine name and author, from their shared records)',
	positionals: [1, 100],
	async run(ctx) {
		const engine = await ctx.engine();
		const origins = await engine.sync.origins(ctx.args);
		const one = ctx.args.length === 1 ? origins[0] : undefined;
		return {
			json: one ? { ...one } : { origins },
			text:
				origins
					.map(
						(o) =>
							`${o.sessionId}  ${o.machineName ?? o.machine}${o.author ? ` (${o.author})` : ''}${o.local ? '  this machine' : `  from ${o.remote}`}`,
					)
					.join('\n') || 'no shared record of these sessions',
		};
	},
};

const connectGit: Command = {
	path: ['connect', 'git'],
	usage: 'baton connect git [--remove] [--command CMD]',
	summary:
		'install (or with --remove take out) git hooks: pre-push pushes Baton’s refs with yours, post-merge/post-checkout pull, post-commit/post-rewrite attribute lines',
	options: { remove: { type: 'boolean' }, command: { type: 'string' } },
	needsInit: false,
	async run(ctx) {
		const remove = ctx.values['remove'] === true;
		const command = stringOption(ctx.values, 'command') ?? gitHookCommand(ctx.env);
		const written = await connectGitHooks(ctx.workspaceRoot, { command, remove });
		// Line provenance's post-commit/post-rewrite blocks (docs/provenance.md), listed on their own.
		const provenance = await connectProvenanceHooks(ctx.workspaceRoot, { command, remove });
		const line = (w: HookFile): string => `${w.action.padEnd(9)} ${w.path}${w.backup ? `  (backup: ${w.backup})` : ''}`;
		const all = [...written, ...provenance];
		return { json: { written, provenance, command }, text: all.length ? all.map(line).join('\n') : 'no Baton git hooks to remove' };
	},
};

export const syncCommands: Command[] = [enable, disable, push, pull, retract, status, origin, connectGit];

/**
 * What the git hooks run: `baton` when that is this installation on the caller's PATH (it survives
 * an update of the extension), else this installation's own command. Hooks live in `.git/hooks`,
 * which is never committed, so a path of this machine is fine there.
 */
function gitHookCommand(env: NodeJS.ProcessEnv): string {
	return shellCommandOf(batonLauncher({ cliPath: batonCliPath(), execPath: process.execPath, env }));
}
