import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { blameFile } from '../../../src/engine/provenance/blameReader';
import { exportOpenFormat, importOpenFormat } from '../../../src/engine/provenance/openFormatIo';
import { ProvenanceService } from '../../../src/engine/provenance/provenanceService';
import { matchLines } from '../../../src/engine/provenance/lineDiff';
import { actor, openTestEngine, tempDir } from '../helpers';
import { provenanceWorld } from './recordSteps';

// recordSteps gives the one-step history whose export is checked byte for byte (one agent run 6-10,
// a person's line 8); the test is about the formats, not the capture, which provenanceCli and the
// scripted history drive through real hooks.
test('Agent Trace and git-ai authorship logs: exported, then imported into a fresh clone, give the same blame; a broken file imports nothing', async (t) => {
	const { root, repo, engine, recorder, session } = await provenanceWorld(t, 'baton-prov-open-', { name: 'open formats', agent: 'claude-code' });
	repo.tick();
	await recorder.agentStep({ id: session.id, agent: 'claude-code' }, '1', 'Add total()', 'Edit', () => repo.addFunction('src/app.ts', 'total', 7, { origin: 'human' }));
	repo.tick();
	repo.change('src/app.ts', 'return y + 7;', '\treturn y + 7 + tax;', { origin: 'human' });
	repo.commit('total');
	const service = new ProvenanceService(engine.ctx);
	const original = (await blameFile(service, 'src/app.ts')).lines.map((l) => `${l.line}:${l.origin}`);
	assert.deepEqual(original.slice(5), ['6:agent', '7:agent', '8:human', '9:agent', '10:agent']);

	const out = tempDir(t, 'baton-prov-out-');
	const trace = await exportOpenFormat(service, 'agent-trace', 'HEAD', path.join(out, 'traces.jsonl'));
	assert.equal(trace.commits, 1);
	const record = JSON.parse(fs.readFileSync(path.join(out, 'traces.jsonl'), 'utf8').trim()) as { vcs: { revision: string }; files: { conversations: { contributor: { type: string }; url?: string }[] }[] };
	assert.equal(record.vcs.revision, repo.git(['rev-parse', 'HEAD']).trim());
	assert.deepEqual(record.files[0]?.conversations.map((c) => c.contributor.type).sort(), ['ai', 'human']);
	await exportOpenFormat(service, 'git-ai', 'HEAD', path.join(out, 'git-ai'));
	const log = fs.readFileSync(path.join(out, 'git-ai', `${record.vcs.revision}.txt`), 'utf8');
	assert.match(log, /^src\/app\.ts\n {2}s_[0-9a-f]{14}::t_[0-9a-f]{14} 6-7,9-10\n {2}h_[0-9a-f]{14} 8\n---\n/);
	assert.match(log, /"schema_version": "authorship\/3\.0\.0"/);

	for (const [format, source] of [
		['agent-trace', path.join(out, 'traces.jsonl')],
		['git-ai', path.join(out, 'git-ai')],
		['git-ai', undefined],
	] as const) {
		const clone = tempDir(t, 'baton-prov-clone-');
		repo.git(['clone', '-q', root, clone]);
		if (!source) {
			// A teammate's git-ai notes, fetched into the clone (the user's own git does this, not Baton).
			repo.git(['notes', '--ref=ai', 'add', '-F', path.join(out, 'git-ai', `${record.vcs.revision}.txt`), record.vcs.revision], { cwd: clone });
		}
		const other = await openTestEngine(t, { root: clone });
		const otherService = new ProvenanceService(other.engine.ctx);
		const broken = path.join(out, 'broken.jsonl');
		fs.writeFileSync(broken, `${fs.readFileSync(path.join(out, 'traces.jsonl'), 'utf8')}{"vcs":{"revision":"nope"},"files":[]}\n`);
		await assert.rejects(importOpenFormat(otherService, 'agent-trace', broken, actor), /vcs\.revision.*nothing was imported/);
		assert.deepEqual(await otherService.attributions(), new Map(), 'the broken file imported nothing');
		const result = await importOpenFormat(otherService, format, source, actor);
		assert.deepEqual(result.imported, [record.vcs.revision], `${format} from ${source ?? 'refs/notes/ai'}`);
		const again = await importOpenFormat(otherService, format, source, actor);
		assert.deepEqual(again.imported, [], 'importing twice adds nothing');
		const blame = (await blameFile(otherService, 'src/app.ts')).lines.map((l) => `${l.line}:${l.origin}`);
		assert.deepEqual(blame, original, `${format}: the clone blames as the original`);
	}
});

test('line matching is a longest common subsequence (checked against dynamic programming on random inputs)', () => {
	const lcs = (a: string[], b: string[]): number => {
		const dp = Array.from({ length: a.length + 1 }, () => new Int32Array(b.length + 1));
		for (let i = a.length - 1; i >= 0; i--) {
			for (let j = b.length - 1; j >= 0; j--) {
				dp[i]![j] = a[i] === b[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
			}
		}
		return dp[0]![0]!;
	};
	let seed = 7;
	const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
	// Short inputs, then long ones whose edit distance passes the point where matchLines stops comparing
	// the lines themselves and numbers them (64 edits), and long ones a few edits apart (compared as they are).
	for (let round = 0; round < 2150; round++) {
		const length = round < 2000 ? 14 : 400;
		const make = (): string[] => Array.from({ length: Math.floor(random() * length) }, () => 'abcd'[Math.floor(random() * 4)]!);
		const a = make();
		const b = round % 2 === 1 && round >= 2000 ? a.map((line) => (random() < 0.02 ? 'e' : line)) : make();
		const { bToA, exact } = matchLines(a, b);
		assert.ok(exact);
		let last = -1;
		let matched = 0;
		bToA.forEach((i, j) => {
			if (i >= 0) {
				assert.ok(i > last && a[i] === b[j], `${a.join('')} / ${b.join('')}`);
				last = i;
				matched++;
			}
		});
		assert.equal(matched, lcs(a, b), `${a.join('')} / ${b.join('')}`);
	}
});
