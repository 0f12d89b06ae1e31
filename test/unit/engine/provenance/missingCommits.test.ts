/**
 * Blame on a clone that lacks a commit an attribution names (a teammate's amended or rebased commit
 * that was attributed and never pushed; here the commit is removed from this clone's object store
 * by a reset and git's own garbage collection): attributing a later commit of the same file skips
 * the missing one for that commit and goes on, and blame answers every line instead of failing the
 * file with git's "bad object".
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blameFile } from '../../../../src/engine/provenance/blameReader';
import { ProvenanceService } from '../../../../src/engine/provenance/provenanceService';
import { provenanceWorld } from './recordSteps';

test('an attribution naming a commit this clone does not have is skipped for that commit; blame still answers every line', async (t) => {
	const { repo, engine, recorder, session } = await provenanceWorld(t, 'baton-prov-missing-', { name: 'missing', agent: 'claude-code' });
	const agent = { id: session.id, agent: 'claude-code' };
	const truth = { origin: 'agent' as const, session: session.id, step: 1 };
	repo.tick();
	await recorder.agentStep(agent, '1', 'Add total()', 'Edit', () => repo.addFunction('src/app.ts', 'total', 7, truth));
	const gone = repo.commit('total');
	assert.deepEqual((await new ProvenanceService(engine.ctx).attributePending()).attributed, [gone]);
	// The commit leaves this clone for good: reset away, reflog expired, objects pruned.
	repo.git(['reset', '-q', '--hard', 'HEAD~1']);
	repo.git(['reflog', 'expire', '--expire=now', '--all']);
	repo.git(['gc', '-q', '--prune=now']);
	assert.throws(() => repo.git(['cat-file', '-e', gone]), 'the attributed commit is gone from this clone');

	// The same change made again and committed: its attribution looks for sources among attributed commits of the file.
	repo.tick();
	await recorder.agentStep(agent, '2', 'Add total() again', 'Edit', () => repo.addFunction('src/app.ts', 'total', 7, truth));
	repo.commit('total again');
	// Amended a minute later (a rewrite: its committer time is not its author time), which looks for the lines among other attributed commits of the file.
	repo.tick();
	repo.change('src/app.ts', 'return y + 7;', '\treturn y + 7 + 1;', { origin: 'human' });
	repo.git(['commit', '-q', '--amend', '-a', '-m', 'total again, amended']);
	const again = repo.git(['rev-parse', 'HEAD']).trim();
	const service = new ProvenanceService(engine.ctx);
	const report = await service.attributePending();
	assert.ok(report.attributed.includes(again), `attributed: ${report.attributed.join(', ')}`);
	assert.deepEqual(report.skipped, [{ commit: again, missing: [gone] }], 'the report names the commit skipped and the one missing');
	const blamed = await blameFile(service, 'src/app.ts');
	assert.ok(blamed.lines.length > 0);
	assert.ok(
		blamed.lines.every((l) => l.commit !== gone),
		'no line names the commit this clone lacks',
	);
	assert.equal(blamed.lines.find((l) => l.text.includes('total'))?.origin, 'agent', 'the agent’s line is still the agent’s');
});
