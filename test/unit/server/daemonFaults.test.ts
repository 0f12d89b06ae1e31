/**
 * Fault tests of the client/daemon connection, sized for CI (issue #30): many clients starting the
 * daemon at once, and a daemon stopped (SIGSTOP) while clients keep arriving. Each counts the writes
 * acknowledged, refused, spooled and lost (faultCounts.ts).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { countWrites, storedTitles } from './faultCounts';
import { baton, daemonPids, daemonWorkspace, endpoint, type Result } from './daemonProcesses';

function daemonLog(root: string): string {
	return fs.readFileSync(path.join(root, '.baton', 'logs', 'daemon.log'), 'utf8');
}

test('sixteen clients starting the daemon at once get one daemon and sixteen answers', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	const titles = Array.from({ length: 16 }, (_, i) => `start race ${i}`);
	const results = await Promise.all(titles.map((title) => baton(cli, root, ['task', 'add', '--title', title, '--json'])));
	const counts = countWrites(results, titles, storedTitles(cli, root));
	t.diagnostic(`start race: ${JSON.stringify(counts)}`);
	assert.deepEqual(
		counts,
		{ acknowledged: 16, refused: 0, spooled: 0, lost: 0, refusedButStored: 0, storedTwice: 0 },
		results.map((r) => r.stderr).join('\n'),
	);
	// One daemon was started (none lost an election and exited), and it ran every command: none ran
	// in a process of its own beside it.
	const log = daemonLog(root);
	assert.equal(log.match(/serving /g)?.length, 1, log);
	assert.doesNotMatch(log, /another daemon serves/);
	assert.equal(log.match(/cli\/run task add → exit 0/g)?.length, 16, log);
	assert.deepEqual(daemonPids(root), [endpoint(root)?.pid]);
	assert.equal(fs.existsSync(path.join(root, '.baton', 'daemon.starting')), false, 'the start claim is let go');
});

test('a daemon stopped (SIGSTOP) while clients arrive is noticed, ended and replaced; every write is acknowledged once', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	// A short silence bound keeps the test short; the default is 5 s (docs/daemon.md).
	const env = { BATON_DAEMON_ANSWER_MS: '2000' };
	assert.equal((await baton(cli, root, ['task', 'add', '--title', 'before the stop'], { env })).code, 0);
	const stopped = endpoint(root)?.pid;
	assert.ok(stopped && daemonPids(root).includes(stopped));
	process.kill(stopped, 'SIGSTOP');
	t.after(() => {
		try {
			process.kill(stopped, 'SIGKILL');
		} catch {
			// Ended by a client, as it should be.
		}
	});
	// `baton daemon status` says so, and only looks.
	const status = await baton(cli, root, ['daemon', 'status', '--json'], { env });
	assert.deepEqual(JSON.parse(status.stdout), { running: true, answering: false, pid: stopped }, status.stderr);
	assert.ok(daemonPids(root).includes(stopped), 'status ended nothing');
	// Clients keep arriving: some connect to the stopped daemon, later ones find it ended.
	const titles = Array.from({ length: 6 }, (_, i) => `while stopped ${i}`);
	const runs: Promise<Result>[] = [];
	for (const title of titles) {
		runs.push(baton(cli, root, ['task', 'add', '--title', title, '--json'], { env }));
		await new Promise((resolve) => setTimeout(resolve, 300));
	}
	const results = await Promise.all(runs);
	const counts = countWrites(results, titles, storedTitles(cli, root));
	t.diagnostic(`stopped daemon: ${JSON.stringify(counts)}`);
	assert.deepEqual(
		counts,
		{ acknowledged: 6, refused: 0, spooled: 0, lost: 0, refusedButStored: 0, storedTwice: 0 },
		results.map((r) => r.stderr).join('\n'),
	);
	// The person is told: the client that found it silent says what happened and what comes next.
	const told = results.filter((r) =>
		new RegExp(
			`the workspace daemon \\(pid ${stopped}\\) answered nothing for \\d+ s \\(stopped\\): it was ended and this command runs in its own process`,
		).test(r.stderr),
	);
	assert.ok(told.length >= 1, results.map((r) => r.stderr).join('\n'));
	assert.equal(daemonPids(root).includes(stopped), false, 'the stopped daemon was ended');
	// The next command has a daemon again, a new one.
	assert.equal((await baton(cli, root, ['task', 'list'], { env })).code, 0);
	const next = endpoint(root)?.pid;
	assert.ok(next && next !== stopped && daemonPids(root).includes(next));
});

test('a daemon busy in one long synchronous step is waited for, however long past the silence bound: the command runs once, in it', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	const env = { BATON_TEST_FAULTS: '1', BATON_DAEMON_ANSWER_MS: '1000' };
	assert.equal((await baton(cli, root, ['task', 'list'], { env })).code, 0);
	const daemon = endpoint(root)?.pid;
	// Eight seconds without a word, using the CPU: an import or a first push at scale. A client used to end it after six.
	const busy = await baton(cli, root, ['task', 'add', '--title', 'after a long step', '--json'], { env: { ...env, BATON_TEST_COMMAND_SPINS_MS: '8000' } });
	assert.equal(busy.code, 0, busy.stderr);
	assert.doesNotMatch(busy.stderr, /answered nothing/);
	assert.equal(endpoint(root)?.pid, daemon, 'the same daemon still serves');
	assert.ok(daemon && daemonPids(root).includes(daemon));
	assert.equal(daemonLog(root).match(/cli\/run task add → exit 0/g)?.length, 1, 'it ran the command, once');
	assert.deepEqual(storedTitles(cli, root), ['after a long step']);
});

test('a command that cannot have its turn in the daemon within the bound is refused, naming what holds the queue; nothing is run', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	// The daemon takes its bound from the environment of the client that starts it; the fault hook makes one command hold the queue.
	const env = { BATON_TEST_FAULTS: '1', BATON_DAEMON_QUEUE_MS: '1500' };
	assert.equal((await baton(cli, root, ['task', 'list'], { env })).code, 0);
	const slow = baton(cli, root, ['task', 'add', '--title', 'holds the queue'], { env: { ...env, BATON_TEST_COMMAND_HOLDS_MS: '15000' } });
	await new Promise((resolve) => setTimeout(resolve, 1_000));
	const titles = ['behind it 0', 'behind it 1'];
	const results = await Promise.all(titles.map((title) => baton(cli, root, ['task', 'add', '--title', title], { env })));
	assert.equal((await slow).code, 0);
	const counts = countWrites(results, titles, storedTitles(cli, root));
	t.diagnostic(`queue bound: ${JSON.stringify(counts)}`);
	assert.deepEqual(counts, { acknowledged: 0, refused: 2, spooled: 0, lost: 0, refusedButStored: 0, storedTwice: 0 });
	for (const result of results) {
		assert.match(
			result.stderr,
			/^baton: not run: it waited 2 s for its turn in the workspace daemon, behind `baton task add` \(running for \d+ s\) and [01] other command\(s\); nothing was done\. Run it again, or in a process of its own with --no-daemon$/m,
		);
	}
	// Run again with the queue free, they are done.
	for (const title of titles) {
		assert.equal((await baton(cli, root, ['task', 'add', '--title', title], { env })).code, 0);
	}
	assert.deepEqual(
		storedTitles(cli, root)
			.filter((title) => titles.includes(title))
			.sort(),
		titles,
	);
});
