import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { agentCli } from '../../cli/agentCli';
import { tempDir } from '../../helpers';
import { HookAgent, resolveSteps, type AgentTruth } from './hookAgent';
import { ScriptedRepo, type Truth } from './scriptedRepo';

let cli = '';
before(async () => {
	cli = await agentCli();
});

/**
 * Agent edits made through real hook processes (Claude Code's PreToolUse/PostToolUse payloads into
 * `baton hook`, so the turn capture records them as it does for a real agent), a person's edits
 * (some seen by the capture between two tool calls, some not), commits, an amend, an interactive
 * rebase of 20 commits with a fixup and a squash, a cherry-pick and a squash-merge done in another
 * clone and fetched — then every line is blamed with `baton blame --json` and compared with the truth
 * the script kept. Real time throughout: the hooks stamp steps with the clock, commits are dated by it.
 */
test('a scripted history through real hooks: every line blamed after amend, rebase -i (fixup + squash), cherry-pick and squash-merge; none wrong', (t) => {
	const base = tempDir(t, 'baton-prov-');
	const root = path.join(base, 'project');
	const claudeHome = path.join(base, 'claude');
	fs.mkdirSync(root);
	const repo = new ScriptedRepo(root, true);
	repo.git(['init', '-q', '-b', 'main']);
	const human: Truth = { origin: 'human' };
	fs.writeFileSync(path.join(root, '.gitignore'), '.baton/\n');
	repo.set('README.md', [{ text: '# demo', truth: human }]);
	repo.addFunction('src/base.ts', 'base', 1, human);
	repo.commit('init');
	const agentA = new HookAgent(cli, root, claudeHome, '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33');
	assert.equal(agentA.baton(['init']).code, 0);
	const truths: AgentTruth[] = [];
	/** One tool call of `agent`, in a second of its own after the last commit. */
	const agentEdit = (agent: HookAgent, file: string, edit: (truth: Truth) => void): void => {
		repo.tick();
		truths.push(agent.edit(file, edit));
	};

	agentA.start();
	for (let i = 1; i <= 22; i++) {
		const file = `src/mod${i % 4}.ts`;
		agentA.prompt(`prompt for t${i}`);
		agentEdit(agentA, file, (truth) => repo.addFunction(file, `f${i}`, i, truth));
		if (i % 3 === 0) {
			agentEdit(agentA, file, (truth) => repo.change(file, `const y = x * ${i};`, `\tconst y = x * ${i} - 1;`, truth));
		}
		if (i % 4 === 1) {
			repo.change(file, `return y + ${i};`, `\treturn y + ${i} + 0;`, human);
		}
		if (i % 5 === 2) {
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

	// A second agent (another Claude Code session) on a feature branch.
	agentA.end();
	const agentB = new HookAgent(cli, root, claudeHome, '0b2e7d41-9c3a-4f5e-8d21-7a6c5b4e3f20');
	agentB.start();
	repo.branchOff('feature');
	agentB.prompt('Add g1 and g2');
	agentEdit(agentB, 'src/feature.ts', (truth) => {
		repo.addFunction('src/feature.ts', 'g1', 101, truth);
		repo.addFunction('src/feature.ts', 'g2', 102, truth);
	});
	repo.commit('feature: g1 g2');
	agentB.prompt('Add h1 in its own file');
	agentEdit(agentB, 'src/extra.ts', (truth) => repo.addFunction('src/extra.ts', 'h1', 201, truth));
	const extraCommit = repo.commit('feature: extra');
	repo.change('src/feature.ts', 'return y + 101;', '\treturn y + 101 + 1;', human);
	agentB.prompt('Add g3');
	agentEdit(agentB, 'src/feature.ts', (truth) => repo.addFunction('src/feature.ts', 'g3', 103, truth));
	repo.commit('feature: g3');
	repo.checkout('main');
	repo.tick();
	repo.git(['cherry-pick', extraCommit]);
	repo.takeFile('feature', 'src/extra.ts');
	// The branch is squash-merged elsewhere (another clone), and fetched here.
	const elsewhere = path.join(base, 'elsewhere');
	repo.git(['clone', '-q', root, elsewhere]);
	repo.tick();
	repo.git(['merge', '-q', '--squash', 'origin/feature'], { cwd: elsewhere });
	repo.git(['commit', '-q', '-m', 'Feature (#12)'], { cwd: elsewhere });
	repo.git(['fetch', '-q', elsewhere, 'main']);
	repo.git(['merge', '-q', '--ff-only', 'FETCH_HEAD']);
	repo.takeFile('feature', 'src/feature.ts');
	agentB.end();
	// The first agent comes back; work not committed yet: an agent step and a person's edit after it.
	agentA.start('resume');
	agentA.prompt('prompt for t30');
	agentEdit(agentA, 'src/mod1.ts', (truth) => repo.addFunction('src/mod1.ts', 'late', 30, truth));
	repo.change('src/mod2.ts', 'return y + 6;', '\treturn y + 6 + 6;', human);
	repo.assertWorkspaceMatches();
	resolveSteps((args) => agentA.baton(args), truths);
	assert.ok(new Set(truths.map((x) => x.session)).size >= 2, 'the two agents are two Baton sessions');

	const counts = { exact: 0, recovered: 0, unknown: 0, wrong: 0 };
	const wrong: string[] = [];
	const unknown: string[] = [];
	for (const [file, lines] of repo.files) {
		const run = agentA.baton(['blame', file, '--json']);
		assert.equal(run.code, 0, run.stderr);
		const blame = run.json as { lines: { line: number; origin: string; session: string | null; step: number | null; recovered: boolean }[] };
		assert.equal(blame.lines.length, lines.length, file);
		for (const line of blame.lines) {
			const truth = lines[line.line - 1]!.truth;
			if (line.origin === 'unknown') {
				counts.unknown++;
				unknown.push(`${file}:${line.line} ${JSON.stringify(lines[line.line - 1]!.text)} truly ${truth.origin}`);
				continue;
			}
			const right =
				truth.origin === 'agent' ? line.origin === 'agent' && line.session === truth.session && line.step === truth.step : line.origin === 'human';
			if (!right) {
				counts.wrong++;
				wrong.push(
					`${file}:${line.line} ${JSON.stringify(lines[line.line - 1]!.text)} is ${line.origin} ${line.session ?? ''}#${line.step ?? ''}, truly ${JSON.stringify(truth)}`,
				);
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
