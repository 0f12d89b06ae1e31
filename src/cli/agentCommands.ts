/**
 * Agent commands: `baton hook`, `baton connect`, `baton transcripts …` and `baton mcp`.
 *
 * `baton hook [EVENT]` is what agents run (via the configuration `baton connect` writes). Its
 * contract differs from every other command: it always exits 0 and prints either the agent's answer
 * or nothing at all, whatever went wrong (that goes to `.baton/logs/hooks.log`), because a failing
 * hook breaks the agent (Claude reads exit code 2 as "block", Cline blocks on any non-zero exit).
 * `runHookCli` is that whole path; main.ts dispatches `hook` to it before its own option parsing.
 */
import { silentLogger } from '../engine/ports';
import { stderrLogger } from './stderrLogger';
import { readAgentSettings } from '../engine/agentConfig/agentSettings';
import { aliasLinker } from '../engine/hooks/runHook';
import type { TranscriptInfo } from '../engine/transcripts/transcriptArchive';
import { Engine } from '../engine/engine';
import { renderTranscriptMarkdown } from '../engine/transcripts/transcriptMarkdown';
import { stringOption, UsageError, type Command } from './command';
import { connectCommand } from './connectCommand';
import { hookSummary, hookUsage, runHookCli } from '../hookHost/hookRunner';

export { runHookCli } from '../hookHost/hookRunner';

function transcriptLine(t: TranscriptInfo): string {
	const tokens = Object.values(t.tokens).reduce((n, c) => n + c.input + c.output + c.cacheRead + c.cacheCreation, 0);
	const state = t.bootstrap
		? 'bootstrap'
		: !t.sessionId
			? 'unlinked'
			: !t.archiving
				? 'archive off'
				: t.sharedFrom
					? 'shared'
					: t.sourceMissing
						? 'source deleted'
						: 'archived';
	return `${t.id.padEnd(44)}  ${(t.sessionId ?? '-').padEnd(27)}  ${state.padEnd(14)}  ${String(t.userRequests).padStart(4)} req  ${String(t.toolCalls).padStart(5)} tools  ${tokens.toLocaleString('en-US').padStart(12)} tok${t.title ? `  ${t.title}` : ''}`;
}

export const agentCommands: Command[] = [
	{
		path: ['hook'],
		usage: hookUsage,
		summary: hookSummary,
		options: { agent: { type: 'string' } },
		positionals: [0, 1],
		needsInit: false,
		async run(ctx) {
			// Reached only when main.ts does not dispatch `hook` to runHookCli first; same behaviour.
			let stdout = '';
			await runHookCli(
				[
					...ctx.args,
					...(typeof ctx.values['agent'] === 'string' ? ['--agent', ctx.values['agent']] : []),
					...(typeof ctx.values['workspace'] === 'string' ? ['--workspace', ctx.workspaceRoot] : []),
				],
				{
					stdout: (t) => void (stdout += t),
					stderr: (t) => process.stderr.write(t),
					cwd: ctx.cwd,
					env: ctx.env,
				},
			);
			stdout = stdout.trimEnd();
			return { json: stdout ? (JSON.parse(stdout) as Record<string, unknown>) : {}, text: stdout };
		},
	},
	connectCommand,
	{
		path: ['transcripts', 'sync'],
		usage: 'baton transcripts sync [--session ID]',
		summary: 'archive excerpts of the workspace’s Claude Code transcripts linked to sessions',
		options: { session: { type: 'string' } },
		async run(ctx) {
			const engine = await ctx.engine();
			const sessionId = stringOption(ctx.values, 'session');
			if (sessionId) {
				await engine.briefings.get(sessionId);
			}
			const archive = engine.transcripts({ settings: readAgentSettings(ctx.workspaceRoot), env: ctx.env });
			const report = await archive.sync({ link: aliasLinker(engine), ...(sessionId ? { sessionId } : {}) });
			const { synced, ...totals } = report;
			return {
				json: { ...totals, transcripts: synced },
				text: `Parsed ${totals.parsedBytes.toLocaleString('en-US')} bytes into ${totals.excerpts} excerpts from ${synced.length} transcript(s); ${totals.unlinked} unlinked, ${totals.bootstrap} bootstrap, ${totals.skipped} with archiving off${totals.pending ? `, ${totals.pending} with more to parse` : ''}.`,
			};
		},
	},
	{
		path: ['transcripts', 'list'],
		usage: 'baton transcripts list [--session ID]',
		summary: 'agent transcripts Baton knows, newest first',
		options: { session: { type: 'string' } },
		async run(ctx) {
			const sessionId = stringOption(ctx.values, 'session');
			const archive = Engine.transcriptArchive(ctx.workspaceRoot, { settings: readAgentSettings(ctx.workspaceRoot), env: ctx.env, log: stderrLogger });
			const transcripts = archive.list(sessionId ? { sessionId } : {});
			return {
				json: { transcripts },
				text: transcripts.length ? transcripts.map(transcriptLine).join('\n') : 'No transcripts yet (run `baton transcripts sync`).',
			};
		},
	},
	{
		path: ['transcripts', 'show'],
		usage: 'baton transcripts show ID',
		summary: 'an archived transcript, readable (markdown); --json for the excerpts',
		positionals: [1, 1],
		async run(ctx) {
			const archive = Engine.transcriptArchive(ctx.workspaceRoot, { settings: readAgentSettings(ctx.workspaceRoot), env: ctx.env, log: silentLogger });
			const found = archive.read(ctx.args[0] as string);
			if (!found) {
				throw new UsageError(`no transcript ${ctx.args[0]} (see \`baton transcripts list\`)`);
			}
			const markdown = renderTranscriptMarkdown(found.info, found.excerpts, found.notes);
			return { json: { transcript: found.info, excerpts: found.excerpts, notes: found.notes, markdown }, text: markdown.trimEnd() };
		},
	},
	{
		path: ['transcripts', 'archive'],
		usage: 'baton transcripts archive --session ID --on|--off [--purge]',
		summary: 'turn archiving of a session’s transcripts on or off (--purge deletes what was archived)',
		options: { session: { type: 'string' }, on: { type: 'boolean' }, off: { type: 'boolean' }, purge: { type: 'boolean' } },
		async run(ctx) {
			const sessionId = stringOption(ctx.values, 'session');
			const on = ctx.values['on'] === true;
			const off = ctx.values['off'] === true;
			if (!sessionId || on === off) {
				throw new UsageError('transcripts archive needs --session ID and one of --on or --off');
			}
			const engine = await ctx.engine();
			await engine.briefings.get(sessionId);
			const archive = engine.transcripts({ settings: readAgentSettings(ctx.workspaceRoot), env: ctx.env });
			const result = await archive.setArchiving(sessionId, on, ctx.values['purge'] === true);
			return {
				json: { sessionId, ...result },
				text: `Archiving ${on ? 'on' : 'off'} for ${sessionId}${result.purged ? `; deleted ${result.purged} archived transcript(s)` : ''}.`,
			};
		},
	},
	{
		path: ['mcp'],
		usage: 'baton mcp',
		summary: 'serve Baton’s tools to MCP clients over stdio (session start/end/status, briefing, handoff, decisions, checkpoints)',
		needsInit: false,
		async run(ctx) {
			// Loaded on demand: the MCP SDK is large, and hooks must start fast.
			const { runMcpServer } = await import('./mcpServer');
			await runMcpServer({ engine: ctx.engine, actor: ctx.actor, workspaceRoot: ctx.workspaceRoot });
			return { json: {}, text: '' };
		},
	},
];
