import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { blameFile } from '../../../src/engine/provenance/blameReader';
import { ProvenanceService } from '../../../src/engine/provenance/provenanceService';
import { actor, openTestEngine, tempDir } from '../helpers';
import { StepRecorder } from './recordSteps';
import { ScriptedRepo, type Truth } from './scriptedRepo';

/**
 * Agent edits (captured steps), a person's edits (some captured between steps, some not), commits,
 * an amend, an interactive rebase of 20 commits with a fixup and a squash, a cherry-pick and a
 * squash-merge done in another clone and fetched — then every line is blamed and compared with the
 * truth the script kept.
 */
test('a scripted history: every line blamed after amend, rebase -i (fixup + squash), cherry-pick and squash-merge; none wrong', async (t) => {
	const root = tempDir(t, 'baton-prov-');
	const repo = new ScriptedRepo(root);
	repo.git(['init', '-q', '-b', 'main']);
	const human: Truth = { origin: 'human' };
	fs.writeFileSync(path.join(root, '.gitignore'), '.baton/\n');
	repo.set('README.md', [{ text: '# demo', truth: human }]);
	repo.addFunction('src/base.ts', 'base', 1, human);
	repo.commit('init');
	const { engine } = await openTestEngine(t, { root });
	const recorder = new StepRecorder(engine, root, () => repo.ms);
	const a = (await engine.sessions.start({ name: 'feature work', agent: 'claude-code', actor })).session;
	const agentA = { id: a.id, agent: 'claude-code' };
	/** An agent step whose lines carry the step number the capture gives it. */
	const agentEdit = async (session: typeof agentA, turn: string, edit: (truth: Truth) => void): Promise<void> => {
		const truth = { origin: 'agent' as const, session: session.id, step: -1 };
		repo.tick();
		const step = await recorder.agentStep(session, turn, `prompt for ${turn}`, 'Edit', () => edit(truth));
		truth.step = step.step;
	};

	for (let i = 1; i <= 22; i++) {
		const file = `src/mod${i % 4}.ts`;
		await agentEdit(agentA, `t${i}`, (truth) => repo.addFunction(file, `f${i}`, i, truth));
		if (i % 3 === 0) {
			await agentEdit(agentA, `t${i}`, (truth) => repo.change(file, `const y = x * ${i};`, `\tconst y = x * ${i} - 1;`, truth));
		}
		if (i % 4 === 1) {
			repo.tick();
			repo.change(file, `return y + ${i};`, `\treturn y + ${i} + 0;`, human);
		}
		if (i % 5 === 2) {
			repo.tick();
			repo.insertAfter('src/base.ts', 'export function base', [`\t// reviewed ${i}`], human);
		}
		repo.commit(`step ${i}`);
	}
	// A person fixes the last commit and amends it.
	repo.tick();
	repo.change('src/mod2.ts', 'return y + 22;', '\treturn y + 22 * 2;', human);
	repo.tick();
	repo.git(['commit', '-q', '--amend', '-a', '--no-edit']);
	// An interactive rebase of the last 20 commits: the 2nd becomes a fixup, the 9th a squash.
	repo.tick();
	repo.git(['rebase', '-q', '-i', 'HEAD~20'], { env: { GIT_SEQUENCE_EDITOR: "sed -i -e '2s/^pick/fixup/' -e '9s/^pick/squash/'" } });
	assert.equal(repo.git(['rev-list', '--count', 'HEAD']).trim(), '21', 'the rebase folded two commits');

	// A second agent on a feature branch.
	await engine.sessions.suspend({ id: a.id, actor });
	const b = (await engine.sessions.start({ name: 'side feature', agent: 'copilot', actor })).session;
	const agentB = { id: b.id, agent: 'copilot' };
	repo.branchOff('feature');
	await agentEdit(agentB, 'u1', (truth) => {
		repo.addFunction('src/feature.ts', 'g1', 101, truth);
		repo.addFunction('src/feature.ts', 'g2', 102, truth);
	});
	repo.commit('feature: g1 g2');
	await agentEdit(agentB, 'u2', (truth) => repo.addFunction('src/extra.ts', 'h1', 201, truth));
	const extraCommit = repo.commit('feature: extra');
	repo.tick();
	repo.change('src/feature.ts', 'return y + 101;', '\treturn y + 101 + 1;', human);
	await agentEdit(agentB, 'u3', (truth) => repo.addFunction('src/feature.ts', 'g3', 103, truth));
	repo.commit('feature: g3');
	repo.checkout('main');
	repo.tick();
	repo.git(['cherry-pick', extraCommit]);
	repo.takeFile('feature', 'src/extra.ts');
	// The branch is squash-merged elsewhere (another clone), and fetched here.
	const elsewhere = tempDir(t, 'baton-prov-elsewhere-');
	repo.git(['clone', '-q', root, elsewhere]);
	repo.tick(3600);
	repo.git(['merge', '-q', '--squash', 'origin/feature'], { cwd: elsewhere });
	repo.git(['commit', '-q', '-m', 'Feature (#12)'], { cwd: elsewhere });
	repo.git(['fetch', '-q', elsewhere, 'main']);
	repo.git(['merge', '-q', '--ff-only', 'FETCH_HEAD']);
	repo.takeFile('feature', 'src/feature.ts');
	await engine.sessions.end({ id: b.id, actor });
	await engine.sessions.resume({ id: a.id, actor });
	// Work not committed yet: an agent step and a person's edit after it.
	await agentEdit(agentA, 't30', (truth) => repo.addFunction('src/mod1.ts', 'late', 30, truth));
	repo.tick();
	repo.change('src/mod2.ts', 'return y + 6;', '\treturn y + 6 + 6;', human);
	repo.assertWorkspaceMatches();

	const provenance = new ProvenanceService(engine.ctx);
	const counts = { exact: 0, recovered: 0, unknown: 0, wrong: 0 };
	const wrong: string[] = [];
	const unknown: string[] = [];
	for (const [file, lines] of repo.files) {
		const blame = await blameFile(provenance, file);
		assert.equal(blame.lines.length, lines.length, file);
		for (const line of blame.lines) {
			const truth = lines[line.line - 1]!.truth;
			if (line.origin === 'unknown') {
				counts.unknown++;
				unknown.push(`${file}:${line.line} ${JSON.stringify(line.text)} truly ${truth.origin}`);
				continue;
			}
			const right = truth.origin === 'agent' ? line.origin === 'agent' && line.session === truth.session && line.step === truth.step : line.origin === 'human';
			if (!right) {
				counts.wrong++;
				wrong.push(`${file}:${line.line} ${JSON.stringify(line.text)} is ${line.origin} ${line.session ?? ''}#${line.step ?? ''}, truly ${JSON.stringify(truth)}`);
			} else if (line.recovered) {
				counts.recovered++;
			} else {
				counts.exact++;
			}
		}
	}
	t.diagnostic(`lines: ${JSON.stringify(counts)}; unknown: ${unknown.join('; ')}`);
	assert.deepEqual(wrong, [], 'no line may be attributed wrongly');
	assert.ok(counts.recovered > 0, 'the fixup/squash lines were recovered by content');
	assert.ok(counts.exact > counts.unknown * 4, `most lines are placed exactly: ${JSON.stringify(counts)}`);
});
