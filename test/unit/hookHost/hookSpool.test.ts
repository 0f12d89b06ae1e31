/**
 * The hook spool (docs/daemon.md, "The hook spool"), with real processes: the built CLI, its daemon,
 * the journal. Each fault test counts what became of every event: acknowledged (recorded by the hook
 * itself), spooled (and later drained), dropped and lost; lost must be 0 and nothing recorded twice.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { appendSpool, listSpool, spoolDir } from '../../../src/hookHost/hookSpool';
import { Engine } from '../../../src/engine/engine';
import { LockFile } from '../../../src/engine/storage/lockFile';
import { MemoryLogger } from '../helpers';
import { baton, claudeToolCall, daemonPids, daemonWorkspace, endpoint, waitFor, type Result } from '../server/daemonProcesses';

/** Short budgets, as in production: the daemon reached within 300 ms, the event handed over within the hook budget. */
const faultEnv = { BATON_DAEMON_BUDGET_MS: '300', BATON_HOOK_BUDGET_MS: '2000' };

function prompt(root: string, session: string, text: string): string {
	return JSON.stringify({
		session_id: session,
		cwd: root,
		hook_event_name: 'UserPromptSubmit',
		prompt: text,
		transcript_path: path.join(root, 'none.jsonl'),
	});
}

function sessionStart(root: string, session: string): string {
	return JSON.stringify({
		session_id: session,
		cwd: root,
		hook_event_name: 'SessionStart',
		source: 'startup',
		transcript_path: path.join(root, 'none.jsonl'),
	});
}

/** What the journal holds: every prompt's text and every step's tool call id, as often as each was recorded. */
async function recorded(root: string): Promise<{ prompts: string[]; steps: string[] }> {
	const engine = await Engine.open({ workspaceRoot: root, log: new MemoryLogger() });
	try {
		const rows = (kind: string): Record<string, unknown>[] =>
			(engine.store.sqlite.exec('SELECT body_json FROM shared_events WHERE kind = ?', [kind])[0]?.values ?? []).map(
				(r) => JSON.parse(String(r[0])) as Record<string, unknown>,
			);
		return { prompts: rows('timeline.prompt').map((b) => String(b['text'])), steps: rows('timeline.step').map((b) => String(b['toolUseId'])) };
	} finally {
		engine.close();
	}
}

function hooksLog(root: string): string {
	return fs.readFileSync(path.join(root, '.baton', 'logs', 'hooks.log'), 'utf8');
}

async function doctor(cli: string, root: string): Promise<{ spooled: number; drained: number; dropped: number }> {
	const run = await baton(cli, root, ['doctor', '--json']);
	assert.equal(run.code, 0, run.stderr);
	return (JSON.parse(run.stdout) as { spool: { spooled: number; drained: number; dropped: number } }).spool;
}

/** Runs commands (each drains the spool first) until the spool is empty. */
async function drainAll(cli: string, root: string): Promise<void> {
	for (let i = 0; i < 5 && listSpool(root).records.length > 0; i++) {
		const run = await baton(cli, root, ['session', 'list']);
		assert.equal(run.code, 0, run.stderr);
	}
	assert.deepEqual(listSpool(root).records, [], 'the spool drains');
}

/** Holds the journal's lock, as a process in the middle of a long write would: a hook in its own process then cannot record in time. */
async function holdJournalLock(t: TestContext, root: string): Promise<() => void> {
	const lock = new LockFile(path.join(root, '.baton', 'baton.db.lock'));
	await lock.acquire();
	let held = true;
	const release = (): void => {
		if (held) {
			held = false;
			lock.release();
		}
	};
	t.after(release);
	return release;
}

function exactlyOnce(expected: string[], got: string[], what: string): void {
	const missing = expected.filter((e) => !got.includes(e));
	const twice = expected.filter((e) => got.filter((g) => g === e).length > 1);
	assert.deepEqual({ missing, twice }, { missing: [], twice: [] }, `${what}: lost or recorded twice`);
}

test('a daemon killed at random while concurrent hooks send prompts and tool steps: every event is recorded exactly once', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	assert.equal((await baton(cli, root, ['session', 'list'])).code, 0, 'the daemon runs');
	const clients = 4;
	const prompts: string[] = [];
	const tools: string[] = [];
	let done = 0;
	let hooks = 0;
	const send = async (input: string, args: string[]): Promise<Result> => {
		const run = await baton(cli, root, ['hook', ...args], { input, env: faultEnv });
		hooks++;
		assert.equal(run.code, 0, run.stderr);
		return run;
	};
	const client = async (c: number): Promise<void> => {
		const session = `00000000-0000-4000-8000-00000000000${c}`;
		await send(sessionStart(root, session), ['session-start']);
		for (let i = 0; i < 3; i++) {
			const text = `prompt ${c}.${i}`;
			prompts.push(text);
			await send(prompt(root, session, text), ['user-prompt-submit']);
		}
		const id = `toolu_spool_${c}`;
		tools.push(id);
		await send(claudeToolCall(root, session, 'PreToolUse', id, `f${c}.ts`), ['pre-tool-use']);
		fs.writeFileSync(path.join(root, `f${c}.ts`), `export const id = '${id}';\n`);
		await send(claudeToolCall(root, session, 'PostToolUse', id, `f${c}.ts`), ['post-tool-use']);
		done++;
	};
	let kills = 0;
	const killer = (async () => {
		while (done < clients) {
			await new Promise((resolve) => setTimeout(resolve, 800 + Math.random() * 2_000));
			for (const pid of daemonPids(root)) {
				try {
					process.kill(pid, 'SIGKILL');
					kills++;
				} catch (error) {
					// Gone between the listing and the kill (it went idle, or an earlier kill was still being reaped).
					if ((error as NodeJS.ErrnoException).code !== 'ESRCH') {
						throw error;
					}
				}
			}
		}
	})();
	await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
	await killer;
	await drainAll(cli, root);
	const got = await recorded(root);
	const counts = await doctor(cli, root);
	// Every spooled event was drained, dropped or still waits.
	const spooled = counts.drained + counts.dropped + counts.spooled;
	t.diagnostic(
		`${hooks} hooks, daemon killed ${kills} times; acknowledged ${hooks - spooled}, spooled ${spooled}, drained ${counts.drained}, dropped ${counts.dropped}; ${got.prompts.length} prompts, ${got.steps.length} steps recorded`,
	);
	exactlyOnce(prompts, got.prompts, `prompts\n${hooksLog(root)}`);
	exactlyOnce(tools, got.steps, `tool steps\n${hooksLog(root)}`);
	assert.equal(counts.dropped, 0);
	assert.equal(counts.spooled, 0);
	assert.ok(kills > 0, 'the daemon was killed at least once');
});

test("a daemon killed between an event's first and second write: the event is recorded whole and once, by the copy that runs it next (a prompt, and a tool call the daemon had claimed by its id)", async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	const faults = { BATON_TEST_FAULTS: '1' };
	const session = '55555555-0000-4000-8000-000000000005';
	const texts = ['cut short', 'cut short again'];
	const tool = 'toolu_cut_short';
	/** Runs one hook with the daemon paused after the event's first write, and kills the daemon right there. */
	const cutShort = async (event: string, input: string, budget: Record<string, string> = {}): Promise<void> => {
		// The hook that starts the daemon with fault injection on (the drain's commands started one without).
		for (const pid of daemonPids(root)) {
			process.kill(pid, 'SIGKILL');
		}
		assert.equal((await baton(cli, root, ['hook', 'session-start'], { input: sessionStart(root, session), env: faults })).code, 0);
		assert.ok(endpoint(root)?.pid, 'the daemon runs, with fault injection on');
		const paused = (): number => (hooksLog(root).match(/paused \d+ ms after its first write/g) ?? []).length;
		const before = paused();
		// The client waits for a daemon still starting (a start after a kill may take seconds on a loaded machine) rather than running the event itself.
		const run = baton(cli, root, ['hook', event], {
			input,
			env: { ...faults, ...faultEnv, BATON_DAEMON_BUDGET_MS: '20000', ...budget, BATON_TEST_HOOK_PAUSE_MS: '120000' },
		});
		assert.ok(
			await waitFor(() => paused() > before, 60_000),
			`the daemon reached the pause\n${hooksLog(root)}\n--- daemon.log ---\n${fs.readFileSync(path.join(root, '.baton', 'logs', 'daemon.log'), 'utf8')}`,
		);
		for (const pid of daemonPids(root)) {
			process.kill(pid, 'SIGKILL');
		}
		const result = await run;
		assert.equal(result.code, 0, result.stderr);
		await drainAll(cli, root);
	};
	// A prompt is the session's activity, then its turn, then its name: the daemon stops after the first of these writes.
	for (const text of texts) {
		await cutShort('user-prompt-submit', prompt(root, session, text));
	}
	// A tool call is claimed by its id (hookClaims.ts) before it runs: the daemon that claimed it died, so the claim is no duplicate's.
	const pre = await baton(cli, root, ['hook', 'pre-tool-use'], {
		input: claudeToolCall(root, session, 'PreToolUse', tool, 'cut.ts'),
		env: { BATON_HOOK_BUDGET_MS: '60000' },
	});
	assert.equal(pre.code, 0, pre.stderr);
	fs.writeFileSync(path.join(root, 'cut.ts'), `export const id = '${tool}';\n`);
	// Its capture (a full scan in a fresh daemon) may take past 2 s on a loaded machine: what is tested here is the kill, not the budget.
	await cutShort('post-tool-use', claudeToolCall(root, session, 'PostToolUse', tool, 'cut.ts'), { BATON_HOOK_BUDGET_MS: '60000' });
	const got = await recorded(root);
	exactlyOnce(texts, got.prompts, `prompts\n${hooksLog(root)}`);
	exactlyOnce([tool], got.steps, `tool steps\n${hooksLog(root)}`);
	const counts = await doctor(cli, root);
	assert.deepEqual({ dropped: counts.dropped, spooled: counts.spooled }, { dropped: 0, spooled: 0 });
});

test('a stopped daemon (SIGSTOP): hooks return within their budget, and their events are drained after SIGCONT', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	assert.equal((await baton(cli, root, ['hook', 'session-start'], { input: sessionStart(root, '11111111-0000-4000-8000-000000000001') })).code, 0);
	const pid = endpoint(root)?.pid;
	assert.ok(pid && daemonPids(root).includes(pid));
	process.kill(pid, 'SIGSTOP');
	// And a writer holds the journal: the hooks' own processes cannot record in time either.
	const release = await holdJournalLock(t, root);
	let resumed = false;
	t.after(() => {
		if (!resumed) {
			process.kill(pid, 'SIGCONT');
		}
	});
	const texts = ['stopped 1', 'stopped 2', 'stopped 3'];
	const budgetMs = 2_000;
	const timings = await Promise.all(
		texts.map(async (text) => {
			const began = Date.now();
			const run = await baton(cli, root, ['hook', 'user-prompt-submit'], {
				input: prompt(root, '11111111-0000-4000-8000-000000000001', text),
				env: { ...faultEnv, BATON_HOOK_BUDGET_MS: String(budgetMs) },
			});
			assert.equal(run.code, 0, run.stderr);
			assert.equal(run.stdout, '');
			return Date.now() - began;
		}),
	);
	// Every hook returned while the daemon was still stopped and the lock still held: none waited on either.
	t.diagnostic(`hook times with the daemon stopped and the journal locked: ${timings.join(', ')} ms (budget ${budgetMs} ms)`);
	assert.equal(listSpool(root).records.length, texts.length, hooksLog(root));
	release();
	process.kill(pid, 'SIGCONT');
	resumed = true;
	// The daemon runs the requests it had and drains the spool: each event once.
	assert.ok(await waitFor(() => listSpool(root).records.length === 0, 60_000), 'the daemon drains the spool after SIGCONT');
	exactlyOnce(texts, (await recorded(root)).prompts, 'prompts');
	const counts = await doctor(cli, root);
	assert.deepEqual({ spooled: counts.spooled, drained: counts.drained, dropped: counts.dropped }, { spooled: 0, drained: texts.length, dropped: 0 });
});

test('a daemon busy past the budget: the hook spools its event, the daemon still runs it, and the spooled copy changes nothing', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	const faults = { BATON_TEST_FAULTS: '1' };
	const session = '44444444-0000-4000-8000-000000000004';
	assert.equal((await baton(cli, root, ['hook', 'session-start'], { input: sessionStart(root, session), env: faults })).code, 0);
	assert.ok(endpoint(root)?.pid, 'the daemon runs, with fault injection on');
	// The daemon gets to the request 4 s late; the hook's budget is 1.5 s.
	const run = await baton(cli, root, ['hook', 'user-prompt-submit'], {
		input: prompt(root, session, 'late'),
		env: { ...faults, ...faultEnv, BATON_HOOK_BUDGET_MS: '1500', BATON_TEST_DAEMON_SLOW_MS: '4000' },
	});
	assert.equal(run.code, 0, run.stderr);
	assert.match(hooksLog(root), /spooled \(the daemon did not answer within the budget\)/);
	// The daemon gets both copies (the live request, the spooled record; a prompt names no event, so both carry the client's id): one records it, the other finds the id recorded.
	assert.ok(await waitFor(() => listSpool(root).records.length === 0, 60_000), 'the daemon drains the spool');
	assert.ok(await waitFor(() => /already recorded \(hook:/.test(hooksLog(root)), 30_000), hooksLog(root));
	exactlyOnce(['late'], (await recorded(root)).prompts, 'prompts');
});

test('a session start has the longer budget: with the daemon 4 s late it still answers its briefing, where a prompt is spooled', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	const faults = { BATON_TEST_FAULTS: '1' };
	assert.equal(
		(await baton(cli, root, ['hook', 'session-start'], { input: sessionStart(root, '77777777-0000-4000-8000-000000000007'), env: faults })).code,
		0,
	);
	assert.ok(endpoint(root)?.pid, 'the daemon runs, with fault injection on');
	// The general budget is 1.5 s; a session start's is 10 s (hookBudget.ts). The daemon gets to each request 4 s late.
	const late = { ...faults, ...faultEnv, BATON_HOOK_BUDGET_MS: '1500', BATON_TEST_DAEMON_SLOW_MS: '4000' };
	const start = await baton(cli, root, ['hook', 'session-start'], { input: sessionStart(root, '88888888-0000-4000-8000-000000000008'), env: late });
	assert.equal(start.code, 0, start.stderr);
	assert.match(start.stdout, /"additionalContext"/, `the agent got its briefing\n${hooksLog(root)}`);
	assert.doesNotMatch(hooksLog(root), /spooled/);
	const run = await baton(cli, root, ['hook', 'user-prompt-submit'], {
		input: prompt(root, '88888888-0000-4000-8000-000000000008', 'late prompt'),
		env: late,
	});
	assert.equal(run.code, 0, run.stderr);
	assert.equal(run.stdout, '', 'a prompt answers nothing');
	assert.match(hooksLog(root), /spooled \(the daemon did not answer within the budget\)/);
	assert.ok(await waitFor(() => listSpool(root).records.length === 0, 60_000), 'the daemon drains the spool');
	exactlyOnce(['late prompt'], (await recorded(root)).prompts, 'prompts');
});

test('a torn spool record is dropped with a warning; the intact one is drained; doctor counts both', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	const session = '22222222-0000-4000-8000-000000000002';
	assert.equal((await baton(cli, root, ['hook', 'session-start', '--no-daemon'], { input: sessionStart(root, session) })).code, 0);
	const record = (text: string, id: string): Parameters<typeof appendSpool>[1] => ({
		eventId: id,
		at: Date.now(),
		argv: ['hook', 'user-prompt-submit'],
		cwd: root,
		env: {},
		stdin: prompt(root, session, text),
	});
	const torn = appendSpool(root, record('torn', 'torn-id'), 1 << 20);
	const intact = appendSpool(root, record('intact', 'intact-id'), 1 << 20);
	assert.ok(torn.ok && intact.ok);
	// A crash (or a power loss) cut the first record short.
	fs.truncateSync(torn.file, fs.statSync(torn.file).size - 7);
	assert.deepEqual(await doctor(cli, root), {
		spooled: 2,
		drained: 0,
		dropped: 0,
		bytes: listSpool(root).records.reduce((n, f) => n + fs.statSync(path.join(spoolDir(root), f)).size, 0),
	});
	const list = await baton(cli, root, ['session', 'list', '--no-daemon']);
	assert.equal(list.code, 0, list.stderr);
	assert.match(hooksLog(root), /spool: dropped \S+\.rec: torn: \d+ of \d+ bytes/);
	assert.deepEqual((await recorded(root)).prompts, ['intact']);
	const counts = await doctor(cli, root);
	assert.deepEqual({ spooled: counts.spooled, drained: counts.drained, dropped: counts.dropped }, { spooled: 0, drained: 1, dropped: 1 });
	const text = await baton(cli, root, ['doctor']);
	assert.match(text.stdout, /hook spool: 0 spooled \(waiting, 0 bytes\), 1 drained, 1 dropped/);
});

test('a full spool: the hook drops its event at once, exits 0, says so on stderr and in the log, and doctor counts it', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	const session = '33333333-0000-4000-8000-000000000003';
	assert.equal((await baton(cli, root, ['hook', 'session-start'], { input: sessionStart(root, session) })).code, 0);
	const pid = endpoint(root)?.pid;
	assert.ok(pid);
	process.kill(pid, 'SIGSTOP');
	t.after(() => process.kill(pid, 'SIGCONT'));
	const release = await holdJournalLock(t, root);
	// A spool of 1200 bytes holds one of these records (about 900 bytes) and not two.
	const env = { ...faultEnv, BATON_HOOK_SPOOL_MAX_BYTES: '1200', BATON_HOOK_BUDGET_MS: '1000' };
	const first = await baton(cli, root, ['hook', 'user-prompt-submit'], { input: prompt(root, session, 'fits'), env });
	assert.equal(first.code, 0);
	assert.equal(first.stderr, '');
	const second = await baton(cli, root, ['hook', 'user-prompt-submit'], { input: prompt(root, session, 'does not fit'), env });
	assert.equal(second.code, 0);
	assert.match(second.stderr, /baton: hook event not recorded: the spool is full \(\d+ bytes waiting, this event \d+ bytes, limit 1200 bytes\)/);
	assert.match(hooksLog(root), /event dropped \(.*, and the spool is full/);
	release();
	const counts = await doctor(cli, root);
	assert.deepEqual({ spooled: counts.spooled, dropped: counts.dropped }, { spooled: 1, dropped: 1 });
});
