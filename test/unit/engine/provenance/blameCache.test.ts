import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { blameFile } from '../../../../src/engine/provenance/blameReader';
import { ProvenanceService } from '../../../../src/engine/provenance/provenanceService';
import { readAttributions } from '../../../../src/engine/provenance/attributionRecords';
import { readSteps } from '../../../../src/engine/provenance/stepHistory';
import { provenanceWorld } from './recordSteps';

// Steps are written by recordSteps, in this process's engine, at chosen points between two blames:
// the test is about what the kept blame and the kept records notice, so each record must land exactly
// between two reads of the same service (the capture through hooks is covered by provenanceCli and
// the scripted history).
/**
 * The warm blame (the hover's) is answered from what the backend kept, and only while nothing it
 * depends on moved: an edit of the file, a commit, a new captured step each give a fresh blame; a
 * new process skips the search for pending commits only when git and the records are as they were.
 */
test('a kept blame is reused until the file, git or the records change', async (t) => {
	const { repo, engine, recorder, session } = await provenanceWorld(t, 'baton-prov-cache-', { name: 'cache', agent: 'claude-code' });
	const agent = { id: session.id, agent: 'claude-code' };
	const truth = { origin: 'agent' as const, session: session.id, step: 1 };
	repo.tick();
	await recorder.agentStep(agent, '1', 'Add total()', 'Edit', () => repo.addFunction('src/app.ts', 'total', 7, truth));
	repo.commit('total');

	const service = new ProvenanceService(engine.ctx);
	const first = await blameFile(service, 'src/app.ts');
	assert.equal(first.lines[5]!.origin, 'agent');
	const again = await blameFile(service, 'src/app.ts');
	assert.equal(again.lines, first.lines, 'nothing changed: the kept blame is the answer');
	const one = await blameFile(service, 'src/app.ts', { line: 6 });
	assert.deepEqual(one.lines, [first.lines[5]], 'one line (the hover) comes from the kept blame');

	// A person's edit in the working file (saved, not committed).
	repo.tick();
	repo.change('src/app.ts', 'return y + 7;', '\treturn y + 7 + tax;', { origin: 'human' });
	const edited = await blameFile(service, 'src/app.ts');
	assert.notEqual(edited.lines, first.lines);
	assert.deepEqual([edited.lines[7]!.commit, edited.lines[7]!.origin], [null, 'human']);

	// An agent's step: a new record, and the file changed again.
	repo.tick();
	await recorder.agentStep(agent, '2', 'Add discount()', 'Edit', () => repo.addFunction('src/app.ts', 'discount', 9, truth));
	const stepped = await blameFile(service, 'src/app.ts');
	assert.equal(stepped.lines.length, 15);
	assert.deepEqual(
		[stepped.lines[10]!.commit, stepped.lines[10]!.origin, stepped.lines[10]!.step],
		[null, 'agent', 3],
		'step 2 is the person’s edit the capture found',
	);

	// A commit made outside Baton: git's state moved, the next blame (even by a new service) attributes it.
	const head = repo.commit('discount');
	const afterCommit = await new ProvenanceService(engine.ctx).attributePending();
	assert.deepEqual(afterCommit.attributed, [head]);
	const committed = await blameFile(service, 'src/app.ts');
	assert.deepEqual([committed.lines[10]!.commit, committed.lines[10]!.origin, committed.lines[7]!.origin], [head, 'agent', 'human']);
	const fresh = new ProvenanceService(engine.ctx);
	assert.deepEqual((await fresh.attributePending()).attributed, [], 'a new service with nothing new searches nothing');
	assert.deepEqual((await blameFile(fresh, 'src/app.ts')).lines, committed.lines);

	// The kept service read only what was appended since its last read: the same as reading everything.
	assert.deepEqual(await service.steps(), await engine.store.read((db) => readSteps(db)));
	assert.deepEqual(await service.attributions(), await engine.store.read((db) => readAttributions(db)));
	assert.equal(engine.provenance, engine.provenance, 'one service per engine (the daemon and the backend keep it)');
	await assert.rejects(
		service.attribute(['no-such-rev']),
		(error: Error & { code?: string }) => error.code === 'notFound' && /no-such-rev is not a commit/.test(error.message),
	);
});

/**
 * A whole file is blamed from git's `--incremental` groups with each line's text read from the file;
 * when the file is not what git blamed (a clean filter here drops the first line of what git sees),
 * git's porcelain, which carries every line's own text, gives the answer instead of a wrong one.
 */
test("a whole file's blame takes each line's text from git's porcelain when the file is not what git blamed", async (t) => {
	const { repo, engine, root } = await provenanceWorld(t, 'baton-prov-filter-', { name: 'filter', agent: 'claude-code' });
	const service = new ProvenanceService(engine.ctx);
	const plain = await blameFile(service, 'src/app.ts');
	assert.deepEqual(
		plain.lines.map((l) => l.text),
		fs.readFileSync(path.join(root, 'src/app.ts'), 'utf8').replace(/\n$/, '').split('\n'),
		'no filter: every line, its text the file’s',
	);

	repo.git(['config', 'filter.skipfirst.clean', 'sed 1d']);
	fs.writeFileSync(path.join(root, '.gitattributes'), 'src/app.ts filter=skipfirst\n');
	repo.tick();
	repo.change('src/app.ts', 'return y + 1;', '\treturn y + 2;', { origin: 'human' });
	const filtered = await blameFile(new ProvenanceService(engine.ctx), 'src/app.ts');
	const seen = repo
		.git(['blame', '--porcelain', '--', 'src/app.ts'])
		.split('\n')
		.filter((l) => l.startsWith('\t'))
		.map((l) => l.slice(1));
	assert.equal(seen.length, plain.lines.length - 1, 'git blames what the filter leaves');
	assert.deepEqual(
		filtered.lines.map((l) => l.text),
		seen,
	);
	assert.deepEqual(
		filtered.lines.map((l) => l.line),
		seen.map((_, i) => i + 1),
	);
});
