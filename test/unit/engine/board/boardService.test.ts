/**
 * The Agents board's reads on a real store (src/engine/board/boardService.ts): a session imported from
 * an agent's own history is running while its file still grows — Codex's real rollout, imported
 * through `baton import agents`' path, is on the board as working until its file stops changing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { actor, FakeClock, openTestEngine, tempDir } from '../../helpers';
import { repoRoot } from '../../cli/agentCli';

const codexId = '01a22197-dbd8-7241-af6b-96b66b737258';

test('an imported session is working while its file grows, and leaves the board when the file stops', async (t) => {
	const clock = new FakeClock(Date.now());
	const { engine, root } = await openTestEngine(t, { clock });
	const home = tempDir(t, 'baton-board-home-');
	const rollout = path.join(home, '.codex', 'sessions', '2026', '11', '28', `rollout-2026-11-28T09-58-50-${codexId}.jsonl`);
	fs.mkdirSync(path.dirname(rollout), { recursive: true });
	fs.writeFileSync(
		rollout,
		fs
			.readFileSync(path.join(repoRoot, 'test/fixtures/real/codex-rollout/rollout-0.171.0-apply-patch.jsonl'), 'utf8')
			.replaceAll('/home/dev/project', root),
	);
	const report = await engine.agentHistory.import({
		dryRun: false,
		actor,
		agents: ['codex'],
		env: { HOME: home, CODEX_HOME: path.join(home, '.codex') },
		homeDir: home,
	});
	assert.equal(report.agents['codex']?.imported, 1);

	const growing = await engine.board.list();
	assert.deepEqual(
		growing.entries.map((e) => [e.agent, e.state, e.source, e.reason, e.status]),
		[['codex', 'working', 'import', 'its own history file is still growing', 'ended']],
	);
	assert.equal(growing.entries[0]?.id, report.sessions[0]?.sessionId);

	// Three minutes without a write: the agent stopped, and its session is history again.
	clock.advance(3 * 60_000);
	assert.deepEqual((await engine.board.list()).entries, []);
	// It writes again (a resumed run): back on the board.
	fs.appendFileSync(rollout, '\n');
	fs.utimesSync(rollout, new Date(clock.now()), new Date(clock.now()));
	assert.equal((await engine.board.list()).entries[0]?.state, 'working');
});
