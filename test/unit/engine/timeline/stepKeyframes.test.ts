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
import { sessionEvents } from '../../../../src/engine/shared/sharedEvents';
import { resolveTree } from '../../../../src/engine/timeline/stepTrees';
import { keyframeEvery, noteStep, packAt } from '../../../../src/engine/timeline/timelineKeyframes';
import { readState } from '../../../../src/engine/timeline/timelineState';
import { packObjects, sessionPacks } from '../../../../src/engine/timeline/timelinePacks';
import { stepOf } from '../../../../src/engine/timeline/timelineQueries';
import { TimelineRecorder } from '../../../../src/engine/timeline/timelineRecorder';
import { maintainTimeline, missingObjects } from '../../../../src/engine/timeline/timelineRetention';
import type { TimelineStep } from '../../../../src/engine/timeline/timelineShapes';
import { toolEvent } from '../../../ui/replaySession';
import { openTestEngine } from '../../helpers';

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
	const service = engine.timeline;
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
	// A captured step's record leaves `captured` out (absent reads as true); one of the previous format, with it, reads the same.
	const events = await w.engine.store.read((db) => sessionEvents(db, w.session.id, ['timeline.step']));
	assert.deepEqual(
		events.map((e) => 'captured' in e.body),
		steps.map(() => false),
	);
	assert.deepEqual(stepOf({ ...events[0]!, body: { ...events[0]!.body, captured: true } }), steps[0]);
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

void it(`keeps the session start as its one whole tree, and packs the steps' blobs every ${packAt} of them`, async (t) => {
	const w = await world(t);
	// Two files a step: two new blobs each, so the first pack falls at step ${packAt / 2 - 1}.
	const count = packAt / 2 + 2;
	for (let i = 0; i < count; i++) {
		await w.step(() => {
			w.write('src/deep/nested/a.ts', `export const a = ${i + 10};\n`);
			w.write('src/deep/other/b.ts', `export const b = ${i + 10};\n`);
		});
	}
	const steps = await w.steps();
	assert.equal(steps.length, count);
	const ref = `refs/baton/timeline/${w.session.id}`;
	const keyframes = async () => (await w.git(['log', '--first-parent', '--format=%T', ref])).split('\n').reverse();
	assert.deepEqual(await keyframes(), [steps[0]!.treeBefore], 'no whole tree but the session start');
	const kept = async () => new Set((await Promise.all(sessionPacks(w.shadow, w.session.id).map((p) => packObjects(w.shadow, p)))).flat());
	assert.equal(sessionPacks(w.shadow, w.session.id).length, 1, 'one pack once the blobs reached the limit');
	const packedSteps = packAt / 2 - 1;
	for (const s of steps.slice(0, packedSteps)) {
		for (const f of s.files) {
			assert.ok((await kept()).has(f.blobAfter as string), `step ${s.step}'s blob of ${f.path} is kept`);
		}
	}
	assert.ok(!(await kept()).has(steps[count - 1]!.files[0]!.blobAfter as string), 'the last steps wait for the next pack');
	await maintainTimeline(w.engine.ctx, w.shadow, { forcePack: true });
	assert.equal(sessionPacks(w.shadow, w.session.id).length, 1, 'maintenance leaves one pack per session');
	for (const s of steps) {
		for (const f of s.files) {
			assert.ok((await kept()).has(f.blobAfter as string), `step ${s.step}'s blob of ${f.path} is kept`);
		}
	}
	assert.deepEqual(await keyframes(), [steps[0]!.treeBefore], 'maintenance adds no tree');
	await w.shadow.git(['prune', '--expire=now']);
	assert.deepEqual([...(await missingObjects(w.shadow, [...(await kept())]))], [], 'git prune leaves packed blobs alone');
	// No object is missing from the store (git fsck exits non-zero on a missing or broken one).
	await w.shadow.git(['fsck', '--full', '--no-dangling', '--no-progress']);
	// A late step's trees, rebuilt from the session start across all the steps before, to the recorded ids.
	const late = steps[count - 3]!;
	assert.equal((await missingObjects(w.shadow, [late.treeBefore as string, late.treeAfter as string])).size, 2, 'its trees were dropped');
	const diff = await w.service.diff({ ...late, id: 'late', sessionId: w.session.id, at: late.startedAt });
	assert.match(diff, new RegExp(`^-export const b = ${count + 6};\n\\+export const b = ${count + 7};$`, 'm'));
});

void it(`keeps a whole tree again after ${keyframeEvery} steps, to bound the walk back`, async (t) => {
	const w = await world(t);
	// Three real steps that lead from a tree through two others and back.
	await w.step(() => w.write('src/deep/nested/a.ts', 'export const a = 1;\n'));
	await w.step(() => w.write('src/deep/nested/a.ts', 'export const a = 2;\n'));
	await w.step(() => w.write('src/deep/nested/a.ts', 'export const a = 0;\n'));
	const cycle = await w.steps();
	const start = cycle[0]!.treeBefore as string;
	assert.equal(cycle[2]!.treeAfter, start);
	const ref = `refs/baton/timeline/${w.session.id}`;
	const keyframes = async () => (await w.git(['log', '--first-parent', '--format=%T', ref])).split('\n').reverse();
	// The same steps noted again and again, as many recorded steps do to the session's state.
	const state = readState(w.root, w.session.id, Date.now());
	assert.equal(state.sinceKey, 3);
	for (let n = 4; n <= keyframeEvery; n++) {
		if (n === keyframeEvery) {
			assert.deepEqual(await keyframes(), [start], `no keyframe in the first ${keyframeEvery - 1} steps`);
		}
		const s = cycle[(n - 1) % 3]!;
		await noteStep(w.shadow, w.session.id, state, s.treeBefore, s.treeAfter, s.files, true, Date.now());
	}
	assert.equal(state.sinceKey, 0);
	assert.deepEqual(await keyframes(), [start, cycle[(keyframeEvery - 1) % 3]!.treeAfter], `step ${keyframeEvery}'s tree is kept whole`);
});
