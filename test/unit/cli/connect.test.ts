/**
 * `baton connect claude|copilot|cline [--remove]` on configurations that already hold hooks of the
 * user's, through the bundled CLI.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it, type TestContext } from 'node:test';
import { tempDir } from '../helpers';
import { agentCli, batonOnPath, runBaton, type Run } from './agentCli';

let cli = '';
before(async () => {
	cli = await agentCli();
});

/**
 * A workspace and a `baton` on PATH that is this build: the hooks `baton connect` writes call
 * `baton` (never a path of this machine), as a teammate's clone would.
 */
function setup(t: TestContext): { root: string; bin: string; baton: (...args: string[]) => Run } {
	const base = tempDir(t, 'baton-connect-');
	const root = path.join(base, 'project');
	const bin = path.join(base, 'bin');
	fs.mkdirSync(root);
	const PATH = batonOnPath(cli, bin);
	return { root, bin, baton: (...args) => runBaton(cli, root, args, { env: { PATH } }) };
}

const userSettings = `{
\t"permissions": {
\t\t"allow": ["Bash(npm test:*)"]
\t},
\t"hooks": {
\t\t"PreToolUse": [
\t\t\t{
\t\t\t\t"matcher": "Bash",
\t\t\t\t"hooks": [{ "type": "command", "command": "./scripts/guard.sh", "timeout": 5 }]
\t\t\t}
\t\t],
\t\t"Stop": [
\t\t\t{ "hooks": [{ "type": "command", "command": "notify-send done" }] }
\t\t]
\t},
\t"model": "opus"
}
`;

function backups(dir: string, name: string): string[] {
	return fs.readdirSync(dir).filter((f) => f.startsWith(`${name}.baton-backup-`));
}

void describe('baton connect', () => {
	void it('connected before git init: the note says so, and Claude’s next SessionStart puts the secret’s file in the new repository’s exclude', (t) => {
		const { root, baton } = setup(t);
		const first = baton('connect', 'claude', '--json');
		assert.equal(first.code, 0, first.stderr);
		assert.match(first.json?.['notes'].join(' '), /settings\.local\.json holds this workspace's hook secret and this folder is no git repository yet/);
		spawnSync('git', ['init', '-q', root]);
		const exclude = path.join(root, '.git', 'info', 'exclude');
		assert.doesNotMatch(fs.readFileSync(exclude, 'utf8'), /settings\.local/);
		const start = JSON.stringify({
			session_id: 'before-init',
			cwd: root,
			hook_event_name: 'SessionStart',
			source: 'startup',
			transcript_path: path.join(root, 'none.jsonl'),
		});
		assert.equal(runBaton(cli, root, ['hook', 'session-start'], { input: start }).code, 0);
		assert.match(fs.readFileSync(exclude, 'utf8'), /^\*\*\/\.claude\/settings\.local\.json\*$/m);
		assert.equal(spawnSync('git', ['status', '--porcelain', '-uall'], { cwd: root, encoding: 'utf8' }).stdout.includes('settings.local'), false);
		assert.equal(baton('connect', 'claude', '--json').json?.['notes'].length, 0, 'no note once a repository keeps the file out');
		runBaton(cli, root, ['daemon', 'stop']);
	});

	void it('merges Baton’s hooks into Claude settings that hold the user’s: kept, in order, idempotent, backed up, removed exactly', (t) => {
		const { root, baton } = setup(t);
		spawnSync('git', ['init', '-q', root]);
		const dir = path.join(root, '.claude');
		const file = path.join(dir, 'settings.json');
		fs.mkdirSync(dir);
		fs.writeFileSync(file, userSettings);

		const excludeFile = path.join(root, '.git', 'info', 'exclude');
		fs.appendFileSync(excludeFile, 'build/\n');
		const excludeBefore = fs.readFileSync(excludeFile, 'utf8');
		const first = baton('connect', 'claude', '--json');
		assert.equal(first.code, 0, first.stdout + first.stderr);
		assert.equal(first.json?.['written'].length, 2);
		const written = first.json?.['written'][0];
		assert.equal(written.path, '.claude/settings.json');
		assert.equal(written.action, 'updated');
		assert.match(written.backup, /^\.claude\/settings\.json\.baton-backup-\d{8}T\d{9}Z$/);
		assert.equal(fs.readFileSync(path.join(root, written.backup), 'utf8'), userSettings, 'the backup holds the file as it was');
		const command = first.json?.['command'] as string;
		assert.ok(command === 'baton' || command.includes(path.basename(cli)), command);

		const text = fs.readFileSync(file, 'utf8');
		assert.match(text, /^\{\n\t"permissions"/, 'the file keeps its tab indentation');
		const settings = JSON.parse(text);
		assert.deepEqual(Object.keys(settings), ['permissions', 'hooks', 'model'], 'top-level keys keep their order');
		assert.deepEqual(settings.permissions, { allow: ['Bash(npm test:*)'] });
		assert.deepEqual(Object.keys(settings.hooks), [
			'PreToolUse',
			'Stop',
			'SessionStart',
			'UserPromptSubmit',
			'PreCompact',
			'SessionEnd',
			'Notification',
			'PermissionRequest',
			'StopFailure',
		]);
		assert.deepEqual(
			settings.hooks.PreToolUse,
			[{ matcher: 'Bash', hooks: [{ type: 'command', command: './scripts/guard.sh', timeout: 5 }] }],
			'the user’s hook, unchanged; Baton’s tool hooks are this machine’s (below)',
		);
		assert.deepEqual(settings.hooks.Stop, [
			{ hooks: [{ type: 'command', command: 'notify-send done' }] },
			{ hooks: [{ type: 'command', command: `${command} hook stop`, timeout: 15 }] },
		]);
		assert.deepEqual(settings.hooks.SessionStart, [{ hooks: [{ type: 'command', command: `${command} hook session-start`, timeout: 15 }] }]);
		assert.ok(fs.existsSync(path.join(root, '.baton')), 'connecting sets Baton up in the workspace');
		// The tool calls go to the workspace's backend over HTTP, from the per-machine settings file.
		assert.deepEqual(first.json?.['written'][1], { path: '.claude/settings.local.json', action: 'created' });
		const local = path.join(dir, 'settings.local.json');
		assert.equal(fs.statSync(local).mode & 0o777, 0o600, 'it holds the secret: its user’s only');
		const port = (JSON.parse(fs.readFileSync(path.join(root, '.baton', 'hook-http.json'), 'utf8')) as { port: number }).port;
		const secret = fs.readFileSync(path.join(root, '.baton', 'hook-secret'), 'utf8').trim();
		const http = (event: string) => [
			{
				matcher: 'Edit|Write|MultiEdit|NotebookEdit|Bash|mcp__.*',
				hooks: [{ type: 'http', url: `http://127.0.0.1:${port}/baton/hook/${event}`, headers: { Authorization: `Bearer ${secret}` }, timeout: 10 }],
			},
		];
		assert.deepEqual(
			JSON.parse(fs.readFileSync(local, 'utf8')),
			{ hooks: { PreToolUse: http('pre-tool-use'), PostToolUse: http('post-tool-use'), PostToolUseFailure: http('post-tool-use-failure') } },
			'the timeline captures shell and MCP calls too',
		);
		assert.ok(
			fs
				.readFileSync(path.join(root, '.git', 'info', 'exclude'), 'utf8')
				.split('\n')
				.includes('**/.claude/settings.local.json*'),
			'and git never sees it, nor its backups',
		);

		const again = baton('connect', 'claude', '--json');
		assert.deepEqual(again.json?.['written'], [
			{ path: '.claude/settings.json', action: 'unchanged' },
			{ path: '.claude/settings.local.json', action: 'unchanged' },
		]);
		assert.equal(fs.readFileSync(file, 'utf8'), text, 'running twice changes nothing');
		assert.equal(backups(dir, 'settings.json').length, 1, 'and makes no second backup');

		// The user adds a hook after Baton's; a reconnect with another command updates Baton's in place.
		settings.hooks.SessionStart.push({ matcher: 'compact', hooks: [{ type: 'command', command: 'cat NOTES.md' }] });
		fs.writeFileSync(file, `${JSON.stringify(settings, null, '\t')}\n`);
		const moved = baton('connect', 'claude', '--command', '/opt/baton/bin/baton', '--json');
		assert.equal(moved.json?.['written'][0].action, 'updated');
		const movedSettings = JSON.parse(fs.readFileSync(file, 'utf8'));
		assert.deepEqual(
			movedSettings.hooks.SessionStart.map((g: any) => g.hooks[0].command),
			['/opt/baton/bin/baton hook session-start', 'cat NOTES.md'],
			'updated where it was, the user’s later entry still after it',
		);

		const removed = baton('connect', 'claude', '--remove', '--json');
		assert.equal(removed.json?.['written'][0].action, 'updated');
		const after = JSON.parse(fs.readFileSync(file, 'utf8'));
		assert.deepEqual(after.hooks.PreToolUse, JSON.parse(userSettings).hooks.PreToolUse);
		assert.deepEqual(after.hooks.Stop, JSON.parse(userSettings).hooks.Stop);
		assert.deepEqual(
			after.hooks.SessionStart,
			[{ matcher: 'compact', hooks: [{ type: 'command', command: 'cat NOTES.md' }] }],
			'only Baton’s entries went',
		);
		assert.deepEqual(Object.keys(after.hooks), ['PreToolUse', 'Stop', 'SessionStart']);
		assert.equal(backups(dir, 'settings.json').length, 3);
		assert.equal(removed.json?.['written'][1].action, 'removed');
		assert.equal(fs.existsSync(path.join(dir, 'settings.local.json')), false, 'the local file Baton made is gone');
		assert.equal(
			fs.readFileSync(path.join(root, '.git', 'info', 'exclude'), 'utf8'),
			excludeBefore,
			'and the clone’s ignore list is as it was, byte for byte',
		);
		assert.deepEqual(baton('connect', 'claude', '--remove', '--json').json?.['written'], [
			{ path: '.claude/settings.json', action: 'unchanged' },
			{ path: '.claude/settings.local.json', action: 'unchanged' },
		]);
	});

	void it('restores a settings file byte for byte when connected then removed', (t) => {
		const { root, baton } = setup(t);
		const file = path.join(root, '.claude', 'settings.json');
		fs.mkdirSync(path.dirname(file));
		fs.writeFileSync(file, userSettings);
		const localOwn = '{\n  "permissions": { "allow": ["Bash(ls)"] }\n}\n';
		fs.writeFileSync(path.join(root, '.claude', 'settings.local.json'), localOwn);
		baton('connect', 'claude');
		assert.match(fs.readFileSync(path.join(root, '.claude', 'settings.local.json'), 'utf8'), /baton\/hook\/post-tool-use/);
		baton('connect', 'claude', '--remove');
		assert.equal(fs.readFileSync(file, 'utf8'), userSettings);
		assert.equal(fs.readFileSync(path.join(root, '.claude', 'settings.local.json'), 'utf8'), localOwn, 'the local file the user had, byte for byte');
		// And a workspace with no settings gets a file holding just Baton's hooks.
		const fresh = setup(t);
		const created = fresh.baton('connect', 'claude', '--json');
		assert.deepEqual(created.json?.['written'], [
			{ path: '.claude/settings.json', action: 'created' },
			{ path: '.claude/settings.local.json', action: 'created' },
		]);
		assert.deepEqual(Object.keys(JSON.parse(fs.readFileSync(path.join(fresh.root, '.claude', 'settings.json'), 'utf8')).hooks).length, 8);
		assert.deepEqual(Object.keys(JSON.parse(fs.readFileSync(path.join(fresh.root, '.claude', 'settings.local.json'), 'utf8')).hooks).length, 3);
	});

	void it('connects Codex and Gemini CLI beside the user’s own hooks, says what each needs trusted, and takes only its own entries out again', (t) => {
		const { root, baton } = setup(t);
		const codexFile = path.join(root, '.codex', 'hooks.json');
		const geminiFile = path.join(root, '.gemini', 'settings.json');
		fs.mkdirSync(path.dirname(codexFile));
		fs.mkdirSync(path.dirname(geminiFile));
		const codexOwn = '{\n\t"hooks": {\n\t\t"Stop": [{ "hooks": [{ "type": "command", "command": "notify-send done" }] }]\n\t}\n}\n';
		const geminiOwn = '{\n\t"theme": "GitHub",\n\t"mcpServers": { "docs": { "command": "docs-mcp" } }\n}\n';
		fs.writeFileSync(codexFile, codexOwn);
		fs.writeFileSync(geminiFile, geminiOwn);

		const codex = baton('connect', 'codex', '--json');
		assert.equal(codex.code, 0, codex.stderr);
		assert.deepEqual(
			codex.json?.['written'].map((w: any) => [w.path, w.action, !!w.backup]),
			[['.codex/hooks.json', 'updated', true]],
		);
		assert.match(codex.json?.['notes'].join(' '), /trust_level = "trusted".*\/hooks/s, 'Codex’s two trust steps are named');
		const codexHooks = JSON.parse(fs.readFileSync(codexFile, 'utf8')).hooks;
		assert.deepEqual(Object.keys(codexHooks), [
			'Stop',
			'SessionStart',
			'UserPromptSubmit',
			'PreToolUse',
			'PostToolUse',
			'PreCompact',
			'SessionEnd',
			'PermissionRequest',
			'StopFailure',
		]);
		assert.deepEqual(codexHooks.Stop[0], { hooks: [{ type: 'command', command: 'notify-send done' }] }, 'the user’s own Stop hook stays first');
		assert.equal(codexHooks.PreToolUse[0].matcher, 'Bash|apply_patch|mcp__.*');
		assert.equal(codexHooks.PreToolUse[0].hooks[0].command, 'baton hook pre-tool-use --agent codex');
		const mcp = baton('connect', 'codex', '--mcp');
		assert.notEqual(mcp.code, 0, 'Codex keeps MCP servers in TOML: --mcp is refused');
		assert.match(mcp.stderr + mcp.stdout, /\[mcp_servers\.baton\]/, 'with how to do it');

		const gemini = baton('connect', 'gemini', '--mcp', '--json');
		assert.equal(gemini.code, 0, gemini.stderr);
		assert.match(gemini.json?.['notes'].join(' '), /trustedFolders\.json/);
		const settings = JSON.parse(fs.readFileSync(geminiFile, 'utf8'));
		assert.equal(settings.theme, 'GitHub');
		assert.deepEqual(Object.keys(settings.mcpServers), ['docs', 'baton'], 'Baton’s MCP server beside the user’s');
		assert.deepEqual(
			Object.keys(settings.hooks),
			['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'AfterAgent', 'SessionEnd', 'Notification'],
			'no PreCompress: Gemini fires it before every model request',
		);
		assert.equal(settings.hooks.BeforeTool[0].hooks[0].timeout, 10_000, 'Gemini CLI reads timeouts in milliseconds');

		baton('connect', 'codex', '--remove');
		baton('connect', 'gemini', '--remove', '--mcp');
		assert.deepEqual(JSON.parse(fs.readFileSync(codexFile, 'utf8')), JSON.parse(codexOwn));
		assert.deepEqual(JSON.parse(fs.readFileSync(geminiFile, 'utf8')), JSON.parse(geminiOwn));
	});

	void it('refuses a malformed settings file with a clear error and leaves it byte-identical', (t) => {
		const { root, baton } = setup(t);
		const dir = path.join(root, '.claude');
		fs.mkdirSync(dir);
		const file = path.join(dir, 'settings.json');
		for (const broken of ['{ "hooks": { "Stop": [ ', '{"hooks": []}', '[1]', '{"hooks": {"Stop": [{"hooks": "notify"}]}}']) {
			fs.writeFileSync(file, broken);
			for (const args of [
				['connect', 'claude', '--json'],
				['connect', 'claude', '--remove', '--json'],
			]) {
				const run = baton(...args);
				assert.equal(run.code, 1, `${broken}: ${run.stdout}`);
				assert.equal(run.json?.['error'].code, 'configInvalid');
				assert.match(run.json?.['error'].message, /settings\.json/);
				assert.match(run.json?.['error'].message, /Baton changed nothing/);
				assert.equal(fs.readFileSync(file, 'utf8'), broken);
			}
			assert.deepEqual(backups(dir, 'settings.json'), []);
		}
		const plain = baton('connect', 'claude');
		assert.equal(plain.code, 1);
		assert.equal(plain.stdout, '');
		assert.match(plain.stderr, /^baton: .*settings\.json/);
		assert.equal(baton('connect', 'cursor').code, 2, 'an unknown agent is bad usage');
	});

	void it('writes VS Code’s hook file for Copilot, keeping entries the user added to it', (t) => {
		const { root, baton } = setup(t);
		const created = baton('connect', 'copilot', '--json');
		assert.deepEqual(created.json?.['written'], [
			{ path: '.github/hooks/baton.json', action: 'created' },
			{ path: '.github/hooks/baton-cli.json', action: 'created' },
		]);
		const file = path.join(root, '.github', 'hooks', 'baton.json');
		const config = JSON.parse(fs.readFileSync(file, 'utf8'));
		assert.deepEqual(Object.keys(config.hooks), ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PreCompact', 'Stop']);
		assert.match(config.hooks.Stop[0].command, / hook stop$/);
		assert.equal(config.hooks.Stop[0].type, 'command');
		assert.equal(baton('connect', 'copilot', '--json').json?.['written'][0].action, 'unchanged');
		config.hooks.PostToolUse.unshift({ type: 'command', command: 'npx prettier --write .', timeout: 30 });
		fs.writeFileSync(file, JSON.stringify(config, null, 2));
		const removed = baton('connect', 'copilot', '--remove', '--json').json?.['written'][0];
		assert.equal(removed.action, 'updated');
		assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), {
			hooks: { PostToolUse: [{ type: 'command', command: 'npx prettier --write .', timeout: 30 }] },
		});
		fs.writeFileSync(file, JSON.stringify(config, null, 2));
		fs.writeFileSync(file, JSON.stringify({ hooks: { Stop: config.hooks.Stop } }));
		const gone = baton('connect', 'copilot', '--remove', '--json').json?.['written'][0];
		assert.equal(gone.action, 'removed', 'a file left empty is Baton’s own: deleted, with a backup');
		assert.equal(fs.existsSync(file), false);
		assert.ok(fs.existsSync(path.join(root, gone.backup)));
	});

	void it('writes one executable script per Cline hook, and leaves a hook of the user’s alone', (t) => {
		const { root, bin, baton } = setup(t);
		const dir = path.join(root, '.clinerules', 'hooks');
		fs.mkdirSync(dir, { recursive: true });
		const own = '#!/bin/sh\necho \'{"cancel": false}\'\n';
		fs.writeFileSync(path.join(dir, 'PreToolUse'), own, { mode: 0o755 });
		const run = baton('connect', 'cline', '--json');
		assert.equal(run.code, 0, run.stdout);
		const written = run.json?.['written'] as any[];
		assert.deepEqual(written.map((w) => `${w.path} ${w.action}`).sort(), [
			'.clinerules/hooks/PostToolUse created',
			'.clinerules/hooks/PreCompact created',
			'.clinerules/hooks/PreToolUse skipped',
			'.clinerules/hooks/TaskCancel created',
			'.clinerules/hooks/TaskComplete created',
			'.clinerules/hooks/TaskResume created',
			'.clinerules/hooks/TaskStart created',
			'.clinerules/hooks/UserPromptSubmit created',
		]);
		assert.equal(fs.readFileSync(path.join(dir, 'PreToolUse'), 'utf8'), own);
		const script = fs.readFileSync(path.join(dir, 'TaskStart'), 'utf8');
		assert.match(script, /^#!\/bin\/sh\n# baton-hook: /);
		assert.match(script, / hook task-start\n$/);
		assert.equal(fs.statSync(path.join(dir, 'TaskStart')).mode & 0o111, 0o111, 'executable');
		assert.ok((baton('connect', 'cline', '--json').json?.['written'] as any[]).every((w) => w.action === 'unchanged' || w.action === 'skipped'));
		// The script works as Cline runs it: JSON on stdin, from the workspace.
		const answer = execFileSync(path.join(dir, 'TaskStart'), [], {
			cwd: root,
			env: { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}` },
			input: JSON.stringify({ taskId: 't-1', hookName: 'TaskStart', workspaceRoots: [root], timestamp: '1772355600000' }),
			encoding: 'utf8',
		});
		assert.equal(JSON.parse(answer).cancel, false);
		assert.match(JSON.parse(answer).contextModification, /^Baton briefing/);
		const removed = baton('connect', 'cline', '--remove', '--json').json?.['written'] as any[];
		assert.equal(removed.filter((w) => w.action === 'removed').length, 7);
		assert.deepEqual(fs.readdirSync(dir), ['PreToolUse']);
	});

	void it('writes a command that works from any cwd the agent runs it in', (t) => {
		const { root, bin, baton } = setup(t);
		const run = baton('connect', 'claude', '--json');
		const command = JSON.parse(fs.readFileSync(path.join(root, '.claude', 'settings.json'), 'utf8')).hooks.SessionStart[0].hooks[0].command as string;
		assert.equal(command, `${run.json?.['command']} hook session-start`);
		const sub = path.join(root, 'packages', 'api');
		fs.mkdirSync(sub, { recursive: true });
		const payload = JSON.stringify({
			session_id: 'c-1',
			hook_event_name: 'SessionStart',
			source: 'startup',
			cwd: sub,
			transcript_path: path.join(root, 'none.jsonl'),
		});
		// Claude runs hook commands through a shell, in the session's cwd, with a minimal environment (and
		// the suite's hook budget: a loaded machine must not turn this into a spooled event with no answer).
		const env = {
			PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
			HOME: root,
			BATON_HOOK_BUDGET_MS: process.env['BATON_HOOK_BUDGET_MS'] ?? '60000',
		};
		const out = execFileSync('/bin/sh', ['-c', command], { cwd: sub, input: payload, encoding: 'utf8', env });
		assert.equal(JSON.parse(out).hookSpecificOutput.hookEventName, 'SessionStart');
	});
});
