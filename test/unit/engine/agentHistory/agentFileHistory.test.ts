/**
 * `baton import agents` for the agents whose files are written whole (agentHistory.test.ts has the
 * JSON-lines ones): VS Code's chat sessions (agent kind copilot) and Cline's and Roo Code's tasks (kind
 * cline). The real samples of test/fixtures/real (vscode-chat: two sessions VS Code with Copilot Chat
 * wrote; cline-task: a task Cline's VS Code extension wrote) are laid out in a temporary HOME as the
 * products lay them out: `~/.config/Code/User/workspaceStorage/<hash>/{workspace.json,chatSessions/}`
 * and `~/.config/Code/User/globalStorage/<extension>/{state/taskHistory.json,tasks/<id>/}`. No Roo
 * Code task was found published: its task is built from the types Roo Code defines (history_item.json's
 * `workspace`, its first `say:text` the task), as clineTasks.test.ts does.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { sessionAliases, sessions } from '../../../../src/engine/storage/schema';
import { actor, openTestEngine, tempDir } from '../../helpers';
import { repoRoot } from '../../cli/agentCli';
import { assertSecondRunChangesNothing } from './historyRuns';
import { baton, batonAsync, cliPath } from '../../cli/cliRunner';

const real = path.join(repoRoot, 'test', 'fixtures', 'real');
const logId = '7de89a80-6d93-43e7-be0a-0a9afe980198';
const jsonId = '331fed7f-cfd6-409c-8502-06a56322b636';
const clineId = '1770577372307';
const rooId = '0b9a3c1e-5f0d-4d7e-9a53-2c7e1f4b8d21';

function write(file: string, content: string): void {
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, content);
}

/** A VS Code sample with the publisher's workspace (the fixtures' README) changed to this test's. */
function chatSample(name: string, root: string): string {
	return fs.readFileSync(path.join(real, 'vscode-chat', name), 'utf8').replaceAll('/Users/svarlamov/projects/testing-git', root);
}

/** A HOME with VS Code's chat sessions and Cline's and Roo Code's tasks of `root`, and one chat of another folder. */
function productHome(t: TestContext, root: string): { home: string; chatLog: string; clineUi: string } {
	const home = tempDir(t, 'baton-history-products-');
	const user = path.join(home, '.config', 'Code', 'User');
	const storage = path.join(user, 'workspaceStorage', 'a1b2c3d4e5f6');
	write(path.join(storage, 'workspace.json'), JSON.stringify({ folder: `file://${root}` }));
	const chatLog = path.join(storage, 'chatSessions', `${logId}.jsonl`);
	write(chatLog, chatSample('copilot_session_multiline.jsonl', root));
	write(path.join(storage, 'chatSessions', `${jsonId}.json`), chatSample('copilot_session_simple.json', root));
	const other = path.join(user, 'workspaceStorage', 'ffff0000');
	write(path.join(other, 'workspace.json'), JSON.stringify({ folder: 'file:///somewhere/else' }));
	write(path.join(other, 'chatSessions', 'elsewhere-1.jsonl'), chatSample('copilot_session_multiline.jsonl', root));
	const cline = path.join(user, 'globalStorage', 'saoudrizwan.claude-dev');
	const clineUi = path.join(cline, 'tasks', clineId, 'ui_messages.json');
	write(clineUi, fs.readFileSync(path.join(real, 'cline-task', 'ui_messages.json'), 'utf8'));
	write(
		path.join(cline, 'state', 'taskHistory.json'),
		JSON.stringify([{ id: clineId, ts: 1770586533689, task: 'the task', tokensIn: 530, tokensOut: 51905, totalCost: 1, cwdOnTaskInitialization: root }]),
	);
	const roo = path.join(user, 'globalStorage', 'rooveterinaryinc.roo-cline', 'tasks', rooId);
	const rooMessages = [
		{ ts: 1770000001000, type: 'say', say: 'text', text: 'write the docs' },
		{
			ts: 1770000002000,
			type: 'say',
			say: 'api_req_started',
			text: JSON.stringify({ request: `# Current Workspace Directory (${root}) Files`, tokensIn: 5, tokensOut: 7 }),
		},
		{ ts: 1770000003000, type: 'ask', ask: 'tool', text: JSON.stringify({ tool: 'appliedDiff', path: 'README.md' }) },
		{ ts: 1770000004000, type: 'say', say: 'text', text: 'Done.' },
	];
	write(path.join(roo, 'ui_messages.json'), JSON.stringify(rooMessages));
	write(
		path.join(roo, 'history_item.json'),
		JSON.stringify({ id: rooId, number: 1, ts: 1770000001000, task: 'write the docs', tokensIn: 5, tokensOut: 7, totalCost: 0, workspace: root }),
	);
	return { home, chatLog, clineUi };
}

/** Every file's bytes and mtime under `dir`. */
function snapshot(dir: string): Map<string, string> {
	const out = new Map<string, string>();
	const walk = (d: string): void => {
		for (const e of fs.readdirSync(d, { withFileTypes: true })) {
			const file = path.join(d, e.name);
			if (e.isDirectory()) walk(file);
			else out.set(file, `${fs.statSync(file).mtimeMs} ${createHash('sha256').update(fs.readFileSync(file)).digest('hex')}`);
		}
	};
	walk(dir);
	return out;
}

async function setUp(t: TestContext) {
	const { engine, root } = await openTestEngine(t);
	const { home, chatLog, clineUi } = productHome(t, root);
	const env = { HOME: home, BATON_CLAUDE_HOME: path.join(home, '.claude') };
	const run = (extra: { dryRun?: boolean; since?: string; agents?: ('copilot' | 'cline')[]; products?: { cline?: string[] } } = {}) =>
		engine.agentHistory.import({
			dryRun: extra.dryRun ?? false,
			actor,
			env,
			homeDir: home,
			agents: extra.agents ?? ['copilot', 'cline'],
			...(extra.since ? { since: extra.since } : {}),
			...(extra.products ? { products: extra.products } : {}),
		});
	const info = (sessionId: string) => engine.transcripts({ env }).list({ sessionId })[0];
	const excerpts = (id: string) => engine.transcripts({ env }).read(id)?.excerpts ?? [];
	return { engine, root, home, chatLog, clineUi, run, info, excerpts };
}

test('VS Code’s chat sessions and Cline’s and Roo Code’s tasks become Baton sessions, read-only; a dry run writes nothing; a second run changes nothing', async (t) => {
	const { engine, root, home, run, info } = await setUp(t);
	const before = snapshot(home);
	const dry = await run({ dryRun: true });
	assert.deepEqual(
		Object.fromEntries(Object.entries(dry.agents).map(([a, c]) => [a, [c.found, c.imported]])),
		{ copilot: [2, 2], cline: [2, 2] },
		JSON.stringify(dry),
	);
	assert.equal(await engine.store.read((db) => db.select().from(sessions).all().length), 0, 'a dry run writes no session');

	const first = await run();
	assert.deepEqual(first.sessions.map((s) => [s.agent, s.product, s.agentSessionId, s.outcome]).sort(), [
		['cline', 'cline', clineId, 'imported'],
		['cline', 'roo-code', rooId, 'imported'],
		['copilot', 'vscode', jsonId, 'imported'],
		['copilot', 'vscode', logId, 'imported'],
	]);
	const byId = (id: string) => first.sessions.find((s) => s.agentSessionId === id)?.sessionId ?? '';
	// The counts of the fixtures' README (test/fixtures/real/README.md, "VS Code chat sessions", "Cline tasks").
	const chat = info(byId(logId));
	assert.deepEqual([chat?.userRequests, chat?.toolCalls, chat?.filesTouched, chat?.title], [2, 4, ['jokes.csv'], 'Adding a joke to jokes.csv file']);
	const older = info(byId(jsonId));
	assert.deepEqual([older?.userRequests, older?.toolCalls, older?.filesTouched], [3, 3, ['index.ts']]);
	const task = info(byId(clineId));
	assert.deepEqual([task?.userRequests, task?.toolCalls, task?.filesTouched.length], [7, 67, 17]);
	assert.equal(task?.tokens['claude-opus-4-6']?.output, 51905);
	const roo = info(byId(rooId));
	assert.deepEqual([roo?.userRequests, roo?.filesTouched], [1, ['README.md']]);

	const rows = await engine.store.read((db) => db.select().from(sessions).all());
	const row = (id: string) => rows.find((r) => r.id === byId(id));
	assert.deepEqual([row(logId)?.agent, row(logId)?.agentIdentifier, row(logId)?.status], ['copilot', logId, 'ended']);
	assert.equal(row(rooId)?.name, 'write the docs', 'named by its first request');
	assert.equal(row(clineId)?.startedAt, '2026-02-08T19:02:52.307Z', 'from its first message');
	const aliases = await engine.store.read((db) => db.select().from(sessionAliases).all());
	assert.deepEqual(
		aliases.map((a) => `${a.agent}:${a.alias}`).sort(),
		[`cline:${clineId}`, `cline:${rooId}`, `copilot:${jsonId}`, `copilot:${logId}`].sort(),
	);

	assert.deepEqual(snapshot(home), before, 'no agent file was written: bytes and mtimes as they were');
	await assertSecondRunChangesNothing(root, () => run());
});

test('a file written again is read whole again and its excerpts replace the ones read before, never appended twice', async (t) => {
	const { run, info, excerpts, chatLog, clineUi } = await setUp(t);
	const first = await run();
	const byId = (id: string) => first.sessions.find((s) => s.agentSessionId === id)?.sessionId ?? '';
	const chatExcerpts = excerpts(logId).length;
	const taskExcerpts = excerpts(clineId).length;

	// VS Code pushes the next request onto the log (a mutation of the first line's state: only the whole log means anything).
	const request = {
		requestId: 'request_next',
		timestamp: 1770583500000,
		message: { text: 'and one more joke', parts: [] },
		response: [{ value: 'Added.' }],
		modelId: 'copilot/gpt-4o',
	};
	fs.appendFileSync(chatLog, `${JSON.stringify({ kind: 2, k: ['requests'], v: [request] })}\n`);
	// Cline writes its ui_messages.json whole again with the person's next message.
	const messages = JSON.parse(fs.readFileSync(clineUi, 'utf8')) as unknown[];
	messages.push({ ts: 1770586600000, type: 'say', say: 'user_feedback', text: 'now the README too' });
	fs.writeFileSync(clineUi, JSON.stringify(messages));
	const grown = await run();
	assert.deepEqual(Object.fromEntries(grown.sessions.map((s) => [s.agentSessionId, s.outcome])), {
		[clineId]: 'updated',
		[jsonId]: 'unchanged',
		[logId]: 'updated',
		[rooId]: 'unchanged',
	});
	assert.equal(info(byId(logId))?.userRequests, 3, 'the requests read before are not counted twice');
	assert.equal(info(byId(clineId))?.userRequests, 8);
	assert.equal(excerpts(logId).length, chatExcerpts + 2, 'the new request and its answer, the rest replaced');
	assert.equal(excerpts(clineId).length, taskExcerpts + 1);
	const asks = excerpts(logId).filter((e) => e.type === 'user');
	assert.equal(new Set(asks.map((e) => (e.type === 'user' ? e.text : ''))).size, asks.length, 'no request archived twice');

	// Touched but not changed: read again (its time moved), the same excerpts.
	const later = new Date('2027-01-01T00:00:00.000Z');
	fs.utimesSync(clineUi, later, later);
	const touched = await run({ agents: ['cline'] });
	assert.equal(touched.sessions.find((s) => s.agentSessionId === clineId)?.outcome, 'updated');
	assert.equal(excerpts(clineId).length, taskExcerpts + 1);
	assert.equal(info(byId(clineId))?.userRequests, 8);
});

test('a VS Code chat or Cline task a hook recorded is linked by its id, never duplicated; Roo Code alone and --since narrow it', async (t) => {
	const { engine, run } = await setUp(t);
	// VS Code's agent hooks send the chat's `sessionId`, Cline's `taskId`: the hook runtime aliases them under copilot and cline.
	const vscode = await engine.sessions.start({ name: 'Copilot in VS Code', scope: 'global', agent: 'copilot', agentIdentifier: logId, actor });
	await engine.sessions.addAlias({ sessionId: vscode.session.id, agent: 'copilot', alias: logId, actor });
	await engine.sessions.end({ id: vscode.session.id, actor });
	const cline = await engine.sessions.start({ name: 'Cline task', scope: 'global', agent: 'cline', agentIdentifier: clineId, actor });
	await engine.sessions.addAlias({ sessionId: cline.session.id, agent: 'cline', alias: clineId, actor });

	assert.equal((await run({ since: '2999-01-01T00:00:00.000Z' })).sessions.length, 0, 'nothing changed since then');
	const onlyRoo = await run({ agents: ['cline'], products: { cline: ['roo-code'] } });
	assert.deepEqual(
		onlyRoo.sessions.map((s) => s.agentSessionId),
		[rooId],
	);
	const report = await run();
	const linked = report.sessions.filter((s) => s.linked);
	assert.deepEqual(Object.fromEntries(linked.map((s) => [s.agentSessionId, [s.sessionId, s.outcome]])), {
		[clineId]: [cline.session.id, 'updated'],
		[logId]: [vscode.session.id, 'updated'],
		[rooId]: [onlyRoo.sessions[0]?.sessionId, 'unchanged'],
	});
	const rows = await engine.store.read((db) => db.select().from(sessions).all());
	assert.equal(rows.filter((r) => r.agentIdentifier === logId).length, 1, 'one session for the VS Code chat');
	assert.equal(rows.filter((r) => r.agentIdentifier === clineId).length, 1, 'one for the Cline task');
	assert.equal(rows.find((r) => r.id === cline.session.id)?.status, 'active', 'a live session stays as the hook left it');
});

test('baton import agents --agent vscode|cline|roo-code --json (the bundled CLI): per-agent counts, --dry-run, then nothing new; chats VS Code’s hooks recorded are linked', async (t) => {
	assert.ok(fs.existsSync(cliPath), `${cliPath} is missing: run \`node esbuild.mjs\` first`);
	const root = tempDir(t, 'baton-history-products-cli-');
	assert.equal(baton(root, 'init').code, 0);
	const { home } = productHome(t, root);
	const env = {
		HOME: home,
		XDG_CONFIG_HOME: path.join(home, '.config'),
		XDG_DATA_HOME: path.join(home, '.local', 'share'),
		BATON_CLAUDE_HOME: path.join(home, '.claude'),
		CODEX_HOME: path.join(home, '.codex'),
		GEMINI_CLI_HOME: home,
		BATON_NO_DAEMON: '1',
	};
	// VS Code's agent hooks, as its documentation shows them (camelCase) and as current Copilot Chat sends them (Claude
	// Code's field names, microsoft/vscode-copilot-chat ChatHookService), both recorded as Copilot's today. A store an
	// older Baton wrote holds the second as Claude Code's (it was told by the field names): `--agent claude-code` writes
	// that record here, and the import must still link the chat to it.
	const common = JSON.parse(fs.readFileSync(path.join(real, 'copilot', 'vscode', 'common.json'), 'utf8')) as Record<string, unknown>;
	const documented = {
		...common,
		...JSON.parse(fs.readFileSync(path.join(real, 'copilot', 'vscode', 'SessionStart.json'), 'utf8')),
		cwd: root,
		sessionId: logId,
		hookEventName: 'SessionStart',
	};
	const current = { timestamp: '2026-02-08T19:00:00.000Z', hook_event_name: 'SessionStart', session_id: jsonId, cwd: root, source: 'new' };
	for (const [payload, agent] of [
		[documented, []],
		[current, ['--agent', 'claude-code']],
	] as const) {
		const hook = await batonAsync(root, ['hook', 'session-start', ...agent], { env, input: JSON.stringify(payload) });
		assert.equal(hook.code, 0, hook.stderr);
		// Ended, so the next chat's hook starts a session of its own instead of joining this one.
		assert.equal(baton(root, 'session', 'end').code, 0);
	}
	const hooked = JSON.parse(baton(root, 'session', 'list', '--json').stdout) as { sessions: { id: string; agent: string; agentIdentifier: string }[] };
	assert.deepEqual(
		hooked.sessions.map((s) => [s.agent, s.agentIdentifier]).sort(),
		[
			['claude-code', jsonId],
			['copilot', logId],
		],
		JSON.stringify(hooked),
	);
	const dry = await batonAsync(root, ['import', 'agents', '--agent', 'vscode', '--agent', 'roo-code', '--dry-run', '--json'], { env });
	assert.equal(dry.code, 0, dry.stderr);
	assert.deepEqual(Object.keys(dry.json['agents']), ['copilot', 'cline']);
	assert.deepEqual([dry.json['agents']['copilot'].imported, dry.json['agents']['copilot'].updated], [0, 2], 'both chats are the hooks’ sessions');
	assert.deepEqual(
		(dry.json['sessions'] as { product: string }[]).map((s) => s.product).sort(),
		['roo-code', 'vscode', 'vscode'],
		'roo-code asks for Roo Code’s tasks, not Cline’s',
	);
	const first = await batonAsync(root, ['import', 'agents', '--agent', 'copilot', '--agent', 'cline', '--json'], { env });
	assert.equal(first.code, 0, first.stderr);
	assert.deepEqual(first.json['agents']['cline'], { found: 2, imported: 2, updated: 0, unchanged: 0, skipped: 0, unknownRecords: 0, badLines: 0 });
	assert.equal(first.json['agents']['copilot'].imported, 0);
	const linked = Object.fromEntries(
		(first.json['sessions'] as { agentSessionId: string; sessionId: string; linked: boolean }[]).map((s) => [s.agentSessionId, s.sessionId]),
	);
	for (const s of hooked.sessions) assert.equal(linked[s.agentIdentifier], s.id, `${s.agentIdentifier}: the hook’s session`);
	const all = JSON.parse(baton(root, 'session', 'list', '--json').stdout) as { sessions: unknown[] };
	assert.equal(all.sessions.length, 4, 'two chats, a Cline task and a Roo Code task: no duplicate');
	const again = await batonAsync(root, ['import', 'agents', '--agent', 'roo', '--agent', 'cline'], { env });
	assert.match(again.stdout, /Cline\s+2 found: imported 0, updated 0, unchanged 2, skipped 0/);
});
