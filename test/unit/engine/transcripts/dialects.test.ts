/**
 * Every dialect through the real `baton hook` process: the documented Copilot CLI payloads (no
 * session id), Cline's answer on every hook, a FIFO as `transcript_path`, PreCompact's checkpoint in a
 * workspace that never had one, and hooks written by `baton connect` run from another clone.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it, type TestContext } from 'node:test';
import { isInjectedByClaude } from '../../../../src/engine/transcripts/transcriptExcerpts';
import { tempDir } from '../../helpers';
import { agentCli, batonOnPath, fixtureNames, fixtureRoot, hookFixture, runBaton, type Run } from '../../cli/agentCli';

let cli = '';
before(async () => {
	cli = await agentCli();
});

const realRoot = path.join(fixtureRoot, '..', 'real');

/** A documented Copilot CLI payload with the doc's placeholder cwd moved into the workspace. */
function copilotCliPayload(name: string, root: string, overrides: Record<string, unknown> = {}): string {
	const raw = JSON.parse(fs.readFileSync(path.join(realRoot, 'copilot', 'cli', `${name}.json`), 'utf8')) as Record<string, unknown>;
	assert.equal(raw['cwd'], '/path/to/project');
	return JSON.stringify({ ...raw, cwd: root, ...overrides });
}

function workspace(t: TestContext): { root: string; claudeHome: string; baton: (args: string[], input?: string, env?: Record<string, string>) => Run } {
	const base = tempDir(t, 'baton-dialects-');
	const root = path.join(base, 'project');
	const claudeHome = path.join(base, 'claude');
	fs.mkdirSync(root);
	const baton = (args: string[], input?: string, env: Record<string, string> = {}): Run =>
		runBaton(cli, root, args, { ...(input !== undefined ? { input } : {}), env: { BATON_CLAUDE_HOME: claudeHome, ...env } });
	assert.equal(baton(['init']).code, 0);
	return { root, claudeHome, baton };
}

function sessionsOf(baton: (args: string[]) => Run): any[] {
	const list = baton(['session', 'list', '--json']);
	assert.equal(list.code, 0, list.stderr);
	return list.json?.['sessions'] as any[];
}

function hookLog(root: string): string {
	// A session end answers first and finishes in the daemon: a command queued behind it waits for that.
	runBaton(cli, root, ['session', 'list', '--json']);
	return fs.readFileSync(path.join(root, '.baton', 'logs', 'hooks.log'), 'utf8');
}

void describe('Copilot CLI payloads (no session id)', () => {
	void it('map a sessionStart…sessionEnd run onto one durable session, and a resume continues it', (t) => {
		const w = workspace(t);
		const events = ['sessionStart', 'userPromptSubmitted', 'preToolUse', 'postToolUse', 'sessionEnd'];
		for (const event of events) {
			const run = w.baton(['hook', event, '--agent', 'copilot'], copilotCliPayload(event, w.root));
			assert.equal(run.code, 0, run.stderr);
		}
		const log = hookLog(w.root);
		assert.doesNotMatch(log, /no session id/);
		assert.match(log, /copilot sessionStart copilot-cli-1704614400000 → started/);
		assert.match(log, /copilot sessionEnd copilot-cli-1704614400000 → ended/);
		const sessions = sessionsOf(w.baton);
		assert.equal(sessions.length, 1);
		assert.equal(sessions[0].status, 'ended');
		const runs = JSON.parse(fs.readFileSync(path.join(w.root, '.baton', 'agents', 'copilot-runs.json'), 'utf8'));
		assert.deepEqual(runs.open, {});
		assert.equal(runs.last[w.root].id, 'copilot-cli-1704614400000');

		// `copilot --resume`: sessionStart with source resume continues the same durable session.
		const resumed = w.baton(
			['hook', 'sessionStart', '--agent', 'copilot'],
			copilotCliPayload('sessionStart', w.root, { source: 'resume', timestamp: 1704700000000 }),
		);
		assert.equal(resumed.code, 0);
		assert.match(hookLog(w.root), /copilot sessionStart copilot-cli-1704614400000 → (continued|aliased|resumed) /);
		const after = sessionsOf(w.baton);
		assert.equal(after.length, 1, 'no second session for a resumed run');
		assert.equal(after[0].id, sessions[0].id);
		assert.equal(after[0].status, 'active');
	});

	void it('detects the dialect without --agent, and records errorOccurred for the Agents board without failing', (t) => {
		const w = workspace(t);
		assert.equal(w.baton(['hook', 'sessionStart'], copilotCliPayload('sessionStart', w.root)).code, 0);
		assert.equal(w.baton(['hook', 'errorOccurred'], copilotCliPayload('errorOccurred', w.root)).code, 0);
		assert.equal(sessionsOf(w.baton).length, 1);
		assert.match(hookLog(w.root), /copilot sessionStart copilot-cli-1704614400000 → started/);
		assert.match(hookLog(w.root), /copilot errorOccurred copilot-cli-1704614400000 → signalled ses_/);
		const board = w.baton(['agents', '--json']).json?.['entries'] as any[];
		assert.deepEqual(
			board.map((e) => [e.agent, e.state, e.reason]),
			[['copilot', 'failed', 'error: Network timeout']],
		);
	});
});

void describe('Cline answers', () => {
	void it('every Cline hook prints the JSON Cline expects, even with nothing to say or a broken payload', (t) => {
		const w = workspace(t);
		const names = fixtureNames('cline');
		assert.ok(names.length >= 8);
		for (const name of names) {
			const run = w.baton(['hook'], JSON.stringify(hookFixture('cline', name, { root: w.root, claudeHome: w.claudeHome })));
			assert.equal(run.code, 0);
			assert.ok(run.json, `${name}: ${run.stdout}`);
			assert.equal(typeof run.json['cancel'], 'boolean', name);
			for (const key of Object.keys(run.json)) {
				assert.ok(['cancel', 'contextModification', 'errorMessage'].includes(key), `${name}: ${key}`);
			}
		}
		const broken = w.baton(['hook', 'PreToolUse', '--agent', 'cline'], 'not json');
		assert.deepEqual(broken.json, { cancel: false });
	});
});

void describe('hook inputs that cannot hang', () => {
	void it('a FIFO as transcript_path: the hook answers promptly and reads nothing', (t) => {
		const w = workspace(t);
		const fifo = path.join(w.root, 'transcript.fifo');
		execFileSync('mkfifo', [fifo]);
		const payload = JSON.stringify(hookFixture('claude', 'session-start-startup', { root: w.root, claudeHome: w.claudeHome }, { transcript_path: fifo }));
		const run = spawnSync(process.execPath, [cli, 'hook'], {
			cwd: w.root,
			input: payload,
			encoding: 'utf8',
			timeout: 120_000,
			env: { ...process.env, BATON_CLAUDE_HOME: w.claudeHome },
		});
		assert.equal(run.error, undefined, 'the hook did not hang');
		assert.equal(run.status, 0);
		assert.match(run.stdout, /hookSpecificOutput/);
		const stop = spawnSync(process.execPath, [cli, 'hook'], {
			cwd: w.root,
			input: JSON.stringify(hookFixture('claude', 'stop', { root: w.root, claudeHome: w.claudeHome }, { transcript_path: fifo })),
			encoding: 'utf8',
			timeout: 20_000,
			env: { ...process.env, BATON_CLAUDE_HOME: w.claudeHome },
		});
		assert.equal(stop.error, undefined);
		assert.equal(stop.status, 0);
		// A device: never read to its (missing) end.
		const dev = w.baton(
			['hook'],
			JSON.stringify(hookFixture('claude', 'stop', { root: w.root, claudeHome: w.claudeHome }, { transcript_path: '/dev/zero' })),
		);
		assert.equal(dev.code, 0);
	});
});

/** A documented Claude Code payload with its placeholder cwd moved into the workspace. */
function claudeDocPayload(event: string, root: string): string {
	const raw = JSON.parse(fs.readFileSync(path.join(realRoot, 'claude', `${event}.json`), 'utf8')) as Record<string, unknown>;
	assert.equal(raw['session_id'], 'abc123');
	return JSON.stringify({ ...raw, cwd: root });
}

void describe('Claude Code documented payloads', () => {
	void it('start, prompt, pre-compact (with its compact checkpoint in a workspace that never had one) and end one durable session', (t) => {
		const w = workspace(t);
		fs.writeFileSync(path.join(w.root, 'a.txt'), 'one\n');
		const start = w.baton(['hook'], claudeDocPayload('SessionStart', w.root));
		assert.equal(start.json?.['hookSpecificOutput']?.hookEventName, 'SessionStart');
		for (const event of ['UserPromptSubmit', 'PreCompact', 'SessionEnd']) {
			const run = w.baton(['hook'], claudeDocPayload(event, w.root));
			assert.equal(run.code, 0);
			assert.equal(run.stdout, '', event);
		}
		const log = hookLog(w.root);
		assert.match(log, /claude-code SessionStart abc123 → started/);
		assert.match(log, /claude-code PreCompact abc123 → noted/);
		assert.match(log, /claude-code SessionEnd abc123 → ended/);
		const sessions = sessionsOf(w.baton);
		assert.equal(sessions.length, 1);
		assert.equal(sessions[0].status, 'ended');
		const checkpoints = w.baton(['checkpoint', 'list', '--json']).json?.['checkpoints'] as any[];
		assert.equal(checkpoints.filter((c) => c.trigger === 'compact').length, 1);
	});
});

void describe('PreCompact', () => {
	void it('makes the compact checkpoint in a workspace that never had a checkpoint', (t) => {
		const w = workspace(t);
		fs.writeFileSync(path.join(w.root, 'a.txt'), 'one\n');
		assert.equal(w.baton(['checkpoint', 'list', '--json']).json?.['checkpoints']?.length ?? 0, 0);
		assert.equal(w.baton(['hook'], JSON.stringify(hookFixture('claude', 'session-start-startup', { root: w.root, claudeHome: w.claudeHome }))).code, 0);
		assert.equal(w.baton(['hook'], JSON.stringify(hookFixture('claude', 'pre-compact', { root: w.root, claudeHome: w.claudeHome }))).code, 0);
		const list = w.baton(['checkpoint', 'list', '--json']);
		assert.equal(list.code, 0, list.stderr);
		const checkpoints = list.json?.['checkpoints'] as any[];
		assert.equal(checkpoints.filter((c) => c.trigger === 'compact').length, 1, list.stdout);
	});
});

void describe('baton connect copilot', () => {
	void it('writes the VS Code form and the Copilot CLI version-1 form, with no path of this machine, working from another clone', (t) => {
		const w = workspace(t);
		const bin = path.join(path.dirname(w.root), 'bin');
		const env = { PATH: batonOnPath(cli, bin) };
		const run = w.baton(['connect', 'copilot', '--json'], undefined, env);
		assert.equal(run.code, 0, run.stderr);
		assert.equal(run.json?.['command'], 'baton');
		const vscodeForm = JSON.parse(fs.readFileSync(path.join(w.root, '.github', 'hooks', 'baton.json'), 'utf8'));
		assert.equal(vscodeForm.hooks.SessionStart[0].command, 'baton hook session-start');
		const cliText = fs.readFileSync(path.join(w.root, '.github', 'hooks', 'baton-cli.json'), 'utf8');
		const cliForm = JSON.parse(cliText);
		assert.equal(cliForm.version, 1);
		assert.deepEqual(Object.keys(cliForm.hooks).sort(), [
			'errorOccurred',
			'permissionRequest',
			'postToolUse',
			'postToolUseFailure',
			'preToolUse',
			'sessionEnd',
			'sessionStart',
			'userPromptSubmitted',
		]);
		for (const text of [cliText, fs.readFileSync(path.join(w.root, '.github', 'hooks', 'baton.json'), 'utf8')]) {
			assert.ok(!text.includes(w.root) && !text.includes(process.execPath) && !text.includes(path.dirname(cli)), text);
		}
		assert.equal(
			w.baton(['connect', 'copilot', '--json'], undefined, env).json?.['written'].every((f: any) => f.action === 'unchanged'),
			true,
			'idempotent',
		);

		// A teammate's clone: the committed files, another path, Baton on their PATH.
		const clone = path.join(path.dirname(w.root), 'teammate-clone');
		fs.mkdirSync(path.join(clone, '.github', 'hooks'), { recursive: true });
		fs.copyFileSync(path.join(w.root, '.github', 'hooks', 'baton-cli.json'), path.join(clone, '.github', 'hooks', 'baton-cli.json'));
		assert.equal(runBaton(cli, clone, ['init']).code, 0);
		for (const event of ['sessionStart', 'sessionEnd']) {
			const command = cliForm.hooks[event][0].bash as string;
			execFileSync('/bin/sh', ['-c', command], { cwd: clone, input: copilotCliPayload(event, clone), encoding: 'utf8', env: { ...process.env, ...env } });
		}
		const cloneSessions = sessionsOf((args) => runBaton(cli, clone, args));
		assert.equal(cloneSessions.length, 1);
		assert.equal(cloneSessions[0].status, 'ended');
	});
});

void describe('Claude-injected user entries', () => {
	void it('are told from the person’s requests', () => {
		for (const text of [
			'<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>',
			'[Request interrupted by user]',
			'[Request interrupted by user for tool use]',
			'<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>',
			'<local-command-stdout></local-command-stdout>',
			'Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages.',
		]) {
			assert.equal(isInjectedByClaude(text), true, text);
		}
		assert.equal(isInjectedByClaude('Fix the authentication bug'), false);
		assert.equal(isInjectedByClaude('please explain <command-name> tags'), false);
	});
});
