/**
 * A capture with the file watcher's paths builds its tree from the previous one (no index read or
 * written) and lists the step's files without `diff-tree`; the index catches up after the hook.
 * Random rounds of workspace changes compare every capture's tree with a full scan's in a store of
 * its own, every step's files and line counts with git's `diff-tree --numstat`, and a checkpoint
 * taken right after a capture (before the catch-up) with the full scan too. Real git, real files,
 * a real watcher.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { ShadowRepo } from '../../../../src/engine/shadow/shadowRepo';
import { takeSnapshot } from '../../../../src/engine/shadow/shadowSnapshot';
import { diffTrees } from '../../../../src/engine/shadow/treeDiff';
import type { Engine } from '../../../../src/engine/engine';
import { flushIndexCatchUp } from '../../../../src/engine/timeline/indexCatchUp';
import { lineCounts } from '../../../../src/engine/timeline/lineCounts';
import { TimelineRecorder } from '../../../../src/engine/timeline/timelineRecorder';
import { readTimeline } from '../../../../src/engine/timeline/timelineQueries';
import { captureTree, lastCapture, stepFiles } from '../../../../src/engine/timeline/treeCapture';
import { actor, stopBeforeRemoval, tempDir } from '../../helpers';
import { files, openCheckpointEngine, random, write } from '../checkpoints/gitFixtures';
import { toolEvent } from '../../../ui/replaySession';

const plainFiles = (root: string) => files(root).filter((p) => !fs.lstatSync(path.join(root, p)).isSymbolicLink());
const pick = <T>(items: readonly T[], next: () => number): T | undefined => items[Math.floor(next() * items.length)];
const lines = (next: () => number, n: number, count: number) => Array.from({ length: count }, (_, i) => (next() < 0.3 ? '}\n' : `line ${n}.${i}\n`)).join('');

type Op = (root: string, next: () => number, n: number) => void;
const ops: Record<string, Op> = {
	append: (root, next, n) => {
		const f = pick(plainFiles(root), next);
		if (f) fs.appendFileSync(path.join(root, f), `// edit ${n}\n`);
	},
	rewriteMiddle: (root, next, n) => {
		const f = pick(plainFiles(root), next);
		if (f) {
			const text = fs.readFileSync(path.join(root, f), 'latin1').split('\n');
			const at = Math.floor(next() * text.length);
			text.splice(
				at,
				Math.floor(next() * 3),
				...lines(next, n, Math.floor(next() * 4))
					.split('\n')
					.slice(0, -1),
			);
			fs.writeFileSync(path.join(root, f), text.join('\n'), 'latin1');
		}
	},
	dropNewline: (root, next) => {
		const f = pick(plainFiles(root), next);
		if (f) fs.writeFileSync(path.join(root, f), fs.readFileSync(path.join(root, f), 'latin1').replace(/\n$/, ''), 'latin1');
	},
	create: (root, next, n) => write(root, `src/mod${Math.floor(next() * 6)}/new${n}.ts`, lines(next, n, 1 + Math.floor(next() * 5))),
	createDeep: (root, next, n) => write(root, `fresh${n % 3}/deep${n}/a.ts`, lines(next, n, 2)),
	empty: (root, _next, n) => write(root, `src/empty${n}.ts`, ''),
	remove: (root, next) => {
		const f = pick(files(root), next);
		if (f) fs.rmSync(path.join(root, f));
	},
	chmod: (root, next) => {
		const f = pick(plainFiles(root), next);
		if (f) fs.chmodSync(path.join(root, f), fs.statSync(path.join(root, f)).mode & 0o100 ? 0o644 : 0o755);
	},
	symlink: (root, next, n) => {
		const f = pick(files(root), next);
		if (f) fs.symlinkSync(path.basename(f), path.join(root, path.dirname(f), `link${n}`));
	},
	sameContent: (root, next) => {
		const f = pick(plainFiles(root), next);
		if (f) fs.writeFileSync(path.join(root, f), fs.readFileSync(path.join(root, f)));
	},
	ignored: (root, _next, n) => write(root, `src/scratch${n}.tmp`, 'ignored\n'),
	binary: (root, next, n) => write(root, `bin/blob${Math.floor(next() * 3)}.bin`, Buffer.from([0, n & 255, 1, 2, 10, 65])),
	fileToFolder: (root, next, n) => {
		const f = pick(plainFiles(root), next);
		if (f) {
			fs.rmSync(path.join(root, f));
			write(root, `${f}/inside${n}.ts`, `inside ${n}\n`);
		}
	},
	removeFolder: (root, next) => {
		const d = pick(
			files(root)
				.map((f) => path.dirname(f))
				.filter((d) => d !== '.' && d !== 'src'),
			next,
		);
		if (d) fs.rmSync(path.join(root, d), { recursive: true, force: true });
	},
};

async function fullScanTree(engine: Engine, root: string, batonDir: string): Promise<string> {
	const shadow = new ShadowRepo(root, batonDir);
	return shadow.withLock(
		async () =>
			(
				await takeSnapshot(shadow, {
					excludes: engine.config.checkpoints.excludes,
					maxFileSize: engine.config.checkpoints.maxFileSize,
					budgetMs: 60_000,
					message: 'reference',
					parentCommit: null,
					refId: null,
					dateMs: 0,
				})
			).tree,
	);
}

/** The step's files as git's diff-tree gives them (what stepFiles gave before it could do without). */
async function gitFiles(shadow: ShadowRepo, before: string, after: string): Promise<string[]> {
	return (await diffTrees(shadow, before, after)).map(
		(c) =>
			`${c.change} ${c.path} +${c.additions ?? 0} -${c.deletions ?? 0} ${c.oldSha ?? '-'}>${c.newSha ?? '-'} ${c.oldMode ?? '-'}>${c.newMode ?? '-'}${c.binary ? ' binary' : ''}`,
	);
}

async function setUp(t: TestContext) {
	const { engine, root } = await openCheckpointEngine(t);
	write(root, '.gitignore', '*.tmp\n');
	for (let i = 0; i < 30; i++) {
		write(root, `src/mod${i % 6}/file${i}.ts`, `export const v${i} = ${i};\n}\nconst w${i} = 1;\n`);
	}
	const dirty = engine.checkpoints.dirty;
	t.after(await dirty.start());
	const shadow = new ShadowRepo(root, path.join(root, '.baton'));
	const options = { excludes: engine.config.checkpoints.excludes, maxFileSize: engine.config.checkpoints.maxFileSize, dirty };
	const capture = async () => {
		const result = await shadow.withLock(() => captureTree(shadow, { ...options, deadline: Date.now() + 60_000 }));
		assert.ok(result.tree, result.reason);
		return result.tree;
	};
	// Before the workspace goes: a catch-up run after its removal wrote a shadow store into its place.
	stopBeforeRemoval(t, () => flushIndexCatchUp(shadow, options));
	return { engine, root, shadow, capture, options, reference: tempDir(t, 'baton-reference-') };
}

async function randomRounds(t: TestContext, seed: number): Promise<void> {
	const next = random(seed);
	const { engine, root, shadow, capture, options, reference } = await setUp(t);
	let previous = await capture();
	assert.equal(previous, await fullScanTree(engine, root, reference));
	const names = Object.keys(ops);
	let n = 0;
	let fromTree = 0;
	let counted = 0;
	for (let round = 0; round < 24; round++) {
		const done: string[] = [];
		for (let k = 1 + Math.floor(next() * 3); k > 0; k--) {
			const name = pick(names, next) as string;
			(ops[name] as (root: string, next: () => number, n: number) => void)(root, next, n++);
			done.push(name);
		}
		const where = `seed ${seed} round ${round} (${done.join(', ')})`;
		const tree = await capture();
		fromTree += lastCapture.via === 'tree' ? 1 : 0;
		assert.equal(
			tree,
			await fullScanTree(engine, root, reference),
			`${where}: the capture (${lastCapture.via}${lastCapture.reason ? `: ${lastCapture.reason}` : ''}) differs from the full scan`,
		);
		const listed = await shadow.withLock(() => stepFiles(shadow, previous, tree));
		const mine = listed.files.map(
			(f) =>
				`${f.change} ${f.path} +${f.additions} -${f.deletions} ${f.blobBefore ?? '-'}>${f.blobAfter ?? '-'} ${f.blobBefore ? (f.modeBefore ?? '100644') : '-'}>${f.blobAfter ? (f.modeAfter ?? '100644') : '-'}${f.binary ? ' binary' : ''}`,
		);
		assert.deepEqual(mine, await gitFiles(shadow, previous, tree), `${where}: the step's files differ from git's`);
		counted += listed.files.length;
		previous = tree;
		if (round % 4 === 3) {
			// A checkpoint right after the capture, before the index caught up: exact all the same.
			const cp = await engine.checkpoints.create({ actor, sessionId: null });
			assert.equal(cp.treeSha, tree, `${where}: the checkpoint right after the capture`);
		} else if (round % 4 === 1) {
			await flushIndexCatchUp(shadow, options);
		}
	}
	assert.ok(fromTree >= 8, `only ${fromTree} of 24 captures built their tree from the previous one`);
	assert.ok(counted > 0);
}

void describe('a capture built from the previous tree', () => {
	for (const seed of [11, 23, 47]) {
		void it(`gives the full scan's tree and git's step files (seed ${seed})`, async (t) => randomRounds(t, seed));
	}

	void it('leaves the index behind until the catch-up, which brings it to the same tree', async (t) => {
		const { root, shadow, capture, options } = await setUp(t);
		await capture();
		await flushIndexCatchUp(shadow, options);
		const indexTree = () => shadow.gitText(['write-tree']);
		const before = await indexTree();
		fs.appendFileSync(path.join(root, 'src/mod1/file1.ts'), 'export const more = 2;\n');
		await new Promise((resolve) => setTimeout(resolve, 300));
		const tree = await capture();
		assert.equal(lastCapture.via, 'tree');
		assert.notEqual(tree, before);
		assert.equal(await indexTree(), before, 'the capture itself does not write the index');
		await flushIndexCatchUp(shadow, options);
		assert.equal(await indexTree(), tree, 'the catch-up brings the index to the captured tree');
	});

	void it('counts lines as git does where the answer does not depend on the algorithm, and says so otherwise', () => {
		const b = (s: string) => Buffer.from(s, 'latin1');
		assert.deepEqual(lineCounts(b('a\nb\nc\n'), b('a\nB\nc\n')), { binary: false, additions: 1, deletions: 1 });
		assert.deepEqual(lineCounts(b('a\nb'), b('a\nb\n')), { binary: false, additions: 1, deletions: 1 });
		assert.deepEqual(lineCounts(b(''), b('x\ny\n')), { binary: false, additions: 2, deletions: 0 });
		assert.deepEqual(lineCounts(b('x\0'), b('y')), { binary: true });
		assert.equal(lineCounts(b('a\n}\nb\n'), b('c\n}\nd\n')), null, 'a line kept between changed ones: git decides');
	});
});

void describe('a checkpoint right after a step built from the previous tree', () => {
	void it('holds exactly the step’s tree, the full scan’s, before the index caught up', async (t) => {
		const { engine, root, shadow, reference } = await setUp(t);
		const { session } = await engine.sessions.start({ name: 'exact', agent: 'claude-code', actor });
		const recorder = new TimelineRecorder(engine.ctx, { budgetMs: 60_000, dirty: engine.checkpoints.dirty });
		const call = (phase: 'pre' | 'post', id: string) =>
			recorder.onToolUse(phase, session.id, toolEvent(root, phase === 'pre' ? 'preToolUse' : 'postToolUse', 'Bash', { command: 'edit' }, id));
		await call('pre', 'toolu_1');
		await call('post', 'toolu_1');
		await flushIndexCatchUp(shadow, {
			excludes: engine.config.checkpoints.excludes,
			maxFileSize: engine.config.checkpoints.maxFileSize,
			dirty: engine.checkpoints.dirty,
		});
		await call('pre', 'toolu_2');
		fs.appendFileSync(path.join(root, 'src/mod2/file2.ts'), 'export const added = true;\n');
		write(root, 'src/mod3/brand-new.ts', 'one\ntwo\n');
		await new Promise((resolve) => setTimeout(resolve, 300));
		await call('post', 'toolu_2');
		assert.equal(lastCapture.via, 'tree', `the step's tree was built from the previous one (${lastCapture.reason ?? ''})`);
		const indexBefore = await shadow.gitText(['write-tree']);
		const cp = await engine.checkpoints.create({ actor, sessionId: session.id });
		const entries = await engine.ctx.store.read((db) => readTimeline(db, session.id));
		const step = entries.find((e) => e.type === 'step' && e.toolUseId === 'toolu_2');
		assert.ok(step?.type === 'step');
		assert.ok(step?.treeAfter);
		assert.notEqual(indexBefore, step.treeAfter, 'the index had not caught up when the checkpoint began');
		assert.equal(cp.treeSha, step.treeAfter);
		assert.equal(cp.treeSha, await fullScanTree(engine, root, reference));
		assert.deepEqual(
			step.files.map((f) => `${f.change} ${f.path} +${f.additions} -${f.deletions}`),
			['modified src/mod2/file2.ts +1 -0', 'added src/mod3/brand-new.ts +2 -0'],
		);
	});
});

void describe('the ignore verdicts a capture keeps for new files', () => {
	/** The capture's `check-ignore` processes, counted on the store it is given. */
	function countIgnoreChecks(shadow: ShadowRepo): { count: number } {
		const seen = { count: 0 };
		const git = shadow.git.bind(shadow);
		shadow.git = (args, options) => {
			if (args[0] === 'check-ignore') seen.count++;
			return git(args, options);
		};
		return seen;
	}
	const shadow = (root: string) => new ShadowRepo(root, path.join(root, '.baton'));
	const names = (shadow: ShadowRepo, tree: string) => shadow.withLock(async () => (await shadow.gitText(['ls-tree', '-r', '--name-only', tree])).split('\n'));

	void it('asks git once per new file while the index has not caught up, not once per capture', async (t) => {
		const { engine, root, shadow, capture, reference } = await setUp(t);
		await capture();
		const checks = countIgnoreChecks(shadow);
		let asked = 0;
		let built = 0;
		for (let i = 0; i < 4; i++) {
			fs.appendFileSync(path.join(root, 'bench.txt'), `${i}\n`);
			const before = checks.count;
			await capture();
			// A capture the catch-up got ahead of (a loaded machine) went through the index: not counted.
			if (lastCapture.via === 'tree') {
				built++;
				asked += checks.count - before;
			}
		}
		assert.ok(built >= 2, `only ${built} of 4 captures were built from the previous tree`);
		assert.equal(asked, 1, 'one check-ignore for bench.txt, its verdict kept by the next captures');
		assert.equal(await capture(), await fullScanTree(engine, root, reference));
	});

	void it('are forgotten when the index is synced: a .gitignore that now leaves a new file out', async (t) => {
		const { engine, root, capture, reference } = await setUp(t);
		await capture();
		write(root, 'src/mod1/draft.md', 'kept for now\n');
		assert.ok((await names(shadow(root), await capture())).includes('src/mod1/draft.md'));
		// The watcher has the index synced for a .gitignore change; draft.md, never in the index, stays new.
		write(root, '.gitignore', '*.tmp\ndraft.md\n');
		assert.ok(!(await names(shadow(root), await capture())).includes('src/mod1/draft.md'));
		fs.appendFileSync(path.join(root, 'src/mod1/draft.md'), 'edited\n');
		const tree = await capture();
		assert.ok(!(await names(shadow(root), tree)).includes('src/mod1/draft.md'), `draft.md is left out (${lastCapture.via})`);
		assert.equal(tree, await fullScanTree(engine, root, reference));
	});
});
