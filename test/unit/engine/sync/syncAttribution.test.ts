/**
 * A commit made or rewritten on one machine travels with its attribution: the push attributes what
 * was committed since (an amend here), so the teammate's clone, which fetches the amended commit, has
 * its line provenance without anyone on the first machine running a blame.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { sql } from 'drizzle-orm';
import { blameFile } from '../../../../src/engine/provenance/blameReader';
import { ProvenanceService } from '../../../../src/engine/provenance/provenanceService';
import { StepRecorder } from '../provenance/recordSteps';
import { actor } from '../../helpers';
import { enabledWorld, git } from './syncWorld';

test('an amended commit carries its attribution with the next push; the teammate blames it right', async (t) => {
	const w = await enabledWorld(t);
	const a = w.a.root;
	const session = (await w.a.engine.sessions.start({ name: 'helper', agent: 'claude-code', actor })).session;
	const recorder = new StepRecorder(w.a.engine, a, () => w.a.clock.now());
	await recorder.agentStep({ id: session.id, agent: 'claude-code', model: 'claude-sonnet-4-5-20250929' }, '1', 'Add a helper', 'Edit', () => {
		fs.writeFileSync(path.join(a, 'app.ts'), 'export const x = 1;\nexport function helper(): number {\n\treturn 42;\n}\n');
	});
	git(a, ['commit', '-qam', 'helper']);
	// Amended a minute later by the person (a rewrite): the first commit never leaves this machine.
	git(a, ['commit', '-q', '--amend', '-m', 'helper, reworded'], { GIT_COMMITTER_DATE: new Date(Date.parse('2026-03-01T09:01:00Z')).toISOString() });
	const amended = git(a, ['rev-parse', 'HEAD']);
	git(a, ['push', '-q', 'origin', 'main']);

	await w.a.engine.sync.push();
	git(w.b.root, ['pull', '-q', 'origin', 'main']);
	await w.b.engine.sync.pull();
	const carried = await w.b.engine.store.read((db) =>
		db.all<{ subject: string }>(sql`SELECT subject FROM shared_events WHERE kind = 'provenance.attribution' AND source <> 'local'`),
	);
	assert.ok(
		carried.some((e) => e.subject === amended),
		'the amended commit’s attribution came with the push',
	);
	const lines = (await blameFile(new ProvenanceService(w.b.engine.ctx), 'app.ts')).lines;
	assert.deepEqual(
		lines.map((l) => `${l.line}:${l.origin}:${l.model ?? ''}`),
		['1:unknown:', '2:agent:claude-sonnet-4-5-20250929', '3:agent:claude-sonnet-4-5-20250929', '4:agent:claude-sonnet-4-5-20250929'],
	);
});
