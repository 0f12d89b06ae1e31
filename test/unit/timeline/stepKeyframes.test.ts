/**
 * Storage of the replay (docs/replay.md, "Retention and size"): a step keeps its new blobs and lists
 * its files with their blob ids; whole trees only at keyframes. After the store's maintenance and a
 * prune of everything unreachable (what the hour's grace period ends in), every step's diff, file
 * states, files and revert still work, its trees rebuilt from the nearest keyframe to exactly the
 * recorded ids; a tree that cannot be rebuilt exactly is refused, never replaced by another one.
 * A real engine, a real shadow store and real files.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it, type TestContext } from 'node:test';
import { sessionEvents } from '../../../src/engine/shared/sharedEvents';
import { resolveTree } from '../../../src/engine/timeline/stepTrees';
import { keyframeEvery } from '../../../src/engine/timeline/timelineKeyframes';
import { packObjects, sessionPacks } from '../../../src/engine/timeline/timelinePacks';
import { stepOf } from '../../../src/engine/timeline/timelineQueries';
import { TimelineRecorder } from '../../../src/engine/timeline/timelineRecorder';
import { maintainTimeline, missingObjects } from '../../../src/engine/timeline/timelineRetention';
import { TimelineService } from '../../../src/engine/timeline/timelineService';
import type { TimelineStep } from '../../../src/engine/timeline/timelineTypes';
import { toolEvent } from '../../ui/replaySession';
import { openTestEngine } from '../helpers';

async function world(t: TestContext) {
	const { engine, root } = await openTestEngine(t);
	const write = (file: string, text: string) => {
		fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
		fs.writeFileSync(path.join(root, file), text);
	};
	write('README.md', 'a project\n');
	write('src/deep/nested/a.ts', 'export const a = 0;\n');
	const { session } = await engine.sessions.start({ name: 'keyframes', agent: 'claude-code', actor: 'test' });
	const recorder = new TimelineRecorder(engine.ctx, { budgetMs: 120_000 });
	let n = 0;
	const step = async (act: () => void) => {
		const id = `toolu_kf${++n}`;
		await recorder.onToolUse('pre', session.id, toolEvent(root, 'preToolUse', 'Bash', { command: 'edit' }, id));
		act();
		await recorder.onToolUse('post', session.id, toolEvent(root, 'postToolUse', 'Bash', { command: 'edit' }, id));
	};
	const steps = async (): Promise<TimelineStep[]> => (await engine.store.read((db) => sessionEvents(db, session.id, ['timeline.step']))).map(stepOf);
	const shadow = engine.checkpoints.shadow;
	const service = new TimelineService(engine.ctx, engine.checkpoints);
	const git = (args: string[]) => shadow.gitText(args);
	return { engine, root, session, write, step, steps, shadow, service, git };
}

void it('rebuilds every step’s trees from its keyframe once the store dropped them, to the recorded ids', async (t) => {
	const w = await world(t);
	await w.step(() => w.write('src/deep/nested/a.ts', 'export const a = 1;\n'));
	await w.step(() => w.write('src/deep/nested/a.ts', 'export const a = 2;\n'));
	await w.step(() => {
		w.write('src/deep/other/b.ts', 'export const b = 1;\n');
		fs.rmSync(path.join(w.root, 'README.md'));
	});
	await w.step(() => fs.chmodSync(path.join(w.root, 'src/deep/other/b.ts'), 0o755));
	await w.step(() => fs.symlinkSync('other/b.ts', path.join(w.root, 'src/deep/link.ts')));
	await w.step(() => w.write('src/deep/nested/a.ts', 'export const a = 3;\n'));
	// A person between two steps: a step of its own, from the tree the last step left.
	w.write('notes.md', 'mine\n');
	await w.step(() => w.write('src/deep/nested/a.ts', 'export const a = 4;\n'));
	const steps = await w.steps();
	assert.deepEqual(
		steps.map((s) => s.actor),
		['agent', 'agent', 'agent', 'agent', 'agent', 'agent', 'human', 'agent'],
	);
	assert.deepEqual(
		steps[3]!.files.map((f) => [f.path, f.modeBefore, f.modeAfter]),
		[['src/deep/other/b.ts', undefined, '100755']],
		'a mode change is recorded',
	);
	const service = w.service;
	const record = async (s: TimelineStep) => ({ ...s, id: `step${s.step}`, sessionId: w.session.id, at: s.startedAt });
	const diffs = await Promise.all(steps.map(async (s) => service.diff(await record(s))));
	assert.match(diffs[1]!, /^-export const a = 1;\n\+export const a = 2;$/m);

	// The hour passes: maintenance packs what is kept, and everything unreachable goes.
	const result = await maintainTimeline(w.engine.ctx, w.shadow, { forcePack: true });
	assert.equal(result.packed, true);
	await w.shadow.git(['prune', '--expire=now']);
	const trees = [...new Set(steps.flatMap((s) => [s.treeBefore as string, s.treeAfter as string]))];
	const missing = await missingObjects(w.shadow, trees);
	assert.ok(missing.size >= trees.length - 3, `only keyframe trees are kept (${trees.length - missing.size} of ${trees.length})`);
	assert.ok(!missing.has(steps[0]!.treeBefore as string), 'the session start is a keyframe');

	for (const [i, s] of steps.entries()) {
		assert.equal(await service.diff(await record(s)), diffs[i], `step ${s.step}'s diff is the same after its trees were dropped`);
	}
	// An intermediate version only a step's blob list keeps.
	const midTree = steps[1]!.treeAfter as string;
	assert.ok(missing.has(midTree));
	assert.equal((await service.fileAt(midTree, 'src/deep/nested/a.ts'))?.toString('utf8'), 'export const a = 2;\n');
	assert.equal((await service.fileAt(steps[4]!.treeAfter as string, 'src/deep/link.ts'))?.toString('utf8'), 'other/b.ts');
	assert.deepEqual(await service.filesNow(await record(steps[1]!)), [{ path: 'src/deep/nested/a.ts', now: 'changed' }]);
	assert.deepEqual(await service.filesNow(await record(steps[6]!)), [{ path: 'notes.md', now: 'unchanged' }]);
	// Revert the step that deleted README.md and added b.ts (its content unchanged since): both undone.
	const revert = await service.revert('3', { sessionId: w.session.id, dryRun: false, actor: 'test' });
	assert.deepEqual(revert.reverted, ['README.md', 'src/deep/other/b.ts']);
	assert.deepEqual(revert.skipped, []);
	assert.equal(fs.readFileSync(path.join(w.root, 'README.md'), 'utf8'), 'a project\n');
	assert.ok(!fs.existsSync(path.join(w.root, 'src/deep/other/b.ts')));
	// A later step whose lines were changed since (a = 4 now) is left alone and said so.
	const later = await service.revert('2', { sessionId: w.session.id, dryRun: true, actor: 'test' });
	assert.deepEqual(later.reverted, []);
	assert.match(later.skipped[0]!.reason, /edited since/);
});

void it('refuses a tree it cannot rebuild to exactly the recorded id', async (t) => {
	const w = await world(t);
	await w.step(() => w.write('src/deep/nested/a.ts', 'export const a = 1;\n'));
	await w.step(() => w.write('src/deep/nested/a.ts', 'export const a = 2;\n'));
	await w.step(() => w.write('src/deep/nested/a.ts', 'export const a = 3;\n'));
	const steps = await w.steps();
	await maintainTimeline(w.engine.ctx, w.shadow, { forcePack: true });
	await w.shadow.git(['prune', '--expire=now']);
	const target = steps[1]!.treeAfter as string; // neither the start nor the last tree (both kept)
	assert.ok((await missingObjects(w.shadow, [target])).has(target));
	assert.equal(await resolveTree(w.shadow, steps, target), target);
	// The same steps with one blob id swapped for another the store holds: the rebuilt tree differs, so none.
	const wrong = steps.map((s) => ({ ...s, files: s.files.map((f) => ({ ...f, blobAfter: steps[0]!.files[0]!.blobBefore as string })) }));
	await w.shadow.git(['prune', '--expire=now']);
	assert.equal(await resolveTree(w.shadow, wrong, target), null);
	// A step whose record lists no blob ids (older records) cannot be crossed.
	const old = steps.map((s) => ({ ...s, files: s.files.map(({ path: p, change, additions, deletions }) => ({ path: p, change, additions, deletions })) }));
	assert.equal(await resolveTree(w.shadow, old, target), null);
});

void it(`keeps a whole tree every ${keyframeEvery} steps, and the blobs of the steps between`, async (t) => {
	const w = await world(t);
	for (let i = 0; i < keyframeEvery + 2; i++) {
		await w.step(() => w.write('src/deep/nested/a.ts', `export const a = ${i + 10};\n`));
	}
	const steps = await w.steps();
	const ref = `refs/baton/timeline/${w.session.id}`;
	const keyframes = (await w.git(['log', '--first-parent', '--format=%T', ref])).split('\n').reverse();
	assert.deepEqual(keyframes, [steps[0]!.treeBefore, steps[keyframeEvery - 1]!.treeAfter]);
	// The blobs of the steps since a keyframe are in the session's own kept packs (one per keyframe while
	// it records; maintenance merges them into one).
	const kept = async () => new Set((await Promise.all(sessionPacks(w.shadow, w.session.id).map((p) => packObjects(w.shadow, p)))).flat());
	assert.equal(sessionPacks(w.shadow, w.session.id).length, 1);
	for (const s of steps.slice(0, keyframeEvery)) {
		assert.ok((await kept()).has(s.files[0]!.blobAfter as string), `step ${s.step}'s blob is kept`);
	}
	await maintainTimeline(w.engine.ctx, w.shadow, { forcePack: true });
	assert.equal(sessionPacks(w.shadow, w.session.id).length, 1, 'maintenance leaves one pack per session');
	for (const s of steps) {
		assert.ok((await kept()).has(s.files[0]!.blobAfter as string), `step ${s.step}'s blob is kept`);
	}
	await w.shadow.git(['prune', '--expire=now']);
	assert.deepEqual([...(await missingObjects(w.shadow, [...(await kept())]))], [], 'git prune leaves packed blobs alone');
	// No object is missing from the store (git fsck exits non-zero on a missing or broken one).
	await w.shadow.git(['fsck', '--full', '--no-dangling', '--no-progress']);
});
