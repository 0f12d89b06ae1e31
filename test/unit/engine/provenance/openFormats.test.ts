import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { blameFile } from '../../../../src/engine/provenance/blameReader';
import { exportOpenFormat, importOpenFormat } from '../../../../src/engine/provenance/openFormatIo';
import { ProvenanceService } from '../../../../src/engine/provenance/provenanceService';
import { matchLines } from '../../../../src/engine/provenance/lineDiff';
import { actor, openTestEngine, tempDir } from '../../helpers';
import { provenanceWorld } from './recordSteps';
import { agentTraceProblems, gitAiProblems } from './formatSchemas';
import { baton } from '../../cli/cliRunner';

// recordSteps gives the one-step history whose export is checked byte for byte (one agent run 6-10,
// a person's line 8); the test is about the formats, not the capture, which provenanceCli and the
// scripted history drive through real hooks.
test('Agent Trace and git-ai authorship logs: exported, then imported into a fresh clone, give the same blame; a broken file imports nothing', async (t) => {
	const { root, repo, engine, recorder, session } = await provenanceWorld(t, 'baton-prov-open-', { name: 'open formats', agent: 'claude-code' });
	repo.tick();
	await recorder.agentStep({ id: session.id, agent: 'claude-code', model: 'claude-sonnet-4-5-20250929' }, '1', 'Add total()', 'Edit', () =>
		repo.addFunction('src/app.ts', 'total', 7, { origin: 'human' }),
	);
	repo.tick();
	repo.change('src/app.ts', 'return y + 7;', '\treturn y + 7 + tax;', { origin: 'human' });
	repo.commit('total');
	const service = new ProvenanceService(engine.ctx);
	const original = (await blameFile(service, 'src/app.ts')).lines.map((l) => `${l.line}:${l.origin}`);
	assert.deepEqual(original.slice(5), ['6:agent', '7:agent', '8:human', '9:agent', '10:agent']);

	const out = tempDir(t, 'baton-prov-out-');
	const tool = { name: 'baton', version: '0.1.0' };
	const trace = await exportOpenFormat(service, 'agent-trace', 'HEAD', path.join(out, 'traces.jsonl'), tool);
	assert.equal(trace.commits, 1);
	const record = JSON.parse(fs.readFileSync(path.join(out, 'traces.jsonl'), 'utf8').trim()) as {
		vcs: { revision: string };
		files: { conversations: { contributor: { type: string; model_id?: string }; url?: string }[] }[];
	};
	assert.deepEqual(agentTraceProblems(record), [], 'the record is valid against Agent Trace’s published schema');
	assert.equal(record.vcs.revision, repo.git(['rev-parse', 'HEAD']).trim());
	assert.deepEqual(record.files[0]?.conversations.map((c) => c.contributor.type).sort(), ['ai', 'human']);
	assert.equal(
		record.files[0]?.conversations.find((c) => c.contributor.type === 'ai')?.contributor.model_id,
		'anthropic/claude-sonnet-4-5-20250929',
		'the step’s model, as models.dev names it',
	);
	await exportOpenFormat(service, 'git-ai', 'HEAD', path.join(out, 'git-ai'), tool);
	const log = fs.readFileSync(path.join(out, 'git-ai', `${record.vcs.revision}.txt`), 'utf8');
	assert.deepEqual(gitAiProblems(log), [], 'the log follows the Git AI Standard v3.0.0');
	assert.match(log, /^src\/app\.ts\n {2}s_[0-9a-f]{14}::t_[0-9a-f]{14} 6-7,9-10\n {2}h_[0-9a-f]{14} 8\n---\n/);
	const meta = JSON.parse(log.split('\n---\n')[1] ?? '') as { sessions: Record<string, { agent_id: { tool: string; id: string; model: string } }> };
	// git-ai finds a session by SHA-256 of `<tool>:<conversation id>`: the key is the one it computes.
	const [key, described] = Object.entries(meta.sessions)[0] ?? [];
	assert.deepEqual(described?.agent_id, { tool: 'claude', id: session.id, model: 'claude-sonnet-4-5-20250929' });
	assert.equal(key, `s_${createHash('sha256').update(`claude:${session.id}`).digest('hex').slice(0, 14)}`);

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

test('imports what git-ai and Agent Trace write in the field: legacy prompts, a quoted path, several records for one commit; lines that cannot be placed are counted, not called imported', async (t) => {
	const { root, repo } = await provenanceWorld(t, 'baton-prov-import-', { name: 'imports', agent: 'claude-code' });
	const file = 'src/my file.ts';
	repo.set(
		file,
		Array.from({ length: 30 }, (_, i) => ({ text: `export const v${i} = ${i};`, truth: { origin: 'human' as const } })),
	);
	const commit = repo.commit('thirty lines');
	const out = tempDir(t, 'baton-prov-in-');

	// A note of git-ai before v1.4.0: a bare 16-hex key described in `prompts`, the path quoted for its space.
	const notes = path.join(out, 'git-ai');
	fs.mkdirSync(notes);
	const legacy = `"${file}"\n  abcd1234abcd1234 1-20\n---\n${JSON.stringify({ schema_version: 'authorship/3.0.0', git_ai_version: '1.0.23', base_commit_sha: commit, prompts: { abcd1234abcd1234: { agent_id: { tool: 'cursor', id: 'conv-1', model: 'gpt-4' }, human_author: 'Dev <dev@example.com>', total_additions: 20, total_deletions: 0, accepted_lines: 20, overriden_lines: 0 } } })}\n`;
	assert.deepEqual(gitAiProblems(legacy), [], 'the fixture is a valid v3 legacy note');
	fs.writeFileSync(path.join(notes, `${commit}.txt`), legacy);
	const clone = (): string => {
		const dir = tempDir(t, 'baton-prov-in-clone-');
		repo.git(['clone', '-q', root, dir]);
		return dir;
	};
	const a = await openTestEngine(t, { root: clone() });
	const fromNotes = await importOpenFormat(new ProvenanceService(a.engine.ctx), 'git-ai', notes, actor);
	assert.deepEqual([fromNotes.imported, fromNotes.droppedLines, fromNotes.warnings], [[commit], 0, []]);
	const blamed = (await blameFile(new ProvenanceService(a.engine.ctx), file)).lines;
	assert.deepEqual(
		blamed.slice(0, 21).map((l) => `${l.line}:${l.origin}:${l.agent ?? ''}:${l.model ?? ''}`),
		[...Array.from({ length: 20 }, (_, i) => `${i + 1}:agent:cursor:gpt-4`), '21:unknown::'],
		'all 20 of the legacy note’s lines are the agent’s',
	);

	// Two Agent Trace records for one commit (one per run), one with lines past the file's end and a path the commit lacks.
	const traces = path.join(out, 'traces.jsonl');
	const record = (files: unknown[]): string =>
		`${JSON.stringify({ version: '0.1.0', id: '550e8400-e29b-41d4-a716-446655440000', timestamp: '2026-03-01T10:00:00Z', vcs: { type: 'git', revision: commit }, tool: { name: 'cursor', version: '2.4.0' }, files })}\n`;
	fs.writeFileSync(
		traces,
		record([
			{
				path: file,
				conversations: [{ contributor: { type: 'ai', model_id: 'anthropic/claude-opus-4-5-20251101' }, ranges: [{ start_line: 21, end_line: 25 }] }],
			},
		]) +
			record([
				{
					path: file,
					conversations: [
						{
							contributor: { type: 'human' },
							ranges: [
								{ start_line: 26, end_line: 30 },
								{ start_line: 40, end_line: 45 },
							],
						},
					],
				},
				{ path: 'src/gone.ts', conversations: [{ contributor: { type: 'ai' }, ranges: [{ start_line: 1, end_line: 3 }] }] },
			]),
	);
	const b = await openTestEngine(t, { root: clone() });
	const fromTraces = await importOpenFormat(new ProvenanceService(b.engine.ctx), 'agent-trace', traces, actor);
	assert.deepEqual(fromTraces.imported, [commit], 'one commit, both records');
	assert.equal(fromTraces.droppedLines, 9, 'lines 40-45 (past the end) and the 3 of a file the commit lacks');
	assert.deepEqual(
		fromTraces.dropped.map((d) => [d.path, d.lines]),
		[
			[file, 6],
			['src/gone.ts', 3],
		],
	);
	const traced = (await blameFile(new ProvenanceService(b.engine.ctx), file)).lines;
	assert.deepEqual(
		traced.slice(19, 30).map((l) => `${l.line}:${l.origin}`),
		['20:unknown', ...[21, 22, 23, 24, 25].map((n) => `${n}:agent`), ...[26, 27, 28, 29, 30].map((n) => `${n}:human`)],
	);
	assert.equal(traced[20]?.model, 'anthropic/claude-opus-4-5-20251101');

	// The CLI says so, and exits 1: an import that lost lines is no success.
	const c = clone();
	assert.equal(baton(c, 'init').code, 0);
	const run = baton(c, 'provenance', 'import', '--format', 'agent-trace', traces);
	assert.equal(run.code, 1, run.stderr);
	assert.match(run.stdout, /imported 1 commit\(s\), skipped 0, but 9 attributed line\(s\) could not be placed/);
	assert.match(run.stdout, /dropped 3 line\(s\) of src\/gone\.ts at [0-9a-f]{10}: the commit has no such file/);
});
