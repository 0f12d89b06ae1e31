/**
 * `baton import agents` (agentHistory/): the real samples of test/fixtures/real laid out in a temporary
 * HOME as each agent lays them out — a Codex rollout the real Codex CLI 0.171.0 wrote, the session
 * folder the real Copilot CLI 1.0.102 wrote, a Gemini CLI chat written as 0.61.0 writes one (JSONL and
 * the older `.json`), a Claude Code transcript — with the workspace path they record changed to this
 * test's workspace (the fixtures' README says `/home/dev/project` was put in for the real one).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { eq } from 'drizzle-orm';
import { encodeClaudeProjectDir } from '../../../../src/engine/transcripts/claudeProjects';
import { sessionAliases, sessions } from '../../../../src/engine/storage/schema';
import { actor, openTestEngine, tempDir } from '../../helpers';
import { TranscriptWriter } from '../transcripts/transcriptWriter';
import { repoRoot } from '../../cli/agentCli';
import { assertSecondRunChangesNothing } from './historyRuns';
import { baton, batonAsync, cliPath } from '../../cli/cliRunner';

const real = path.join(repoRoot, 'test', 'fixtures', 'real');
const codexId = '01a22197-dbd8-7241-af6b-96b66b737258';
const copilotId = 'a88f76da-cc2b-48a7-bce5-29305a80223e';
const claudeId = '6f0e0a7e-1111-4a5b-9c3d-0123456789ab';

function copyAs(from: string, to: string, root: string): void {
	fs.mkdirSync(path.dirname(to), { recursive: true });
	fs.writeFileSync(to, fs.readFileSync(from, 'utf8').replaceAll('/home/dev/project', root));
}

function geminiLines(root: string, sessionId: string): string {
	const projectHash = createHash('sha256').update(root).digest('hex');
	const lines = [
		{ sessionId, projectHash, startTime: '2026-11-28T10:02:44.501Z', lastUpdated: '2026-11-28T10:02:44.501Z', kind: 'main' },
		{ id: 'm1', timestamp: '2026-11-28T10:02:44.543Z', type: 'user', content: [{ text: 'write b.txt and append' }] },
		{
			id: 'm2',
			timestamp: '2026-11-28T10:02:44.670Z',
			type: 'gemini',
			content: 'Writing.',
			model: 'gemini-2.5-pro',
			tokens: { input: 120, output: 30, cached: 0, thoughts: 0, tool: 0, total: 150 },
			toolCalls: [{ id: 'w1', name: 'write_file', args: { file_path: `${root}/b.txt`, content: 'x\n' }, status: 'success' }],
		},
		{ $rewindTo: 'm2' },
		{ id: 'm3', timestamp: '2026-11-28T10:02:45.000Z', type: 'a_future_record', content: 'kept and counted' },
	];
	return `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
}

/** A HOME with each agent's files for `root` (and some for another project), as the agents lay them out. */
function agentHome(t: TestContext, root: string): string {
	const home = tempDir(t, 'baton-history-home-');
	const day = path.join(home, '.codex', 'sessions', '2026', '11', '28');
	copyAs(path.join(real, 'codex-rollout', 'rollout-0.171.0-apply-patch.jsonl'), path.join(day, `rollout-2026-11-28T09-58-50-${codexId}.jsonl`), root);
	fs.appendFileSync(
		path.join(day, `rollout-2026-11-28T09-58-50-${codexId}.jsonl`),
		`${JSON.stringify({ timestamp: '2026-11-28T09:59:00.000Z', type: 'a_future_record', payload: {} })}\n`,
	);
	// The published sample records `/project`: another project's session, not this workspace's.
	copyAs(path.join(real, 'codex-rollout', 'sample_codex_session.jsonl'), path.join(day, 'rollout-2025-01-01T00-00-00-test-session.jsonl'), root);
	fs.writeFileSync(path.join(day, 'rollout-2026-11-28T10-00-00-broken.jsonl'), 'not json at all\n');
	execFileSync('mkfifo', [path.join(day, 'rollout-2026-11-28T10-00-01-fifo.jsonl')]);
	const state = path.join(home, '.copilot', 'session-state', copilotId);
	copyAs(path.join(real, 'copilot-cli-session', 'events.jsonl'), path.join(state, 'events.jsonl'), root);
	copyAs(path.join(real, 'copilot-cli-session', 'workspace.yaml'), path.join(state, 'workspace.yaml'), root);
	const outside = path.join(tempDir(t, 'baton-history-outside-'), 'events.jsonl');
	copyAs(path.join(real, 'copilot-cli-session', 'events.jsonl'), outside, root);
	fs.mkdirSync(path.join(home, '.copilot', 'session-state', 'linked-out'), { recursive: true });
	fs.symlinkSync(outside, path.join(home, '.copilot', 'session-state', 'linked-out', 'events.jsonl'));
	const chats = path.join(home, '.gemini', 'tmp', path.basename(root), 'chats');
	fs.mkdirSync(chats, { recursive: true });
	fs.writeFileSync(path.join(chats, 'session-2026-11-28T10-02-88091997.jsonl'), geminiLines(root, '88091997-cf39-4d12-b26f-709e837160fd'));
	const [header, ...messages] = geminiLines(root, 'older-json-1')
		.trim()
		.split('\n')
		.map((l) => JSON.parse(l) as Record<string, unknown>);
	fs.writeFileSync(
		path.join(chats, 'session-2025-06-01T08-00-olderjso.json'),
		JSON.stringify({ ...header, messages: messages.filter((m) => m['type'] === 'user' || m['type'] === 'gemini') }),
	);
	const claude = new TranscriptWriter(claudeId, root);
	claude.user('rename the billing module');
	claude.assistant([{ tool: 'Edit', input: { file_path: `${root}/billing.ts`, old_string: 'a', new_string: 'b' } }], { input_tokens: 10, output_tokens: 5 });
	claude.flush(path.join(home, '.claude', 'projects', encodeClaudeProjectDir(root), `${claudeId}.jsonl`));
	return home;
}

/** Every agent file's bytes and mtime: the import must leave them as they were. */
function agentFiles(home: string): Map<string, string> {
	const out = new Map<string, string>();
	const walk = (dir: string): void => {
		for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
			const file = path.join(dir, e.name);
			if (e.isDirectory()) walk(file);
			else if (e.isFile()) out.set(file, `${fs.statSync(file).mtimeMs} ${createHash('sha256').update(fs.readFileSync(file)).digest('hex')}`);
		}
	};
	walk(home);
	return out;
}

async function setUp(t: TestContext) {
	const { engine, root } = await openTestEngine(t);
	const home = agentHome(t, root);
	const env = { HOME: home, BATON_CLAUDE_HOME: path.join(home, '.claude') };
	const run = (extra: { dryRun?: boolean; since?: string; agents?: ('codex' | 'gemini' | 'copilot' | 'claude-code')[] } = {}) =>
		engine.agentHistory.import({
			dryRun: extra.dryRun ?? false,
			actor,
			env,
			homeDir: home,
			...(extra.since ? { since: extra.since } : {}),
			...(extra.agents ? { agents: extra.agents } : {}),
		});
	return { engine, root, home, run };
}

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
	assert.deepEqual(first.json['agents']['codex'], { found: 1, imported: 1, updated: 0, unchanged: 0, skipped: 2, unknownRecords: 4 });
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

test('a Copilot CLI session whose workspace.yaml is a FIFO, a link to a device or too large is skipped with why; the import never waits on it', async (t) => {
	const { home, root, run } = await setUp(t);
	const states = path.join(home, '.copilot', 'session-state');
	const session = (name: string): string => {
		copyAs(path.join(real, 'copilot-cli-session', 'events.jsonl'), path.join(states, name, 'events.jsonl'), root);
		return path.join(states, name, 'workspace.yaml');
	};
	execFileSync('mkfifo', [session('fifo-yaml')]);
	fs.symlinkSync('/dev/zero', session('device-yaml'));
	fs.writeFileSync(session('huge-yaml'), `cwd: ${root}\n${'# padding\n'.repeat(120_000)}`);
	const report = await run({ agents: ['copilot'] });
	const reason = (name: string): string => report.skipped.find((s) => s.path.includes(`${path.sep}${name}${path.sep}`))?.reason ?? '';
	assert.match(reason('fifo-yaml'), /workspace\.yaml cannot be read: it is a FIFO/);
	assert.match(reason('device-yaml'), /workspace\.yaml cannot be read: it is a symlink that leads out/);
	assert.match(reason('huge-yaml'), /workspace\.yaml cannot be read: it is larger than the limit/);
	assert.equal(report.agents['copilot']?.imported, 1, 'the session with its own workspace.yaml is imported');
});

test('a start time an agent file gives that reads as no time never reaches the session id; a purge refuses an id that is no archive folder', async (t) => {
	const { engine, home, root, run } = await setUp(t);
	const day = path.join(home, '.codex', 'sessions', '2026', '11', '28');
	const hostile = ['\u001b]0;pwned\u0007', '/../../../../x/', '2025\nINJECTED line'];
	hostile.forEach((timestamp, i) => {
		const id = `0badc0de-0000-4000-8000-00000000000${i}`;
		const text = fs
			.readFileSync(path.join(real, 'codex-rollout', 'rollout-0.171.0-apply-patch.jsonl'), 'utf8')
			.replaceAll('/home/dev/project', root)
			.replaceAll('01a22197-dbd8-7241-af6b-96b66b737258', id)
			.replaceAll('"timestamp":"2026-11-28T09:58:50.081Z"', `"timestamp":${JSON.stringify(timestamp)}`);
		fs.writeFileSync(path.join(day, `rollout-2026-11-28T11-00-0${i}-${id}.jsonl`), text);
	});
	const report = await run({ agents: ['codex'] });
	const made = report.sessions.filter((s) => s.agentSessionId.startsWith('0badc0de'));
	assert.equal(made.length, 3);
	for (const s of made) {
		assert.match(s.sessionId, /^ses_\d{14}_[0-9a-f]{6}$/, JSON.stringify(s.sessionId));
		const [archived] = engine
			.transcripts({ env: { HOME: home, BATON_CLAUDE_HOME: path.join(home, '.claude') }, homeDir: home })
			.list({ sessionId: s.sessionId });
		assert.ok(archived?.archivePath, `${s.agentSessionId}'s transcript is archived`);
	}
	const outside = path.join(path.dirname(root), `x_${path.basename(root)}`);
	fs.mkdirSync(outside);
	t.after(() => fs.rmSync(outside, { recursive: true, force: true }));
	await assert.rejects(engine.transcripts().setArchiving(`ses_/../../../${path.basename(outside)}`, false, true), /is no session id the archive keeps/);
	assert.ok(fs.existsSync(outside), 'nothing outside the archive was removed');
});

test('a run that stopped between the archive and the store is finished under the session the archive named, though the file’s mtime (its only time) moved', async (t) => {
	const { engine, home, root, run } = await setUp(t);
	const id = '0badc0de-1111-4000-8000-000000000001';
	const file = path.join(home, '.codex', 'sessions', '2026', '11', '28', `rollout-2026-11-28T12-00-00-${id}.jsonl`);
	fs.writeFileSync(
		file,
		fs
			.readFileSync(path.join(real, 'codex-rollout', 'rollout-0.171.0-apply-patch.jsonl'), 'utf8')
			.replaceAll('/home/dev/project', root)
			.replaceAll('01a22197-dbd8-7241-af6b-96b66b737258', id)
			.replaceAll('"timestamp":"2026-11-28T09:58:50.081Z"', '"timestamp":"no time at all"'),
	);
	const first = (await run({ agents: ['codex'] })).sessions.find((s) => s.agentSessionId === id);
	assert.ok(first);
	// As if the run had stopped after the archive's index: the store holds neither the session nor its alias.
	await engine.store.write((db) => {
		db.delete(sessionAliases).where(eq(sessionAliases.alias, id)).run();
		db.delete(sessions).where(eq(sessions.id, first.sessionId)).run();
	});
	fs.utimesSync(file, new Date('2026-12-01T00:00:00Z'), new Date('2026-12-01T00:00:00Z'));
	const again = (await run({ agents: ['codex'] })).sessions.find((s) => s.agentSessionId === id);
	assert.equal(again?.sessionId, first.sessionId, 'the session the archive linked the transcript to');
	assert.equal(again?.outcome, 'imported');
	const archive = engine.transcripts({ env: { HOME: home, BATON_CLAUDE_HOME: path.join(home, '.claude') }, homeDir: home });
	assert.equal(archive.list({ sessionId: first.sessionId }).length, 1, 'its transcript is that session’s');
});

test('a Claude Code conversation of another project whose folder name is the same is told by its cwd, though its first record is longer than the head', async (t) => {
	const { home, root, run } = await setUp(t);
	// `/…/x-project` is Claude's folder name for `/…/x/project` too.
	const other = `${path.dirname(root)}-${path.basename(root)}`;
	const id = '0badc0de-2222-4000-8000-000000000002';
	const line = (cwd: string, text: string): string =>
		JSON.stringify({ type: 'user', sessionId: id, cwd, timestamp: '2026-11-28T13:00:00.000Z', message: { role: 'user', content: text } });
	const dir = path.join(home, '.claude', 'projects', encodeClaudeProjectDir(root));
	assert.equal(encodeClaudeProjectDir(other), encodeClaudeProjectDir(root));
	fs.writeFileSync(path.join(dir, `${id}.jsonl`), `${line(other, `the other project's secret ${'x'.repeat(100_000)}`)}\n`);
	const report = await run({ agents: ['claude-code'] });
	assert.equal(
		report.sessions.find((s) => s.agentSessionId === id),
		undefined,
		'not imported',
	);
	assert.match(report.skipped.find((s) => s.path.includes(id))?.reason ?? '', /it records another project/);
});
