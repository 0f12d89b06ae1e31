import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { workTreeBlob } from '../../../../src/engine/provenance/keptBlobs';
import { ProvenanceService } from '../../../../src/engine/provenance/provenanceService';
import type { GitRun } from '../../../../src/engine/git/objectReader';
import { blameFile } from '../../../../src/engine/provenance/blameReader';
import { readSteps } from '../../../../src/engine/provenance/stepHistory';
import { provenanceWorld, StepRecorder } from './recordSteps';

// Steps are written by recordSteps in this process's engine: the test watches which blobs one
// service's attributions read from git, so the records must land exactly between its calls (the
// capture through hooks is covered by provenanceCli and the scripted history).

/** The specs every `cat-file --batch` of the service asked git for (the real git still answers). */
function watchBlobReads(service: ProvenanceService): string[] {
	const asked: string[] = [];
	const repoRun = service.git.run;
	(service.git as { run: GitRun }).run = async (args, input) => {
		if (args.includes('cat-file')) {
			asked.push(...String(input).split('\n').filter(Boolean));
		}
		return repoRun(args, input);
	};
	const shadowGit = service.shadow.git.bind(service.shadow);
	(service.shadow as { git: typeof shadowGit }).git = async (args, options) => {
		if (args.includes('cat-file')) {
			asked.push(
				...String(options?.input ?? '')
					.split('\n')
					.filter(Boolean),
			);
		}
		return shadowGit(args, options);
	};
	return asked;
}

test('a commit’s files are read from the working tree only when they hash to its blob ids; what was read is kept for the next commit', async (t) => {
	const { root, repo, engine, recorder, session } = await provenanceWorld(t, 'baton-prov-reads-', { name: 'reads', agent: 'claude-code' });
	const agent = { id: session.id, agent: 'claude-code' };
	const truth = { origin: 'agent' as const, session: session.id, step: 1 };
	repo.tick();
	await recorder.agentStep(agent, '1', 'Add total() and a helper', 'Edit', () => {
		repo.addFunction('src/app.ts', 'total', 7, truth);
		repo.addFunction('src/util.ts', 'helper', 3, truth);
	});
	const first = repo.commit('total and helper');
	const blobOf = (rev: string, file: string): string => repo.git(['rev-parse', `${rev}:${file}`]).trim();

	// A person edits app.ts after the commit, before Baton attributes it: its working copy is no
	// longer the committed version and must not be taken for it.
	repo.change('src/app.ts', 'return y + 7;', '\treturn y + 7 + tax;', { origin: 'human' });
	assert.equal(workTreeBlob(path.join(root, 'src/app.ts'), blobOf(first, 'src/app.ts')), undefined);
	assert.deepEqual(
		workTreeBlob(path.join(root, 'src/util.ts'), blobOf(first, 'src/util.ts')),
		fs.readFileSync(path.join(root, 'src/util.ts'), 'utf8').split('\n').slice(0, -1),
	);

	const service = new ProvenanceService(engine.ctx);
	const asked = watchBlobReads(service);
	assert.deepEqual((await service.attribute([first])).attributed, [first]);
	assert.ok(asked.includes(blobOf(first, 'src/app.ts')), 'the edited file’s committed version is read from git');
	assert.ok(!asked.includes(blobOf(first, 'src/util.ts')), 'the unchanged file is hashed in place, not read from git');
	const attribution = (await service.attributions([first])).get(first)!;
	assert.deepEqual(
		attribution.files.map((f) => [f.path, f.blob, f.ranges.map((r) => `${r.start}-${r.end}:${r.origin}`)]),
		[
			['src/app.ts', blobOf(first, 'src/app.ts'), ['6-10:agent']],
			['src/util.ts', blobOf(first, 'src/util.ts'), ['1-5:agent']],
		],
	);
	const blamed = await blameFile(service, 'src/app.ts');
	assert.deepEqual([blamed.lines[7]!.origin, blamed.lines[7]!.commit], ['human', null], 'the person’s uncommitted edit');
	assert.deepEqual([blamed.lines[6]!.origin, blamed.lines[6]!.commit], ['agent', first]);

	// The next commit: its step's before-versions are the versions read for the first, its
	// after-versions are the working tree's. No blob is read from git at all.
	repo.tick();
	await recorder.agentStep(agent, '2', 'Add scale()', 'Edit', () => repo.addFunction('src/util.ts', 'scale', 5, truth));
	repo.git(['add', 'src/util.ts']);
	repo.tick();
	repo.git(['commit', '-q', '-m', 'scale']);
	const second = repo.git(['rev-parse', 'HEAD']).trim();
	asked.length = 0;
	assert.deepEqual((await service.attribute([second])).attributed, [second]);
	assert.deepEqual(asked, [], 'every version was kept or hashed in place');
	const util = (await service.attributions([second])).get(second)!.files;
	assert.deepEqual(
		util.map((f) => [f.path, f.ranges.map((r) => `${r.start}-${r.end}:${r.origin}:${r.step}`)]),
		[['src/util.ts', ['6-10:agent:3']]],
		'step 2 was the person’s edit of app.ts the capture found',
	);
});

test('records written before blob ids were recorded are followed through their trees', async (t) => {
	const { root, repo, engine, session } = await provenanceWorld(t, 'baton-prov-older-', { name: 'older', agent: 'claude-code' });
	const recorder = new StepRecorder(engine, root, () => repo.ms, true);
	const agent = { id: session.id, agent: 'claude-code' };
	const truth = { origin: 'agent' as const, session: session.id, step: 1 };
	repo.tick();
	await recorder.agentStep(agent, '1', 'Add total()', 'Edit', () => repo.addFunction('src/app.ts', 'total', 7, truth));
	const head = repo.commit('total');
	const steps = await engine.store.read((db) => readSteps(db));
	assert.deepEqual(
		steps.map((s) => s.blobs.size),
		[0],
		'the record lists no blob ids',
	);
	const service = new ProvenanceService(engine.ctx);
	const asked = watchBlobReads(service);
	assert.deepEqual((await service.attributePending()).attributed, [head]);
	assert.ok(
		asked.some((s) => s.endsWith(':src/app.ts')),
		'the captured versions are read as tree:path',
	);
	const lines = (await blameFile(service, 'src/app.ts')).lines;
	assert.deepEqual(
		lines.map((l) => l.origin),
		['unknown', 'unknown', 'unknown', 'unknown', 'unknown', 'agent', 'agent', 'agent', 'agent', 'agent'],
		'the first commit’s lines came before any captured step',
	);
});
