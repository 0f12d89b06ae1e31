/**
 * A person edits while an agent's tool call is open: files an edit tool does not name become a step
 * of their own with actor `human`; a shell command names no files, so its step keeps everything (as
 * docs/replay.md says). Real Claude hook payloads, the real CLI, a real workspace.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, it, type TestContext } from 'node:test';
import { tempDir } from '../../helpers';
import { agentCli, hookFixture, runBaton, type Run } from '../../cli/agentCli';

let cli = '';
before(async () => {
	cli = await agentCli();
});

function workspace(t: TestContext) {
	const root = path.join(tempDir(t, 'baton-during-'), 'project');
	fs.mkdirSync(root);
	const baton = (args: string[], input?: string): Run => runBaton(cli, root, args, input !== undefined ? { input } : {});
	assert.equal(baton(['init']).code, 0);
	const claudeHome = path.join(root, '..', 'claude');
	const hook = (name: string, overrides: Record<string, unknown> = {}) => {
		const run = baton(['hook'], JSON.stringify(hookFixture('claude', name, { root, claudeHome }, overrides)));
		assert.equal(run.code, 0, run.stderr);
		assert.equal(run.stderr, '');
	};
	const write = (file: string, text: string) => {
		fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
		fs.writeFileSync(path.join(root, file), text);
	};
	const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
	const steps = () => (baton(['timeline', '--json']).json as any).steps as any[];
	const files = (step: any) => step.files.map((f: any) => `${f.change} ${f.path} +${f.additions} -${f.deletions}`);
	return { root, baton, hook, write, read, steps, files };
}

void it('splits a person’s edit made while an Edit call was open into a human step; revert of either leaves the other', (t) => {
	const w = workspace(t);
	w.write('src/auth/tokens.ts', 'const ttl = 3600;\n');
	w.write('README.md', 'Auth service\n');
	w.hook('session-start-startup');
	w.hook('user-prompt-submit');
	// The recorded Edit payload names src/auth/tokens.ts (an absolute path in the workspace).
	w.hook('pre-tool-use');
	w.write('src/auth/tokens.ts', 'const ttl = 900;\n');
	w.write('README.md', 'Auth service\n\nA person typed this while the agent worked.\n');
	w.write('notes/todo.md', 'ask about rotation\n');
	w.hook('pre-tool-use', { hook_event_name: 'PostToolUse', tool_response: { filePath: path.join(w.root, 'src/auth/tokens.ts') } });
	const steps = w.steps();
	assert.deepEqual(
		steps.map((s) => [s.step, s.actor, s.tool, s.captured]),
		[
			[1, 'agent', 'Edit', true],
			[2, 'human', null, true],
		],
	);
	assert.deepEqual(w.files(steps[0]), ['modified src/auth/tokens.ts +1 -1']);
	assert.deepEqual(w.files(steps[1]), ['modified README.md +2 -0', 'added notes/todo.md +1 -0']);
	assert.match(steps[1].summary, /while Edit ran/);
	// The two steps chain: the agent's ends where the person's starts, which ends at the tree now.
	assert.equal(steps[0].treeAfter, steps[1].treeBefore);
	assert.equal(steps[0].treeBefore !== steps[0].treeAfter, true);
	const show = w.baton(['timeline', 'show', '2', '--diff', '--json']).json as any;
	assert.match(show.diff, /^\+A person typed this while the agent worked\.$/m);
	assert.doesNotMatch(show.diff, /ttl/);

	// Undo the agent's step: the person's edits stay.
	const run = w.baton(['timeline', 'revert', '1', '--json']);
	assert.equal(run.code, 0, run.stderr);
	assert.deepEqual((run.json as any).reverted, ['src/auth/tokens.ts']);
	assert.equal(w.read('src/auth/tokens.ts'), 'const ttl = 3600;\n');
	assert.equal(w.read('README.md'), 'Auth service\n\nA person typed this while the agent worked.\n');
	assert.equal(w.read('notes/todo.md'), 'ask about rotation\n');

	// The next call starts from the tree now: no stray human step for what was already recorded.
	w.hook('pre-tool-use', { tool_use_id: 'toolu_second' });
	w.hook('pre-tool-use', { tool_use_id: 'toolu_second', hook_event_name: 'PostToolUse' });
	const after = w.steps();
	assert.deepEqual(
		after.map((s) => [s.step, s.actor]),
		[
			[1, 'agent'],
			[2, 'human'],
			[3, 'human'],
			[4, 'agent'],
		],
		'the revert itself (made outside any call) is a person’s step before the next call',
	);
	assert.deepEqual(w.files(after[2]), ['modified src/auth/tokens.ts +1 -1']);
});

void it('keeps a shell command’s step whole: it names no files, so what changed during it is its own', (t) => {
	const w = workspace(t);
	w.write('a.txt', 'one\n');
	w.hook('session-start-startup');
	w.hook('pre-tool-use-bash', { tool_input: { command: 'make gen', description: 'generate' } });
	w.write('a.txt', 'two\n');
	w.write('b.txt', 'typed by a person, or generated: a shell command cannot tell\n');
	w.hook('pre-tool-use-bash', {
		hook_event_name: 'PostToolUse',
		tool_input: { command: 'make gen', description: 'generate' },
		tool_response: { stdout: '', stderr: '' },
	});
	const steps = w.steps();
	assert.deepEqual(
		steps.map((s) => [s.actor, s.tool]),
		[['agent', 'Bash']],
	);
	assert.deepEqual(w.files(steps[0]), ['modified a.txt +1 -1', 'added b.txt +1 -0']);
});
