/**
 * Timeline sharing (timelineSync.ts, docs/sync.md "Each step's files"): with `sync enable --timeline`
 * each step's changed files travel on `refs/baton/timeline/<machine>` under a shared checkpoint's
 * rules, and a teammate's Replay shows the step's diff and reverts it in the teammate's own
 * workspace. A remote enabled without it is never sent that ref; an ignored file or one holding a
 * credential never leaves (the step says its diff is gone there); a retraction takes a session's
 * step files back.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { machineIdentity } from '../../../../src/engine/shared/machineIdentity';
import { actor } from '../../helpers';
import { StepRecorder } from '../provenance/recordSteps';
import { allObjects, git, remoteRefs, syncWorld } from './syncWorld';

const slack = 'xoxb-118279232-9981726354-abcdefghijkl';
const envSecret = 'sk-live-4f9c2b7e1d8a6f3c5b2e9d7a';
const privateNote = 'untracked private note 7f3a';

test('with --timeline a teammate’s Replay shows each shared step’s diff and reverts it in their own workspace; ignored and credential-holding files stay home', async (t) => {
	const w = await syncWorld(t);
	const a = w.a.root;
	fs.writeFileSync(path.join(a, '.gitignore'), '.env\n');
	fs.writeFileSync(path.join(a, 'config.ts'), 'export const channel = "#dev";\n');
	git(a, ['add', '.']);
	git(a, ['commit', '-qm', 'config']);
	git(a, ['push', '-q', 'origin', 'main']);
	// A second remote shares without the timeline: it is never sent that ref.
	const backup = path.join(w.dir, 'backup.git');
	git(w.dir, ['init', '-q', '--bare', backup]);
	git(a, ['remote', 'add', 'backup', `file://${backup}`]);
	const on = await w.a.engine.sync.enable('origin', { timeline: true });
	assert.equal(on.timeline, true);
	await w.a.engine.sync.enable('backup');

	const session = (await w.a.engine.sessions.start({ name: 'Tune the constant', agent: 'claude-code', actor })).session;
	const recorder = new StepRecorder(w.a.engine, a, () => w.a.clock.now());
	const agent = { id: session.id, agent: 'claude-code', model: 'claude-sonnet-4-5' };
	await recorder.agentStep(agent, 't1', 'bump x', 'Edit', () => fs.writeFileSync(path.join(a, 'app.ts'), 'export const x = 2;\n'));
	const step2 = await recorder.agentStep(agent, 't1', 'bump x', 'Bash', () => {
		fs.writeFileSync(path.join(a, '.env'), `OPENAI_API_KEY=${envSecret}\n`);
		fs.writeFileSync(path.join(a, 'notes.md'), `${privateNote}\n`);
	});
	assert.ok(
		step2.files.some((f) => f.path === 'notes.md'),
		'the step recorded the untracked file',
	);
	await recorder.agentStep(agent, 't1', 'bump x', 'Edit', () =>
		fs.writeFileSync(path.join(a, 'config.ts'), `export const channel = "#dev";\nexport const token = "${slack}";\n`),
	);
	// The person commits the agent's first change (not the others) and pushes it.
	git(a, ['commit', '-qm', 'x = 2', 'app.ts']);
	git(a, ['push', '-q', 'origin', 'main']);

	const results = await w.a.engine.sync.push();
	const origin = results.find((r) => r.remote === 'origin');
	assert.deepEqual(
		[...(origin?.leftOut ?? []), ...(results.find((r) => r.remote === 'backup')?.leftOut ?? [])].map((f) => [
			f.step?.step,
			f.path,
			f.reason.replace(/, line \d+/, ''),
		]),
		[[3, 'config.ts', 'looks like it holds a credential (slack-token)']],
		'the step file holding a token is left out and named with its step; the ignored .env and the untracked notes are simply not shared',
	);
	const machine = machineIdentity(a).id;
	assert.ok(remoteRefs(w.bare).includes(`refs/baton/timeline/${machine}`), 'origin is sent the timeline ref');
	assert.ok(!remoteRefs(backup).some((r) => r.startsWith('refs/baton/timeline/')), 'a remote enabled without --timeline is never sent it');
	const objects = allObjects(w.bare);
	assert.ok(
		!objects.includes(envSecret) && !objects.includes(slack) && !objects.includes(privateNote),
		'no planted secret or untracked file reached the remote',
	);
	assert.equal((await w.a.engine.sync.status()).remotes.find((r) => r.name === 'origin')?.timeline, true, 'sync status says origin takes the step files');

	// The teammate pulls the code and Baton's records.
	git(w.b.root, ['pull', '-q', 'origin', 'main']);
	await w.b.engine.sync.enable('origin');
	await w.b.engine.sync.pull();
	const replay = w.b.engine.timeline;
	const steps = (await replay.timeline(session.id)).entries.filter((e) => e.type === 'step');
	assert.equal(steps.length, 3);
	const first = await replay.step(steps[0]!.id);
	assert.equal(first.treesGone, undefined, 'the shared step’s files are here');
	const diff = await replay.diff(first);
	assert.match(diff, /^-export const x = 1;$/m);
	assert.match(diff, /^\+export const x = 2;$/m);
	assert.match(diff, /^\+\+\+ b\/app\.ts$/m);
	assert.deepEqual(await replay.filesNow(first), [{ path: 'app.ts', now: 'unchanged' }]);
	assert.equal((await replay.fileAt(first.treeBefore as string, 'app.ts'))?.toString(), 'export const x = 1;\n');
	for (const index of [1, 2]) {
		const kept = await replay.step(steps[index]!.id);
		assert.match(kept.treesGone ?? '', /not in this workspace's store/, `step ${index + 1}'s files did not travel, and it says so`);
	}
	const reverted = await replay.revert(steps[0]!.id, { actor });
	assert.deepEqual(reverted.reverted, ['app.ts']);
	assert.equal(fs.readFileSync(path.join(w.b.root, 'app.ts'), 'utf8'), 'export const x = 1;\n', 'the teammate’s own workspace has the step undone');
	assert.equal(fs.readFileSync(path.join(a, 'app.ts'), 'utf8'), 'export const x = 2;\n', 'the author’s is untouched');

	// Taking the session back takes its step files off the remote's timeline ref.
	const retracted = await w.a.engine.sync.retract({ session: session.id }, actor);
	assert.ok(
		retracted.pushed.some((p) => p.remote === 'origin' && p.ref === `refs/baton/timeline/${machine}`),
		'the rewritten timeline ref is pushed',
	);
	const listed = git(w.bare, ['ls-tree', '-r', '--name-only', `refs/baton/timeline/${machine}`], { GIT_DIR: w.bare });
	assert.equal(listed, '', 'no step file of the session is reachable from the remote’s timeline ref');
});
