import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blameFile } from '../../../../src/engine/provenance/blameReader';
import { ProvenanceService } from '../../../../src/engine/provenance/provenanceService';
import { provenanceWorld } from './recordSteps';
import type { ModelLine, Truth } from './scriptedRepo';

// Steps are written by recordSteps in this process's engine: the question is blame's answer at size,
// line by line (the capture through real hooks is covered by the scripted history, at a small size).
/**
 * A 24,000-line file: a person's first version (committed before any captured step, so nobody Baton
 * can name), four agent commits changing lines spread over the whole file (one also inserting a
 * block), a person's commit, then work not committed yet: an agent's step and a person's edit after
 * it. Every line's commit and origin (and, for an agent's line, its session, step, turn and prompt)
 * must be the one the script knows.
 */
test('blame of a 24,000-line file gives every line its expected commit and origin', async (t) => {
	const { repo, engine, recorder, session } = await provenanceWorld(t, 'baton-prov-large-', { name: 'large', agent: 'claude-code' });
	const agent = { id: session.id, agent: 'claude-code' };
	const file = 'src/table.ts';
	const size = 24_000;
	const human: Truth = { origin: 'human' };
	const committedIn = new Map<ModelLine, string>();
	const commit = (message: string): string => {
		const head = repo.commit(message);
		for (const line of repo.files.get(file)!) {
			if (!committedIn.has(line)) {
				committedIn.set(line, head);
			}
		}
		return head;
	};
	repo.set(
		file,
		Array.from({ length: size }, (_, i) => ({ text: `export const v${i} = ${i};`, truth: human })),
	);
	const base = commit('a large table');
	/** `count` lines spread over the file, each replaced by a line of its own. */
	const spread = (lines: ModelLine[], tag: string, count: number, stride: number, truth: Truth): void => {
		for (let k = 0; k < count; k++) {
			const i = (k * stride + tag.length * 101) % lines.length;
			lines[i] = { text: `export const ${tag}_${k} = ${i};`, truth };
		}
	};
	const turns = new Map<number, string>();
	const agentEdit = async (turn: number, edit: (lines: ModelLine[], truth: Truth) => void): Promise<void> => {
		repo.tick();
		const truth = { origin: 'agent' as const, session: session.id, step: 0 };
		const recorded = await recorder.agentStep(agent, `t${turn}`, `change ${turn}`, 'Edit', () => {
			const lines = [...repo.files.get(file)!];
			edit(lines, truth);
			repo.set(file, lines);
		});
		truth.step = recorded.step;
		turns.set(recorded.step, `${turn}`);
	};
	for (let c = 1; c <= 4; c++) {
		await agentEdit(c, (lines, truth) => {
			spread(lines, `a${'x'.repeat(c)}`, 40, 593, truth);
			if (c === 2) {
				lines.splice(12_345, 0, ...Array.from({ length: 200 }, (_, k) => ({ text: `export const block_${k} = ${k};`, truth })));
			}
		});
		commit(`agent change ${c}`);
	}
	repo.tick();
	const byPerson = [...repo.files.get(file)!];
	spread(byPerson, 'person', 30, 787, human);
	repo.set(file, byPerson);
	commit('a person’s change');
	// Not committed: an agent's step, then a person's edit the capture has not seen.
	await agentEdit(5, (lines, truth) => spread(lines, 'late', 20, 1201, truth));
	repo.tick();
	const afterStep = [...repo.files.get(file)!];
	spread(afterStep, 'unsaved_by_person', 10, 2311, human);
	repo.set(file, afterStep);
	repo.assertWorkspaceMatches();

	const blame = await blameFile(new ProvenanceService(engine.ctx), file);
	const model = repo.files.get(file)!;
	assert.equal(blame.lines.length, model.length);
	const wrong: string[] = [];
	const counts = { agent: 0, human: 0, unknown: 0, uncommitted: 0 };
	blame.lines.forEach((line, index) => {
		const expected = model[index]!;
		const commitOf = committedIn.get(expected) ?? null;
		const truth = expected.truth;
		const origin = commitOf === base ? 'unknown' : truth.origin;
		const got: Record<string, unknown> = { line: line.line, text: line.text, commit: line.commit, origin: line.origin, recovered: line.recovered };
		const want: Record<string, unknown> = { line: index + 1, text: expected.text, commit: commitOf, origin, recovered: false };
		if (truth.origin === 'agent') {
			const turn = turns.get(truth.step)!;
			Object.assign(got, { session: line.session, agent: line.agent, step: line.step, turn: line.turn, prompt: line.prompt });
			Object.assign(want, { session: truth.session, agent: 'claude-code', step: truth.step, turn: `t${turn}`, prompt: `change ${turn}` });
		}
		if (JSON.stringify(got) !== JSON.stringify(want)) {
			wrong.push(`line ${index + 1}: ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
		}
		counts[origin]++;
		counts.uncommitted += commitOf === null ? 1 : 0;
	});
	assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} lines differ from the script's truth`);
	// Not a check that passes on nothing: every kind of line is there in numbers.
	assert.ok(counts.agent >= 300 && counts.human >= 30 && counts.unknown > 20_000 && counts.uncommitted >= 25, JSON.stringify(counts));
});
