/**
 * VS Code's agent hooks load `.claude/settings.json` and every `*.json` in `.github/hooks/` (Copilot
 * CLI files too, their camelCase events renamed to PascalCase, `bash` run on Linux and macOS). A
 * workspace connected for Claude Code and for Copilot therefore runs Baton's hook up to three times
 * for one VS Code event, with one payload, at once. Each event must take effect once.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it, type TestContext } from 'node:test';
import { tempDir } from '../helpers';
import { agentCli, batonOnPath, hookFixture, runBaton, type Run } from '../cli/agentCli';

let cli = '';
before(async () => {
	cli = await agentCli();
});

interface Workspace {
	root: string;
	env: NodeJS.ProcessEnv;
	baton(...args: string[]): Run;
}

function workspace(t: TestContext): Workspace {
	const base = tempDir(t, 'baton-duplicates-');
	const root = path.join(base, 'project');
	const bin = path.join(base, 'bin');
	fs.mkdirSync(root);
	const env = {
		...process.env,
		PATH: batonOnPath(cli, bin),
		BATON_ACTOR: 'test:agents',
		BATON_CLAUDE_HOME: path.join(base, 'claude'),
		BATON_DAEMON_IDLE_MS: '5000',
	};
	const baton = (...args: string[]): Run => runBaton(cli, root, args, { env: { PATH: env.PATH, BATON_CLAUDE_HOME: env.BATON_CLAUDE_HOME } });
	assert.equal(baton('init').code, 0);
	return { root, env, baton };
}

/** The commands VS Code runs for `event`, read the way its documentation says it loads hook files. */
function vsCodeHookCommands(root: string, event: string): string[] {
	const commands: string[] = [];
	const claude = path.join(root, '.claude', 'settings.json');
	if (fs.existsSync(claude)) {
		// Claude's format: matchers are parsed but not applied.
		for (const group of (JSON.parse(fs.readFileSync(claude, 'utf8')).hooks?.[event] ?? []) as any[]) {
			commands.push(...(group.hooks as any[]).map((h) => h.command as string));
		}
	}
	const folder = path.join(root, '.github', 'hooks');
	for (const file of fs.existsSync(folder) ? fs.readdirSync(folder).filter((f) => f.endsWith('.json')) : []) {
		const hooks = JSON.parse(fs.readFileSync(path.join(folder, file), 'utf8')).hooks as Record<string, any[]>;
		for (const [name, entries] of Object.entries(hooks)) {
			// Copilot CLI's lowerCamelCase names become PascalCase; `bash` is the Linux command.
			if (name[0]!.toUpperCase() + name.slice(1) === event) {
				commands.push(...entries.map((e) => (e.linux ?? e.command ?? e.bash) as string));
			}
		}
	}
	return commands;
}

/** Runs every command at once with one payload on stdin, as the host does; their stdouts. */
function runAll(w: Workspace, commands: string[], payload: string): Promise<string[]> {
	return Promise.all(
		commands.map(
			(command) =>
				new Promise<string>((resolve, reject) => {
					const child = spawn('/bin/sh', ['-c', command], { cwd: w.root, env: w.env });
					let out = '';
					child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
					child.on('error', reject);
					child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} exited ${code}`))));
					child.stdin.end(payload);
				}),
		),
	);
}

/**
 * Copilot Chat's common input, as it was (`sessionId`, `hookEventName`) and as it is now: Claude's field
 * names (microsoft/vscode-copilot-chat ChatHookService.executeHook: timestamp, hook_event_name,
 * session_id, transcript_path) — which the Claude hook file, run by VS Code too, must not take for Claude's.
 */
type ChatFields = 'camelCase' | 'snake_case';

function inChatFields(fields: ChatFields, payload: Record<string, any>): Record<string, any> {
	if (fields === 'camelCase') {
		return payload;
	}
	const { sessionId, hookEventName, ...rest } = payload;
	return { ...rest, session_id: sessionId, hook_event_name: hookEventName };
}

async function oneEventThreeFiles(t: TestContext, fields: ChatFields): Promise<void> {
	const w = workspace(t);
	assert.equal(w.baton('connect', 'claude').code, 0);
	assert.equal(w.baton('connect', 'copilot').code, 0);
	fs.mkdirSync(path.join(w.root, 'test'));
	fs.writeFileSync(path.join(w.root, 'test', 'login.test.ts'), 'await sleep(100);\n');
	const payload = (name: string, overrides: Record<string, unknown> = {}): string =>
		JSON.stringify(inChatFields(fields, hookFixture('copilot', name, { root: w.root, claudeHome: '' }, overrides)));
	const call = hookFixture('copilot', 'pre-tool-use', { root: w.root, claudeHome: '' });

	const starts = vsCodeHookCommands(w.root, 'SessionStart');
	assert.equal(starts.length, 3, 'Claude settings, baton.json and baton-cli.json all have a SessionStart hook');
	const answers = (await runAll(w, starts, payload('session-start'))).filter((a) => a.trim());
	assert.equal(answers.length, 1, 'one briefing injected, not three');
	assert.match(JSON.parse(answers[0]!).hookSpecificOutput.additionalContext, /Baton/);

	await runAll(w, vsCodeHookCommands(w.root, 'UserPromptSubmit'), payload('user-prompt-submit'));
	const pre = vsCodeHookCommands(w.root, 'PreToolUse');
	// Claude Code's tool calls are http hooks in its per-machine settings.local.json, not commands in settings.json.
	assert.equal(pre.length, 2, 'baton.json and baton-cli.json have a PreToolUse hook');
	await runAll(w, pre, payload('pre-tool-use'));
	fs.writeFileSync(path.join(w.root, 'test', 'login.test.ts'), 'await waitFor(() => loggedIn());\n');
	await runAll(
		w,
		vsCodeHookCommands(w.root, 'PostToolUse'),
		payload('post-tool-use', { tool_name: call['tool_name'], tool_input: call['tool_input'], tool_use_id: call['tool_use_id'] }),
	);

	const sessions = w.baton('session', 'list', '--json').json?.['sessions'] as any[];
	assert.equal(sessions.length, 1);
	assert.equal(sessions[0].agent, 'copilot', "Copilot's session, whichever hook file handled the event");
	const timeline = w.baton('timeline', '--json').json as { steps: any[]; prompts: any[] };
	assert.equal(timeline.prompts.length, 1, 'one prompt');
	assert.deepEqual(
		timeline.steps.map((s) => `${s.actor} ${s.tool} ${s.files.map((f: any) => f.path).join(',')}`),
		['agent replace_string_in_file test/login.test.ts'],
	);
	const log = fs.readFileSync(path.join(w.root, '.baton', 'logs', 'hooks.log'), 'utf8');
	assert.equal(
		log.match(/already handled by another hook process/g)?.length,
		2 + 1 + 1 + 1,
		'SessionStart ×2, UserPromptSubmit ×1, PreToolUse ×1, PostToolUse ×1 answered as duplicates',
	);
}

void describe('one agent event run from several hook files', () => {
	void it('takes effect once when VS Code runs the Claude, Copilot and Copilot CLI hooks of one event', (t) => oneEventThreeFiles(t, 'camelCase'));

	void it("takes effect once, as Copilot's, when Copilot Chat sends Claude's field names", (t) => oneEventThreeFiles(t, 'snake_case'));

	void it('still records two identical prompts a person sends with Claude Code (its payloads carry no timestamp)', (t) => {
		const w = workspace(t);
		const claudeHome = w.env['BATON_CLAUDE_HOME']!;
		const run = (name: string): void => {
			const payload = JSON.stringify(
				hookFixture('claude', name, { root: w.root, claudeHome }, name === 'user-prompt-submit' ? { prompt: 'continue' } : {}),
			);
			const result = runBaton(cli, w.root, ['hook'], { input: payload, env: { BATON_CLAUDE_HOME: claudeHome } });
			assert.equal(result.code, 0, result.stderr);
		};
		run('session-start-startup');
		run('user-prompt-submit');
		run('user-prompt-submit');
		const timeline = w.baton('timeline', '--json').json as { prompts: any[] };
		assert.deepEqual(
			timeline.prompts.map((p) => p.text ?? p.prompt),
			['continue', 'continue'],
		);
	});
});
