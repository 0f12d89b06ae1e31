/**
 * Where the workspace daemon runs (the default), a hook's capture reads only the paths its file
 * watcher saw change since the shadow index was last brought up to date; a hook process of its own
 * (`BATON_DAEMON=0`) scans the workspace. Both record the same step. Real hooks, real processes.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it, type TestContext } from 'node:test';
import { tempDir } from '../../helpers';
import { agentCli, hookFixture, runBaton } from '../../cli/agentCli';

let cli = '';
before(async () => {
	cli = await agentCli();
});

function editOnce(t: TestContext, env: Record<string, string>): { log: string; files: string[] } {
	const base = tempDir(t, 'baton-capture-');
	const root = path.join(base, 'project');
	const claudeHome = path.join(base, 'claude');
	fs.mkdirSync(path.join(root, 'src', 'auth'), { recursive: true });
	for (let i = 0; i < 50; i++) {
		fs.writeFileSync(path.join(root, 'src', `file${i}.ts`), `export const n${i} = ${i};\n`);
	}
	fs.writeFileSync(path.join(root, 'src', 'auth', 'tokens.ts'), 'export const issuer = "baton";\nconst ttl = 3600;\nexport { ttl };\n');
	const baton = (args: string[], input?: string) =>
		runBaton(cli, root, args, { ...(input !== undefined ? { input } : {}), env: { BATON_CLAUDE_HOME: claudeHome, ...env } });
	assert.equal(baton(['init']).code, 0);
	const hook = (name: string) => {
		const run = baton(['hook'], JSON.stringify(hookFixture('claude', name, { root, claudeHome })));
		assert.equal(run.code, 0, run.stderr);
	};
	hook('session-start-startup');
	hook('pre-tool-use');
	const file = path.join(root, 'src', 'auth', 'tokens.ts');
	fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('const ttl = 3600;', 'const ttl = 900;'));
	const post = hookFixture('claude', 'pre-tool-use', { root, claudeHome });
	const run = baton(['hook'], JSON.stringify({ ...post, hook_event_name: 'PostToolUse', tool_response: { success: true } }));
	assert.equal(run.code, 0, run.stderr);
	const timeline = baton(['timeline', '--json']).json as {
		steps: { actor: string; files: { path: string; change: string; additions: number; deletions: number }[] }[];
	};
	if (env['BATON_DAEMON'] !== '0') {
		assert.equal(baton(['daemon', 'stop']).code, 0);
	}
	return {
		log: fs.readFileSync(path.join(root, '.baton', 'logs', 'hooks.log'), 'utf8'),
		files: timeline.steps.flatMap((s) => s.files.map((f) => `${s.actor} ${f.change} ${f.path} +${f.additions} -${f.deletions}`)),
	};
}

void describe('turn capture and the file watcher', () => {
	void it('in the workspace daemon, the capture after an edit reads the one changed path', (t) => {
		const { log, files } = editOnce(t, {});
		assert.match(log, /PostToolUse .*read 1 changed path from the file watcher/, log);
		assert.deepEqual(files, ['agent modified src/auth/tokens.ts +1 -1']);
	});

	void it('a hook process of its own scans the workspace and records the same step', (t) => {
		const { log, files } = editOnce(t, { BATON_DAEMON: '0' });
		assert.match(log, /PostToolUse .*full scan \(no file watcher in this process\)/, log);
		assert.doesNotMatch(log, /from the file watcher/);
		assert.deepEqual(files, ['agent modified src/auth/tokens.ts +1 -1']);
	});
});
