/**
 * `baton timeline revert`: one step undone with a three-way apply, never over a person's later edits;
 * a safety checkpoint first. And a capture that cannot get the store in time is recorded as such,
 * without the agent seeing an error.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it, type TestContext } from 'node:test';
import { ShadowRepo } from '../../../../src/engine/shadow/shadowRepo';
import { tempDir } from '../../helpers';
import { agentCli, hookFixture, runBaton, type Run } from '../../cli/agentCli';

let cli = '';
before(async () => {
	cli = await agentCli();
});

function workspace(t: TestContext) {
	const root = path.join(tempDir(t, 'baton-revert-'), 'project');
	fs.mkdirSync(root);
	const baton = (args: string[], input?: string): Run => runBaton(cli, root, args, input !== undefined ? { input } : {});
	assert.equal(baton(['init']).code, 0);
	const write = (file: string, text: string) => {
		fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
		fs.writeFileSync(path.join(root, file), text);
	};
	const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
	const claudeHome = path.join(root, '..', 'claude');
	assert.equal(baton(['hook'], JSON.stringify(hookFixture('claude', 'session-start-startup', { root, claudeHome }))).code, 0);
	let n = 0;
	/** One Claude tool call around `act`, from the recorded payloads. */
	const step = (tool: string, act: () => void) => {
		const id = `toolu_test${++n}`;
		const payload = hookFixture('claude', 'pre-tool-use', { root, claudeHome }, { tool_name: tool, tool_input: { command: 'edit' }, tool_use_id: id });
		for (const event of ['PreToolUse', 'PostToolUse']) {
			const run = baton(['hook'], JSON.stringify({ ...payload, hook_event_name: event }));
			assert.equal(run.code, 0);
			assert.equal(run.stderr, '');
			if (event === 'PreToolUse') act();
		}
	};
	return { root, baton, write, read, step };
}

const lines = (count: number, change: Record<number, string> = {}) =>
	Array.from({ length: count }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

void describe('timeline revert', () => {
	void it('undoes one step and keeps what a person changed since, in the same file and elsewhere', (t) => {
		const w = workspace(t);
		w.write('a.txt', lines(20));
		w.write('old.txt', 'to be removed\n');
		w.write('b.txt', lines(5));
		w.step('Bash', () => {
			w.write('a.txt', lines(20, { 3: 'agent 3' }));
			w.write('b.txt', lines(5, { 2: 'agent made b' }));
			w.write('added.txt', 'new\n');
			fs.rmSync(path.join(w.root, 'old.txt'));
		});
		w.step('Edit', () => w.write('c.txt', 'a later step\n'));
		// The person edits a.txt far from the step's line, and b.txt on the very line the step wrote.
		w.write('a.txt', lines(20, { 3: 'agent 3', 17: 'person 17' }));
		w.write('b.txt', lines(5, { 2: 'person rewrote b' }));

		const dry = w.baton(['timeline', 'revert', '1', '--dry-run', '--json']);
		assert.equal(dry.code, 0, dry.stdout + dry.stderr);
		assert.deepEqual(dry.json?.['reverted'], ['a.txt', 'added.txt', 'old.txt']);
		assert.equal(w.read('a.txt'), lines(20, { 3: 'agent 3', 17: 'person 17' }), 'a dry run changes nothing');
		assert.ok(!fs.existsSync(path.join(w.root, 'old.txt')));

		const run = w.baton(['timeline', 'revert', '1', '--json']);
		assert.equal(run.code, 0, run.stdout + run.stderr);
		const result = run.json as any;
		assert.deepEqual(result.reverted, ['a.txt', 'added.txt', 'old.txt']);
		assert.equal(result.skipped.length, 1);
		assert.equal(result.skipped[0].path, 'b.txt');
		assert.match(result.skipped[0].reason, /edited since/);
		assert.equal(w.read('a.txt'), lines(20, { 17: 'person 17' }), "the step's line is back, the person's line stays");
		assert.equal(w.read('b.txt'), lines(5, { 2: 'person rewrote b' }), 'a conflicting file is left exactly as the person left it');
		assert.ok(!fs.existsSync(path.join(w.root, 'added.txt')), 'the file the step added (unchanged since) is gone');
		assert.equal(w.read('old.txt'), 'to be removed\n', 'the file the step deleted is back');
		assert.equal(w.read('c.txt'), 'a later step\n', 'later steps are not touched');

		// A safety checkpoint came first and holds the workspace as it was before the revert.
		const checkpoints = (w.baton(['checkpoint', 'list', '--json']).json as any).checkpoints;
		const safety = checkpoints.find((c: any) => c.id === result.checkpoint);
		assert.equal(safety?.trigger, 'pre-rollback');
		assert.match(safety?.message, /^before reverting step 1 /);
		const diff = w.baton(['checkpoint', 'diff', result.checkpoint, '--json']).json as any;
		assert.deepEqual(diff.files.map((f: any) => `${f.change} ${f.path}`).sort(), ['added old.txt', 'deleted added.txt', 'modified a.txt']);
	});

	void it('leaves a file the step added alone when a person changed it since', (t) => {
		const w = workspace(t);
		w.write('keep.txt', 'x\n');
		w.step('Write', () => w.write('notes.md', 'agent\n'));
		w.write('notes.md', 'agent\nand the person\n');
		const run = w.baton(['timeline', 'revert', '1', '--json']);
		assert.deepEqual(run.json?.['reverted'], []);
		assert.deepEqual(run.json?.['skipped'], [{ path: 'notes.md', reason: 'changed since the step added it; delete it yourself if it should go' }]);
		assert.equal(w.read('notes.md'), 'agent\nand the person\n');
	});

	void it('refuses to write, create or remove a file through a folder that became a link out of the workspace', (t) => {
		const w = workspace(t);
		w.write('d/x.txt', 'before\n');
		w.write('d/gone.txt', 'deleted by the step\n');
		w.step('Edit', () => w.write('d/x.txt', 'after\n'));
		w.step('Bash', () => fs.rmSync(path.join(w.root, 'd/gone.txt')));
		w.step('Write', () => w.write('d/new.txt', 'added\n'));
		// `d` becomes a link to a folder outside holding exactly what the steps left (and no gone.txt).
		const outside = path.join(tempDir(t, 'baton-outside-'), 'elsewhere');
		fs.mkdirSync(outside);
		fs.writeFileSync(path.join(outside, 'x.txt'), 'after\n');
		fs.writeFileSync(path.join(outside, 'new.txt'), 'added\n');
		fs.rmSync(path.join(w.root, 'd'), { recursive: true });
		fs.symlinkSync(outside, path.join(w.root, 'd'));
		const checkpointsBefore = (w.baton(['checkpoint', 'list', '--json']).json as any).checkpoints.length;

		// Reverting would rewrite x.txt, create gone.txt and delete new.txt, all outside.
		for (const [ref, file] of [
			['1', 'd/x.txt'],
			['2', 'd/gone.txt'],
			['3', 'd/new.txt'],
		] as const) {
			for (const args of [['--dry-run'], []]) {
				const refused = w.baton(['timeline', 'revert', ref, ...args, '--json']);
				assert.equal(refused.code, 1, refused.stdout + refused.stderr);
				const message = String(refused.json?.['error'].message);
				assert.ok(message.includes(`"${file}"`) && message.includes('"d" is a symbolic link') && message.includes(outside), message);
			}
		}
		assert.deepEqual(fs.readdirSync(outside).sort(), ['new.txt', 'x.txt'], 'nothing created or removed outside');
		assert.equal(fs.readFileSync(path.join(outside, 'x.txt'), 'utf8'), 'after\n', 'the file outside is unchanged');
		assert.equal(fs.readFileSync(path.join(outside, 'new.txt'), 'utf8'), 'added\n');
		assert.equal(fs.readlinkSync(path.join(w.root, 'd')), outside, 'the link is left as it is');
		assert.equal((w.baton(['checkpoint', 'list', '--json']).json as any).checkpoints.length, checkpointsBefore, 'refused before the safety checkpoint');
		// Where the steps' files stand is read in the workspace only: below a link, they are not there.
		const show = w.baton(['timeline', 'show', '1', '--json']).json as any;
		assert.deepEqual(show.filesNow, [{ path: 'd/x.txt', now: 'deleted' }]);
	});

	void it('records a step as not captured when the store stays busy past the budget, and the agent sees nothing', async (t) => {
		const w = workspace(t);
		fs.writeFileSync(path.join(w.root, '.baton', 'agents.json'), JSON.stringify({ timelineBudget: 300 }));
		w.write('a.txt', 'one\n');
		// Another process (here: this test) holds the shadow store's lock for the whole tool call.
		const shadow = new ShadowRepo(w.root, path.join(w.root, '.baton'));
		await shadow.withLock(async () => {
			w.step('Bash', () => w.write('a.txt', 'two\n'));
		});
		const steps = (w.baton(['timeline', '--json']).json as any).steps;
		assert.equal(steps.length, 1);
		assert.equal(steps[0].captured, false);
		assert.match(steps[0].reason, /not captured/);
		assert.equal(steps[0].treeAfter, null);
		const refused = w.baton(['timeline', 'revert', '1', '--json']);
		assert.equal(refused.code, 1);
		assert.match(refused.json?.['error'].message, /was not captured/);
		// The next call captures again.
		w.step('Bash', () => w.write('a.txt', 'three\n'));
		const later = (w.baton(['timeline', '--json']).json as any).steps;
		assert.equal(later[1].captured, true);
	});
});
