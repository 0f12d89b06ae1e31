/**
 * The CLI says what happened, and refuses what it cannot do, instead of answering as if it had:
 * a remote that does not exist, a mistyped trigger, a session that does not exist, a revert that
 * reverted nothing, blame's label for uncommitted lines (cliHelp.test.ts checks that the usage lines list every scope form).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers';
import { baton } from './cliRunner';
import { hookFixture } from './agentCli';

function workspace(t: Parameters<typeof tempDir>[0]): string {
	const root = path.join(tempDir(t, 'baton-honest-'), 'project');
	fs.mkdirSync(root);
	const git = (...args: string[]) =>
		execFileSync('git', args, {
			cwd: root,
			env: {
				PATH: process.env['PATH'],
				HOME: root,
				GIT_CONFIG_NOSYSTEM: '1',
				GIT_AUTHOR_NAME: 't',
				GIT_AUTHOR_EMAIL: 't@t',
				GIT_COMMITTER_NAME: 't',
				GIT_COMMITTER_EMAIL: 't@t',
			},
		});
	git('init', '-q', '-b', 'main');
	fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
	git('add', '.');
	git('commit', '-qm', 'init');
	git('remote', 'add', 'origin', 'file:///nowhere.git');
	assert.equal(baton(root, 'init').code, 0);
	return root;
}

void describe('answers that say what happened', () => {
	void it('sync disable: a remote that does not exist is an error; one never shared says nothing changed', (t) => {
		const root = workspace(t);
		const nope = baton(root, 'sync', 'disable', 'nope');
		assert.notEqual(nope.code, 0);
		assert.match(nope.stderr, /there is no remote "nope"/);
		const never = baton(root, 'sync', 'disable', 'origin');
		assert.equal(never.code, 0, never.stderr);
		assert.equal(never.stdout.trim(), 'sync was not enabled for origin; nothing changed');
		assert.equal(baton(root, 'sync', 'enable', 'origin').code, 0);
		assert.equal(baton(root, 'sync', 'disable', 'origin').stdout.trim(), 'sync disabled for origin');
	});

	void it('checkpoint create refuses a mistyped trigger, naming the real ones; checkpoint list refuses a session that does not exist', (t) => {
		const root = workspace(t);
		const typo = baton(root, 'checkpoint', 'create', '--trigger', 'manaul');
		assert.equal(typo.code, 2, typo.stderr);
		assert.match(typo.stderr, /unknown --trigger "manaul" \(one of manual, periodic, /);
		assert.deepEqual(baton(root, 'checkpoint', 'list', '--json').json['checkpoints'], [], 'nothing was created');
		const unknown = baton(root, 'checkpoint', 'list', '--session', 'ses_20260101000000_abcdef');
		assert.notEqual(unknown.code, 0);
		assert.match(unknown.stderr, /session ses_20260101000000_abcdef does not exist/);
	});

	void it('timeline revert of a step whose files all changed since says it reverted nothing', (t) => {
		const root = workspace(t);
		const claudeHome = path.join(root, '..', 'claude');
		const hook = (payload: object) => {
			const run = execFileSync(process.execPath, [path.resolve(__dirname, '../../../dist/cli.js'), 'hook'], {
				cwd: root,
				input: JSON.stringify(payload),
				env: { ...process.env, BATON_ACTOR: 'test:cli', BATON_DAEMON_IDLE_MS: '5000' },
			});
			return run.toString();
		};
		hook(hookFixture('claude', 'session-start-startup', { root, claudeHome }));
		const pre = hookFixture(
			'claude',
			'pre-tool-use',
			{ root, claudeHome },
			{ tool_name: 'Write', tool_input: { file_path: path.join(root, 'notes.md') }, tool_use_id: 'toolu_honest1' },
		);
		hook(pre);
		fs.writeFileSync(path.join(root, 'notes.md'), 'agent\n');
		hook({ ...pre, hook_event_name: 'PostToolUse' });
		fs.writeFileSync(path.join(root, 'notes.md'), 'agent\nand the person\n');
		const run = baton(root, 'timeline', 'revert', '1');
		assert.equal(run.code, 0, run.stderr);
		assert.match(run.stdout, /^reverted nothing of step 1 of ses_\S+: every file it touched has changed since/);
		assert.match(run.stdout, /left alone notes\.md/);
		assert.equal(fs.readFileSync(path.join(root, 'notes.md'), 'utf8'), 'agent\nand the person\n');
	});

	void it('blame labels uncommitted lines in full', (t) => {
		const root = workspace(t);
		fs.appendFileSync(path.join(root, 'a.txt'), 'two\n');
		const blame = baton(root, 'blame', 'a.txt');
		assert.equal(blame.code, 0, blame.stderr);
		assert.match(blame.stdout, /^ {4}2 uncommitted /m);
	});
});
