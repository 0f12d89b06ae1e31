/**
 * `baton import agents` (agentHistory/): the real samples of test/fixtures/real laid out in a temporary
 * HOME as each agent lays them out — a Codex rollout the real Codex CLI 0.171.0 wrote, the session
 * folder the real Copilot CLI 1.0.102 wrote, a Gemini CLI chat written as 0.61.0 writes one (JSONL and
 * the older `.json`), a Claude Code transcript — with the workspace path they record changed to this
 * test's workspace (the fixtures' README says `/home/dev/project` was put in for the real one).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { eq } from 'drizzle-orm';
import { sessionAliases, sessions } from '../../../../src/engine/storage/schema';
import { actor, openTestEngine, tempDir } from '../../helpers';
import { assertSecondRunChangesNothing } from './historyRuns';
import { agentFiles, agentHome, codexId, copilotId, setUp } from './historyHome';
import { baton, batonAsync, cliPath } from '../../cli/cliRunner';

test('each agent’s sessions of this workspace become Baton sessions, read-only; a dry run writes nothing; a second run changes nothing', async (t) => {
	const { engine, root, home, run } = await setUp(t);
	const before = agentFiles(home);

	const dry = await run({ dryRun: true });
	assert.deepEqual(
		Object.fromEntries(Object.entries(dry.agents).map(([a, c]) => [a, c.imported])),
		{ 'claude-code': 1, codex: 1, gemini: 2, copilot: 1, cline: 0 },
		JSON.stringify(dry),
	);
	assert.equal(await engine.store.read((db) => db.select().from(sessions).all().length), 0, 'a dry run writes no session');
	assert.equal(fs.existsSync(path.join(root, '.baton', 'transcripts', 'index.json')), false, 'nor the archive');

	const first = await run();
	assert.equal(first.agents['codex']?.imported, 1);
	assert.equal(first.agents['codex']?.skipped, 2, JSON.stringify(first.skipped));
	assert.match(first.skipped.find((s) => s.path.endsWith('fifo.jsonl'))?.reason ?? '', /FIFO/);
	assert.match(first.skipped.find((s) => s.path.endsWith('broken.jsonl'))?.reason ?? '', /session_meta/);
	assert.match(first.skipped.find((s) => s.path.includes('linked-out'))?.reason ?? '', /symlink that leads out/);
	// The real 0.171.0 rollout's 3 `token_usage_record` lines (`jq -r .type | sort | uniq -c`) and the one added above.
	assert.equal(first.agents['codex']?.unknownRecords, 4, 'record types the reader does not know: counted, not fatal');
	assert.equal(first.agents['gemini']?.unknownRecords, 1);
	assert.equal(first.agents['claude-code']?.unknownRecords, 1, 'Claude Code’s bookkeeping is known; the one type nobody knows is counted');
	assert.equal(first.agents['claude-code']?.badLines, 1, 'the torn line is passed over and counted; the request after it is read');
	assert.equal(first.sessions.filter((s) => s.outcome === 'imported').length, 5);

	const codex = first.sessions.find((s) => s.agent === 'codex');
	const row = await engine.store.read((db) =>
		db
			.select()
			.from(sessions)
			.where(eq(sessions.id, codex?.sessionId ?? ''))
			.get(),
	);
	assert.equal(row?.agent, 'codex');
	assert.equal(row?.name, 'patch the files', 'named by its first request');
	assert.equal(row?.status, 'ended');
	assert.equal(row?.agentIdentifier, codexId);
	const alias = await engine.store.read((db) => db.select().from(sessionAliases).where(eq(sessionAliases.alias, codexId)).get());
	assert.equal(alias?.sessionId, row?.id, 'the agent’s own id is an alias of the Baton session');
	const [info] = engine.transcripts({ env: { BATON_CLAUDE_HOME: path.join(home, '.claude') } }).list({ sessionId: row?.id ?? '' });
	assert.equal(info?.userRequests, 1);
	assert.equal(info?.toolCalls, 2);
	assert.deepEqual(info?.filesTouched, ['c.txt', 'a.txt']);
	assert.ok(Object.keys(info?.tokens ?? {}).includes('gpt-5.5'));
	assert.equal(row?.startedAt, info?.firstAt);

	const claude = first.sessions.find((s) => s.agent === 'claude-code');
	const [claudeInfo] = engine.transcripts({ env: { BATON_CLAUDE_HOME: path.join(home, '.claude') } }).list({ sessionId: claude?.sessionId ?? '' });
	assert.deepEqual(claudeInfo?.filesTouched, ['billing.ts']);
	assert.equal(claudeInfo?.userRequests, 2, 'both requests, the one after the torn line too');
	const olderGemini = first.sessions.find((s) => s.agentSessionId === 'older-json-1');
	assert.equal(olderGemini?.outcome, 'imported', 'Gemini’s older .json chat');

	assert.deepEqual(agentFiles(home), before, 'no agent file was written: bytes and mtimes as they were');
	await assertSecondRunChangesNothing(root, () => run());
	assert.equal(await engine.store.read((db) => db.select().from(sessions).all().length), 5);
});

test('a rollout that grew adds only what is new; a session a hook recorded is linked, never duplicated; --since and --agent narrow it', async (t) => {
	const { engine, home, run } = await setUp(t);
	const started = await engine.sessions.start({ name: 'Copilot live', scope: 'global', agent: 'copilot', agentIdentifier: copilotId, actor });
	await engine.sessions.addAlias({ sessionId: started.session.id, agent: 'copilot', alias: copilotId, actor });

	assert.equal((await run({ since: '2999-01-01T00:00:00.000Z' })).sessions.length, 0, 'nothing active since then');
	const onlyCopilot = await run({ agents: ['copilot'] });
	assert.deepEqual(Object.keys(onlyCopilot.agents), ['copilot']);
	const copilot = onlyCopilot.sessions[0];
	assert.equal(copilot?.sessionId, started.session.id, 'linked to the live session');
	assert.equal(copilot?.linked, true);
	assert.equal(copilot?.outcome, 'updated');
	assert.equal(await engine.store.read((db) => db.select().from(sessions).where(eq(sessions.agent, 'copilot')).all().length), 1);

	await run();
	const rollout = path.join(home, '.codex', 'sessions', '2026', '11', '28', `rollout-2026-11-28T09-58-50-${codexId}.jsonl`);
	fs.appendFileSync(
		rollout,
		`${JSON.stringify({ timestamp: '2026-11-29T08:00:00.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'and now the tests' }] } })}\n`,
	);
	const grown = await run();
	assert.equal(grown.agents['codex']?.updated, 1);
	assert.equal(grown.agents['codex']?.imported, 0);
	assert.equal(grown.agents['copilot']?.unchanged, 1);
	const codex = grown.sessions.find((s) => s.agent === 'codex');
	const [info] = engine.transcripts({ env: { BATON_CLAUDE_HOME: path.join(home, '.claude') } }).list({ sessionId: codex?.sessionId ?? '' });
	assert.equal(info?.userRequests, 2, 'the new request read once, the old ones not again');
	const row = await engine.store.read((db) =>
		db
			.select()
			.from(sessions)
			.where(eq(sessions.id, codex?.sessionId ?? ''))
			.get(),
	);
	assert.equal(row?.lastActivity, '2026-11-29T08:00:00.000Z', 'its last activity moved');
});

test('a Codex fork is a session of its own under the session it was forked from (its session_meta longer than one read)', async (t) => {
	const { engine, home, run } = await setUp(t);
	const day = path.join(home, '.codex', 'sessions', '2026', '11', '29');
	const meta = {
		timestamp: '2026-11-29T09:00:00.000Z',
		type: 'session_meta',
		payload: {
			id: 'fork-1',
			forked_from_id: codexId,
			timestamp: '2026-11-29T09:00:00.000Z',
			instructions: 'Be brief. '.repeat(30_000),
			cwd: engine.ctx.workspaceRoot,
		},
	};
	const ask = {
		timestamp: '2026-11-29T09:00:01.000Z',
		type: 'response_item',
		payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'try it another way' }] },
	};
	fs.mkdirSync(day, { recursive: true });
	fs.writeFileSync(path.join(day, 'rollout-2026-11-29T09-00-00-fork-1.jsonl'), `${JSON.stringify(meta)}\n${JSON.stringify(ask)}\n`);
	const report = await run({ agents: ['codex'] });
	const parent = report.sessions.find((s) => s.agentSessionId === codexId);
	const fork = report.sessions.find((s) => s.agentSessionId === 'fork-1');
	const row = await engine.store.read((db) =>
		db
			.select()
			.from(sessions)
			.where(eq(sessions.id, fork?.sessionId ?? ''))
			.get(),
	);
	assert.equal(row?.parentSessionId, parent?.sessionId);
	assert.equal(row?.name, 'try it another way');
});

test('a file over the size limit is skipped with its reason, and the others are still read', async (t) => {
	const { engine, home } = await setUp(t);
	const codexSize = fs.statSync(path.join(home, '.codex', 'sessions', '2026', '11', '28', `rollout-2026-11-28T09-58-50-${codexId}.jsonl`)).size;
	const copilotSize = fs.statSync(path.join(home, '.copilot', 'session-state', copilotId, 'events.jsonl')).size;
	assert.ok(copilotSize > codexSize, `the Copilot CLI's file (${copilotSize} bytes) is the larger`);
	const report = await engine.agentHistory.import({
		dryRun: false,
		actor,
		env: { HOME: home, BATON_CLAUDE_HOME: path.join(home, '.claude') },
		homeDir: home,
		agents: ['codex', 'copilot'],
		maxFileBytes: codexSize,
	});
	assert.match(report.skipped.find((s) => s.path.includes(copilotId))?.reason ?? '', /larger than/);
	assert.equal(report.agents['copilot']?.imported, 0);
	assert.equal(report.agents['codex']?.imported, 1);
});

test('baton import agents --json (the bundled CLI): counts per agent, then nothing new; bad --agent and --since are usage errors', async (t) => {
	assert.ok(fs.existsSync(cliPath), `${cliPath} is missing: run \`node esbuild.mjs\` first`);
	const root = tempDir(t, 'baton-history-cli-');
	assert.equal(baton(root, 'init').code, 0);
	const home = agentHome(t, root);
	const env = {
		HOME: home,
		BATON_CLAUDE_HOME: path.join(home, '.claude'),
		CODEX_HOME: path.join(home, '.codex'),
		GEMINI_CLI_HOME: home,
		BATON_NO_DAEMON: '1',
	};
	const first = await batonAsync(root, ['import', 'agents', '--json'], { env });
	assert.equal(first.code, 0, first.stderr);
	assert.deepEqual(Object.keys(first.json).sort(), ['agents', 'dryRun', 'sessions', 'since', 'skipped']);
	assert.deepEqual(first.json['agents']['codex'], { found: 1, imported: 1, updated: 0, unchanged: 0, skipped: 2, unknownRecords: 4, badLines: 0 });
	assert.equal(first.json['agents']['gemini'].imported, 2);
	const second = await batonAsync(root, ['import', 'agents', '--json', '--since', '3650d'], { env });
	assert.equal(second.code, 0, second.stderr);
	for (const counts of Object.values(second.json['agents']) as { imported: number; updated: number }[]) {
		assert.equal(counts.imported + counts.updated, 0, JSON.stringify(second.json['agents']));
	}
	const text = await batonAsync(root, ['import', 'agents', '--agent', 'codex', '--dry-run'], { env });
	assert.match(text.stdout, /Codex\s+1 found: would import 0, would update 0, unchanged 1, skipped 2/);
	assert.equal((await batonAsync(root, ['import', 'agents', '--agent', 'cursor'], { env })).code, 2);
	assert.equal((await batonAsync(root, ['import', 'agents', '--since', 'last tuesday'], { env })).code, 2);
});

test('a workspace opened through a symlink finds the sessions the agents recorded under its real path', async (t) => {
	const real = tempDir(t, 'baton-history-real-');
	const link = path.join(tempDir(t, 'baton-history-link-'), 'shop');
	fs.symlinkSync(real, link);
	const { engine } = await openTestEngine(t, { root: link });
	const home = agentHome(t, fs.realpathSync(real));
	const report = await engine.agentHistory.import({ dryRun: true, actor, env: { HOME: home, BATON_CLAUDE_HOME: path.join(home, '.claude') }, homeDir: home });
	assert.deepEqual(Object.fromEntries(Object.entries(report.agents).map(([a, c]) => [a, c.imported])), {
		'claude-code': 1,
		codex: 1,
		gemini: 2,
		copilot: 1,
		cline: 0,
	});
});

test('a Codex subagent’s rollout is a transcript of its parent’s session, not a session of its own', async (t) => {
	const { engine, home, run } = await setUp(t);
	const day = path.join(home, '.codex', 'sessions', '2026', '11', '28');
	const meta = {
		timestamp: '2026-11-28T10:00:00.000Z',
		type: 'session_meta',
		payload: {
			id: 'sub-1',
			thread_source: 'subagent',
			source: { subagent: { thread_spawn: { parent_thread_id: codexId, depth: 1 } } },
			timestamp: '2026-11-28T10:00:00.000Z',
			cwd: engine.ctx.workspaceRoot,
		},
	};
	const ask = {
		timestamp: '2026-11-28T10:00:01.000Z',
		type: 'response_item',
		payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'check the tests' }] },
	};
	fs.writeFileSync(path.join(day, 'rollout-2026-11-28T10-00-00-sub-1.jsonl'), `${JSON.stringify(meta)}\n${JSON.stringify(ask)}\n`);
	const report = await run({ agents: ['codex'] });
	assert.deepEqual(
		report.sessions.map((s) => s.agentSessionId),
		[codexId],
	);
	const parent = report.sessions[0]?.sessionId ?? '';
	const transcripts = engine.transcripts({ env: { BATON_CLAUDE_HOME: path.join(home, '.claude') } }).list({ sessionId: parent });
	assert.deepEqual(transcripts.map((e) => e.id).sort(), [codexId, `${codexId}/sub-1`].sort());
	assert.equal(transcripts.find((e) => e.agentSessionId === 'sub-1')?.lastUserText, 'check the tests');
});

test('two imports at once: each session is made once and counted once — the import that finds it made by the other counts it as linked', async (t) => {
	const { engine, run } = await setUp(t);
	// The second import runs whole between the first's plan and its write (a window scan and a `baton import agents`).
	const write = engine.store.write.bind(engine.store);
	let second: ReturnType<typeof run> | null = null;
	engine.store.write = async <T>(fn: Parameters<typeof write<T>>[0]): Promise<T> => {
		if (!second) {
			second = run();
			await second;
		}
		return write(fn);
	};
	const first = await run();
	const other = await (second as unknown as ReturnType<typeof run>);
	const made = await engine.store.read((db) => db.select().from(sessions).all().length);
	assert.equal(made, 5);
	const imported = (r: Awaited<ReturnType<typeof run>>): number => r.sessions.filter((s) => s.outcome === 'imported').length;
	assert.equal(imported(other), 5, 'the import that wrote first made them');
	assert.equal(imported(first), 0, 'the other made them: none counted twice');
	assert.equal(
		Object.values(first.agents).reduce((n, c) => n + c.imported, 0),
		0,
	);
	assert.ok(
		first.sessions.every((s) => s.linked && other.sessions.some((o) => o.agentSessionId === s.agentSessionId && o.sessionId === s.sessionId)),
		JSON.stringify(first.sessions),
	);
});
