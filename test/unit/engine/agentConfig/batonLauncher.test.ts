/**
 * How agents start Baton: from a terminal the Node running now; from the editor never the editor's
 * own binary but a `node` (20+) on PATH; VS Code's Electron as Node only as a warned fallback. Real
 * executables on a real PATH (small sh scripts standing in for node builds and the editor).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { batonLauncher, editorNodeEnv, runsOnEditorBinary, shellCommandOf } from '../../../../src/engine/agentConfig/batonLauncher';
import { BatonError } from '../../../../src/engine/errors';
import { tempDir } from '../../helpers';
import { repoRoot } from '../../cli/agentCli';

function executable(file: string, script: string): string {
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, `#!/bin/sh\n${script}\n`, { mode: 0o755 });
	return file;
}

/** A `node` that reports a version (and runs nothing else). */
const fakeNode = (dir: string, major: number): string => executable(path.join(dir, 'node'), `echo v${major}.4.0`);

function setup(t: TestContext): { base: string; cli: string; editor: string } {
	const base = tempDir(t, 'baton-launcher-');
	const cli = path.join(base, 'ext', 'dist', 'cli.js');
	fs.mkdirSync(path.dirname(cli), { recursive: true });
	fs.writeFileSync(cli, '// cli\n');
	// The editor's binary: a Node-compatible program when ELECTRON_RUN_AS_NODE=1, like VS Code's Electron.
	const editor = executable(
		path.join(base, 'editor', 'code'),
		`[ "$ELECTRON_RUN_AS_NODE" = 1 ] || { echo "not as node" >&2; exit 9; }\nexec "${process.execPath}" "$@"`,
	);
	return { base, cli, editor };
}

void describe('batonLauncher', () => {
	void it('from a terminal: the Node running now and the CLI script, quoted for sh', (t) => {
		const { cli, base } = setup(t);
		const launcher = batonLauncher({ cliPath: cli, execPath: process.execPath, env: { PATH: path.join(base, 'empty') } });
		assert.deepEqual(launcher, { kind: 'node', command: process.execPath, args: [fs.realpathSync(cli)], env: {} });
		assert.equal(shellCommandOf(launcher, 'linux'), `"${process.execPath}" "${fs.realpathSync(cli)}"`);
		assert.equal(
			shellCommandOf({ ...launcher, command: '/opt/my "tools"/$HOME/node' }, 'linux'),
			`"/opt/my \\"tools\\"/\\$HOME/node" "${fs.realpathSync(cli)}"`,
		);
	});

	void it('prefers `baton` on PATH when it is this installation, from a terminal and from the editor', (t) => {
		const { cli, base, editor } = setup(t);
		const bin = path.join(base, 'bin');
		fs.mkdirSync(bin);
		fs.symlinkSync(cli, path.join(bin, 'baton'));
		const env = { PATH: bin };
		assert.equal(batonLauncher({ cliPath: cli, execPath: process.execPath, env }).kind, 'baton-on-path');
		assert.equal(shellCommandOf(batonLauncher({ cliPath: cli, execPath: editor, env, editor: { electron: true } })), 'baton');
		// Another installation's `baton` is not this one.
		const other = path.join(base, 'other');
		fs.mkdirSync(other);
		executable(path.join(other, 'baton'), 'echo other');
		assert.equal(batonLauncher({ cliPath: cli, execPath: process.execPath, env: { PATH: other } }).kind, 'node');
	});

	void it('from the editor: the first Node 20+ on PATH, skipping the editor’s own binary and old Nodes', (t) => {
		const { cli, base, editor } = setup(t);
		const own = path.join(base, 'own');
		fs.mkdirSync(own);
		fs.symlinkSync(editor, path.join(own, 'node')); // code-server puts its Node on PATH
		fakeNode(path.join(base, 'old'), 16);
		const good = fakeNode(path.join(base, 'good'), 22);
		const env = { PATH: [own, path.join(base, 'old'), path.join(base, 'missing'), path.join(base, 'good')].join(':') };
		const launcher = batonLauncher({ cliPath: cli, execPath: editor, env, editor: { electron: false } });
		assert.deepEqual(launcher, { kind: 'node-on-path', command: good, args: [fs.realpathSync(cli)], env: {} });
		assert.notEqual(launcher.command, editor);
		assert.ok(!shellCommandOf(launcher).includes(editor), 'the hook command never names the editor’s binary');
	});

	void it('VS Code’s Electron without a Node on PATH: runs as Node through `env`, with a warning, and the command works', (t) => {
		const { cli, base, editor } = setup(t);
		fakeNode(path.join(base, 'old'), 18);
		const launcher = batonLauncher({
			cliPath: cli,
			execPath: editor,
			env: { PATH: path.join(base, 'old') },
			editor: { electron: true },
			platform: 'linux',
		});
		assert.equal(launcher.kind, 'editor-as-node');
		assert.deepEqual(launcher.env, { ELECTRON_RUN_AS_NODE: '1' });
		assert.match(launcher.warning ?? '', /No Node\.js 20\+ on PATH \(found only .*old\/node \(Node 18\)\).*stops working when VS Code is updated/);
		const command = shellCommandOf(launcher, 'linux');
		assert.equal(command, `env ELECTRON_RUN_AS_NODE=1 "${editor}" "${fs.realpathSync(cli)}"`);
		// As Cline's scripts run it (`exec <command> …`) and as Claude runs hooks (`sh -c`).
		fs.writeFileSync(fs.realpathSync(cli), 'console.log(JSON.stringify(process.argv.slice(2)));\n');
		assert.equal(
			execFileSync('/bin/sh', ['-c', `exec ${command} hook stop`], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } }).trim(),
			'["hook","stop"]',
		);
		// For this window only (VS Code's MCP definition) the editor's binary is fine, and says nothing.
		const now = batonLauncher({ cliPath: cli, execPath: editor, env: { PATH: '' }, editor: { electron: true }, persistent: false });
		assert.equal(now.kind, 'editor-as-node');
		assert.equal(now.warning, undefined);
	});

	void it('a non-Electron editor’s Node used for this window only is marked, so a daemon its CLI starts knows the Node is the editor’s', (t) => {
		const { cli, editor } = setup(t);
		const now = batonLauncher({ cliPath: cli, execPath: editor, env: { PATH: '' }, editor: { electron: false }, persistent: false });
		assert.deepEqual([now.kind, now.env], ['editor-as-node', { [editorNodeEnv]: '1' }]);
		assert.equal(runsOnEditorBinary(now.env), true);
		assert.equal(runsOnEditorBinary({}), process.versions.electron !== undefined, 'a terminal’s Node is not the editor’s');
	});

	void it('refuses, saying what to install, when only the editor could run Baton and it cannot be written down', (t) => {
		const { cli, base, editor } = setup(t);
		const refuses = (input: Parameters<typeof batonLauncher>[0]): void =>
			assert.throws(
				() => batonLauncher(input),
				(e: unknown) => BatonError.is(e, 'invalidInput') && /Install Node\.js 20\+/.test(e.message) && e.message.includes(editor),
			);
		refuses({ cliPath: cli, execPath: editor, env: { PATH: path.join(base, 'nothing') }, editor: { electron: false } });
		refuses({ cliPath: cli, execPath: editor, env: { PATH: path.join(base, 'nothing') }, editor: { electron: true }, platform: 'win32' });
	});
});

void describe('hooks on a machine with no baton on PATH', () => {
	void it('connect writes the portable command and the user’s launcher; the hook, run by sh as agents run it, records the session', async (t) => {
		const base = tempDir(t, 'baton-no-path-');
		const home = path.join(base, 'home');
		const root = path.join(base, 'project');
		fs.mkdirSync(home);
		fs.mkdirSync(root);
		const cli = path.join(repoRoot, 'dist', 'cli.js');
		// PATH without baton: the directories of git, sh and node only.
		const PATH = [
			...new Set(['git', 'sh', 'node'].map((b) => path.dirname(execFileSync('sh', ['-c', `command -v ${b}`], { encoding: 'utf8' }).trim()))),
		].join(':');
		const env = { PATH, HOME: home, BATON_NO_DAEMON: '1', BATON_ACTOR: 'test:agents' };
		execFileSync(process.execPath, [cli, 'init'], { cwd: root, env });
		const connected = JSON.parse(execFileSync(process.execPath, [cli, 'connect', 'claude', '--json'], { cwd: root, env, encoding: 'utf8' })) as {
			command: string;
			warning?: string;
		};
		assert.equal(connected.command, '"$(command -v baton || echo "$HOME/.baton/bin/baton")"', 'no path of this machine in the committed command');
		assert.equal(connected.warning, undefined);
		const launcher = path.join(home, '.baton', 'bin', 'baton');
		assert.ok(fs.statSync(launcher).mode & 0o100, 'the user’s launcher is executable');
		const settings = JSON.parse(fs.readFileSync(path.join(root, '.claude', 'settings.json'), 'utf8'));
		const command = settings.hooks.SessionStart[0].hooks[0].command as string;
		assert.ok(!command.includes(base), 'the committed file names no folder of this machine');
		const answer = execFileSync('sh', ['-c', command], {
			cwd: root,
			env,
			input: JSON.stringify({ session_id: 'c1a2b3c4-0000-4000-8000-000000000001', hook_event_name: 'SessionStart', cwd: root, source: 'startup' }),
			encoding: 'utf8',
		});
		assert.match(JSON.parse(answer).hookSpecificOutput.additionalContext, /^Baton briefing/, 'the hook ran Baton through the launcher');
		assert.match(fs.readFileSync(path.join(root, '.baton', 'logs', 'hooks.log'), 'utf8'), /claude-code session-start .* → started ses_/);
		// A teammate's clone with baton on PATH runs the same committed command through PATH.
		const bin = path.join(base, 'bin');
		fs.mkdirSync(bin);
		fs.symlinkSync(cli, path.join(bin, 'baton'));
		fs.rmSync(launcher);
		const teammate = execFileSync('sh', ['-c', `${settings.hooks.Stop[0].hooks[0].command as string}`], {
			cwd: root,
			env: { ...env, PATH: `${bin}:${PATH}` },
			input: JSON.stringify({ session_id: 'c1a2b3c4-0000-4000-8000-000000000001', hook_event_name: 'Stop', cwd: root }),
			encoding: 'utf8',
		});
		assert.equal(teammate, '');
		assert.match(fs.readFileSync(path.join(root, '.baton', 'logs', 'hooks.log'), 'utf8'), /claude-code stop .* → touched ses_/);
	});
});
