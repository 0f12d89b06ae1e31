import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { baton } from '../../cli/cliRunner';
import { openTestEngine } from '../../helpers';
import { hookWorld, resolveSteps, transcriptModel, type AgentTruth } from './hookAgent';
import type { Truth } from './scriptedRepo';

/**
 * Agent edits go through the real turn capture: Claude Code's hook payloads piped into `baton hook`
 * processes (hookAgent.ts). `edit` prompts a new turn and makes one Edit tool call on `file`.
 */
async function setUp(t: TestContext) {
	const { root, repo, agent } = await hookWorld(t, 'baton-prov-cli-');
	const truths: AgentTruth[] = [];
	const edit = async (prompt: string, change: (truth: Truth) => void, file = 'src/app.ts'): Promise<AgentTruth> => {
		repo.tick();
		agent.prompt(prompt);
		const truth = agent.edit(file, change);
		truths.push(truth);
		return truth;
	};
	/** The Baton session and step the capture gave each edit. */
	const resolve = (): void => resolveSteps((args) => agent.baton(args), truths);
	return { root, repo, edit, resolve };
}

test('baton blame --json: agent lines name session, turn and prompt; a later human change is human; uncommitted lines come from the capture', async (t) => {
	const { root, repo, edit, resolve } = await setUp(t);
	const total = await edit('Add a total() helper', (truth) => repo.addFunction('src/app.ts', 'total', 7, truth));
	repo.tick();
	repo.change('src/app.ts', 'return y + 7;', '\treturn y + 7 + tax;', { origin: 'human' });
	repo.commit('total');
	await edit('Add a discount() helper', (truth) => repo.addFunction('src/app.ts', 'discount', 9, truth));
	resolve();
	const session = { id: total.session };

	const run = baton(root, 'blame', 'src/app.ts', '--json');
	assert.equal(run.code, 0, run.stderr);
	assert.equal(run.json['file'], 'src/app.ts');
	const lines = run.json['lines'] as Record<string, any>[];
	assert.equal(lines.length, 15);
	const byText = (n: number) => lines[n - 1]!;
	assert.deepEqual(Object.keys(byText(6)).slice(0, 8), ['line', 'origin', 'session', 'agent', 'model', 'turn', 'prompt', 'step']);
	assert.equal(byText(1)['origin'], 'unknown', 'written before any capture');
	assert.equal(byText(6)['origin'], 'agent');
	assert.equal(byText(6)['session'], session.id);
	assert.equal(byText(6)['agent'], 'claude-code');
	assert.equal(byText(6)['model'], transcriptModel, 'the model from the agent’s transcript (its tool hooks name none)');
	assert.equal(byText(8)['model'], null, 'a person’s line has no model');
	assert.equal(byText(6)['turn'], '1');
	assert.equal(byText(6)['step'], total.step, 'the step the capture recorded for the tool call');
	assert.equal(byText(6)['prompt'], 'Add a total() helper');
	assert.match(byText(6)['commit'], /^[0-9a-f]{40}$/);
	assert.equal(byText(6)['author'], 'Dana Dev');
	assert.equal(byText(8)['origin'], 'human', 'changed by a person after the agent wrote it');
	assert.equal(byText(11)['origin'], 'agent');
	assert.equal(byText(11)['commit'], null, 'not committed yet');
	assert.equal(byText(11)['prompt'], 'Add a discount() helper');
	assert.equal(byText(11)['turn'], '2');

	const one = baton(root, 'blame', 'src/app.ts', '--line', '8', '--rev', 'HEAD', '--json');
	assert.equal(one.code, 0, one.stderr);
	assert.deepEqual(
		(one.json['lines'] as Record<string, any>[]).map((l) => [l['line'], l['origin']]),
		[[8, 'human']],
	);
	const text = baton(root, 'blame', 'src/app.ts');
	assert.match(text.stdout, /claude-code .* turn 1/);

	const stats = baton(root, 'provenance', 'stats', '--json');
	assert.equal(stats.code, 0, stats.stderr);
	assert.deepEqual(stats.json['total'], { agent: 4, human: 1, unknown: 6 });
	assert.deepEqual(stats.json['sessions'], [{ session: session.id, agent: 'claude-code', lines: 4 }]);

	assert.equal(baton(root, 'blame', 'src/app.ts', '--line', '0', '--json').code, 2);
	const outside = baton(root, 'blame', '../elsewhere.ts', '--json');
	assert.equal(outside.code, 1);
	assert.match(outside.json['error'].message, /not a file inside the workspace/);
	const missing = baton(root, 'blame', 'src/none.ts', '--json');
	assert.equal(missing.code, 1);
	assert.equal(missing.json['error'].code, 'notFound');
});

test('baton connect git merges post-commit and post-rewrite into the user’s hooks (backup kept); an amend then follows git’s own pairs, not patch-id; --remove restores the hooks', async (t) => {
	const { root, repo, edit } = await setUp(t);
	const hooksDir = path.join(root, '.git', 'hooks');
	// The user's own post-rewrite hook reads the pairs on its stdin too.
	const own = '#!/bin/sh\ncat > "$(git rev-parse --git-dir)/user-post-rewrite.log"\nexit 0\n';
	fs.writeFileSync(path.join(hooksDir, 'post-rewrite'), own, { mode: 0o755 });
	const connect = baton(root, 'connect', 'git', '--json');
	assert.equal(connect.code, 0, connect.stderr);
	const installed = connect.json['provenance'] as { path: string; action: string; backup?: string }[];
	assert.deepEqual(
		installed.map((h) => [path.basename(h.path), h.action]),
		[
			['post-commit', 'created'],
			['post-rewrite', 'updated'],
		],
	);
	assert.equal(fs.readFileSync(path.join(hooksDir, 'post-rewrite.baton-backup'), 'utf8'), own);
	assert.deepEqual(
		(connect.json['written'] as { path: string }[]).map((h) => path.basename(h.path)),
		['pre-push', 'post-merge', 'post-checkout'],
		'sync’s hooks are installed alongside',
	);
	const merged = fs.readFileSync(path.join(hooksDir, 'post-rewrite'), 'utf8');
	assert.ok(merged.startsWith('#!/bin/sh\n# >>> baton provenance'), 'Baton’s block runs before a user hook that ends with exit');
	assert.ok(merged.includes('cat > "$(git rev-parse --git-dir)/user-post-rewrite.log"'));
	const again = baton(root, 'connect', 'git', '--json');
	assert.deepEqual(
		(again.json['provenance'] as { action: string }[]).map((h) => h.action),
		['unchanged', 'unchanged'],
	);

	const { engine } = await openTestEngine(t, { root });
	const { eventsAbout } = await import('../../../../src/engine/shared/sharedEvents');
	const waitFor = async (kind: string, commit: string, what: string) => {
		for (let waited = 0; ; waited += 100) {
			const found = await engine.store.read((db) => eventsAbout(db, kind, commit));
			if (found.length > 0) {
				return found;
			}
			assert.ok(waited < 30_000, `${what} never happened`);
			await new Promise((resolve) => setTimeout(resolve, 100));
		}
	};
	await edit('Add total()', (truth) => repo.addFunction('src/app.ts', 'total', 7, truth));
	repo.commit('total');
	const first = repo.git(['rev-parse', 'HEAD']).trim();
	await waitFor('provenance.attribution', first, 'the post-commit hook’s attribution');
	repo.tick();
	repo.change('src/app.ts', 'const y = x * 7;', '\tconst y = x * 7 * rate;', { origin: 'human' });
	repo.tick();
	repo.git(['commit', '-q', '--amend', '-a', '--no-edit']);
	const amended = repo.git(['rev-parse', 'HEAD']).trim();
	const rewrites = await waitFor('provenance.rewrite', amended, 'the post-rewrite hook’s pairs');
	assert.deepEqual(
		rewrites.map((r) => r.body),
		[{ from: [first], how: 'post-rewrite' }],
	);
	assert.equal(fs.readFileSync(path.join(root, '.git', 'user-post-rewrite.log'), 'utf8'), `${first} ${amended}\n`, 'the user’s hook got the same pairs');
	const blame = baton(root, 'blame', 'src/app.ts', '--json');
	assert.equal(blame.code, 0, blame.stderr);
	const origins = (blame.json['lines'] as Record<string, any>[]).slice(5, 10).map((l) => `${l['origin']}${l['recovered'] ? '*' : ''}`);
	assert.deepEqual(origins, ['agent', 'human', 'agent', 'agent', 'agent']);
	const after = await engine.store.read((db) => eventsAbout(db, 'provenance.rewrite', amended));
	assert.deepEqual(
		after.map((r) => r.body['how']),
		['post-rewrite'],
		'git’s pairs were enough: no patch-id or content match was needed',
	);
	const attribution = await engine.store.read((db) => eventsAbout(db, 'provenance.attribution', amended));
	assert.equal(attribution.length, 1);
	assert.ok(attribution[0]!.id > after[0]!.id, 'the amend’s post-commit left the commit to post-rewrite’s pairs (git’s reflog says amend)');

	const removed = baton(root, 'connect', 'git', '--remove', '--json');
	assert.equal(removed.code, 0, removed.stderr);
	assert.deepEqual(
		(removed.json['provenance'] as { path: string; action: string }[]).map((h) => [path.basename(h.path), h.action]),
		[
			['post-commit', 'deleted'],
			['post-rewrite', 'removed'],
		],
	);
	assert.equal(fs.readFileSync(path.join(hooksDir, 'post-rewrite'), 'utf8'), own, 'the user’s hook is exactly as it was');
	assert.ok(!fs.existsSync(path.join(hooksDir, 'post-commit')));
});
