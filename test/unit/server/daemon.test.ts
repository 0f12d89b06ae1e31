import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { baton, daemonEnv, daemonPids, daemonWorkspace, endpoint, socketInodes, tcpListenerInodes, waitFor } from './daemonProcesses';

const sessionStart = (root: string): string =>
	JSON.stringify({ session_id: 'a1b2c3d4-0000-4000-8000-000000000001', hook_event_name: 'SessionStart', cwd: root, source: 'startup' });

function daemonLog(root: string): string {
	return fs.readFileSync(path.join(root, '.baton', 'logs', 'daemon.log'), 'utf8');
}

test('eight clients racing to start the backend (CLI, hooks, two editor backends) get one daemon', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	const server = path.join(path.dirname(cli), 'server.js');
	// An editor's backend names the extension's version, which is the CLI's: a daemon of another version
	// serves no CLI command or hook (they run on their own), and the race would test nothing.
	const version = (JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
	const editor = (): Promise<number | null> =>
		new Promise((resolve) => {
			const child = spawn(process.execPath, [server, '--daemon', '--workspace', root, '--baton-version', version], { env: daemonEnv(), stdio: 'ignore' });
			child.on('exit', (code) => resolve(code));
			// The winner keeps running: it answers for everyone once it is up.
			setTimeout(() => resolve(null), 15_000).unref();
		});
	const runs = await Promise.all([
		baton(cli, root, ['task', 'add', '--title', 'race 1', '--json']),
		baton(cli, root, ['task', 'add', '--title', 'race 2', '--json']),
		baton(cli, root, ['task', 'add', '--title', 'race 3', '--json']),
		baton(cli, root, ['task', 'add', '--title', 'race 4', '--json']),
		baton(cli, root, ['hook', 'session-start'], { input: sessionStart(root) }),
		baton(cli, root, ['hook', 'session-start'], { input: sessionStart(root) }),
		editor(),
		editor(),
	]);
	// Every part of the race, for a failure's message: what each client said and what the daemons logged.
	const story = (): string => {
		let log: string;
		try {
			log = daemonLog(root);
		} catch (error) {
			log = `(no daemon log: ${String(error)})`;
		}
		const said = runs.map(
			(run, i) =>
				`client ${i}: ${run === null ? 'still serving' : typeof run === 'number' ? `exit ${run}` : `exit ${run.code}; stdout ${run.stdout.trim()}; stderr ${run.stderr.trim()}`}`,
		);
		return `${said.join('\n')}\n--- daemon.log ---\n${log}`;
	};
	const [a, b, c, d, h1, h2] = runs as [...{ code: number | null; stdout: string; stderr: string }[]];
	for (const run of [a, b, c, d]) {
		assert.equal(run?.code, 0, story());
		assert.match(run?.stdout ?? '', /"title":"race \d"/, story());
	}
	for (const run of [h1, h2]) {
		assert.equal(run?.code, 0, story());
	}
	const pids = daemonPids(root);
	assert.equal(pids.length, 1, `daemons: ${pids.join(', ')}\n${story()}`);
	assert.equal(endpoint(root)?.pid, pids[0], story());
	// Every CLI command and hook ran in that one daemon, not in its own process.
	assert.equal(daemonLog(root).match(/cli\/run task add → exit 0/g)?.length, 4, story());
	assert.equal(daemonLog(root).match(/hook\/run hook session-start → exit 0/g)?.length, 2, story());
	const list = spawnSync(process.execPath, [cli, '--no-daemon', 'task', 'list', '--json'], { cwd: root, env: daemonEnv(), encoding: 'utf8' });
	assert.equal((JSON.parse(list.stdout) as { tasks: unknown[] }).tasks.length, 4, `${list.stdout}\n${list.stderr}\n${story()}`);
});

test('killing the daemon mid-request loses no acknowledged write; the clients fall back', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	assert.equal((await baton(cli, root, ['task', 'list'])).code, 0);
	const pid = endpoint(root)?.pid;
	assert.ok(pid && daemonPids(root).includes(pid));
	const runs = Array.from({ length: 12 }, (_, i) => baton(cli, root, ['task', 'add', '--title', `kill ${i}`, '--json']));
	// Some are answered, some are in flight, some not yet sent when the daemon dies.
	await waitFor(() => (daemonLog(root).match(/cli\/run task add/g)?.length ?? 0) >= 2, 20_000);
	process.kill(pid, 'SIGKILL');
	const results = await Promise.all(runs);
	// Every client is answered with success: by the daemon, by its own run after the daemon died, or
	// (when the daemon died after the command's write but before recording its output) with the ledger's
	// "already ran" notice and no output: the write stands and is not made twice.
	assert.ok(
		results.every((r) => r.code === 0),
		results.map((r) => r.stderr).join('\n'),
	);
	const list = spawnSync(process.execPath, [cli, '--no-daemon', 'task', 'list', '--json'], { cwd: root, env: daemonEnv(), encoding: 'utf8' });
	const tasks = (JSON.parse(list.stdout) as { tasks: { id: string; title: string }[] }).tasks;
	const stored = new Map(tasks.map((task) => [task.id, task.title]));
	results.forEach((r, i) => {
		if (r.stdout.trim() === '') {
			assert.match(r.stderr, /already ran/, `kill ${i}: no output and no notice`);
		} else {
			const task = (JSON.parse(r.stdout) as { task: { id: string; title: string } }).task;
			assert.equal(stored.get(task.id), task.title, `acknowledged ${task.id} is missing`);
		}
		assert.equal(tasks.filter((task) => task.title === `kill ${i}`).length, 1, `kill ${i} is stored exactly once`);
	});
	// And the next command starts a fresh daemon.
	assert.equal((await baton(cli, root, ['task', 'list'])).code, 0);
	assert.notEqual(endpoint(root)?.pid, pid);
	assert.equal(daemonPids(root).length, 1);
});

test('a stale endpoint file is detected: a dead pid, and a reused pid (a live unrelated process)', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
	const file = path.join(root, '.baton', 'daemon.json');
	const socket = path.join(root, '.baton', 'daemon.sock');
	fs.writeFileSync(
		file,
		JSON.stringify({ pid: Number(dead.stdout), socket, startedAt: new Date().toISOString(), version: 'x', instance: 'dead', workspace: root }),
	);
	fs.writeFileSync(path.join(root, '.baton', 'daemon.lock'), JSON.stringify({ pid: Number(dead.stdout), instance: 'dead', at: Date.now() }));
	const first = await baton(cli, root, ['task', 'add', '--title', 'after a dead pid']);
	assert.equal(first.code, 0, first.stderr);
	const fresh = endpoint(root);
	assert.ok(fresh && fresh.pid !== Number(dead.stdout) && daemonPids(root).includes(fresh.pid));
	assert.equal(daemonPids(root).length, 1);

	// A live process that is no daemon now holds the recorded pid.
	const unrelated = spawn('sleep', ['60'], { stdio: 'ignore' });
	t.after(() => unrelated.kill());
	spawnSync(process.execPath, [cli, 'daemon', 'stop'], { cwd: root, env: daemonEnv() });
	assert.ok(await waitFor(() => daemonPids(root).length === 0, 10_000));
	fs.writeFileSync(
		file,
		JSON.stringify({ pid: unrelated.pid, socket, startedAt: new Date().toISOString(), version: 'x', instance: 'reused', workspace: root }),
	);
	const second = await baton(cli, root, ['task', 'add', '--title', 'after a reused pid']);
	assert.equal(second.code, 0, second.stderr);
	const next = endpoint(root);
	assert.ok(next && next.pid !== unrelated.pid && daemonPids(root).includes(next.pid), JSON.stringify(next));
	assert.equal(unrelated.exitCode, null, 'the unrelated process is left alone');
	assert.match(daemonLog(root), /cli\/run task add → exit 0/);
});

test('the socket is 0600, other users are refused, and the daemon never listens on TCP for JSON-RPC: its one TCP listener is the hook endpoint, on 127.0.0.1', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	assert.equal((await baton(cli, root, ['task', 'list'])).code, 0);
	const info = endpoint(root);
	assert.ok(info);
	const stat = fs.statSync(info.socket);
	assert.ok(stat.isSocket());
	assert.equal(stat.mode & 0o777, 0o600);
	const listeners = tcpListenerInodes();
	const held = socketInodes(info.pid);
	assert.ok(held.length > 0);
	// The hook endpoint (hookHttp.ts) is the only one: bound to 127.0.0.1, and it answers JSON-RPC with a refusal.
	const tcp = held.filter((inode) => listeners.has(inode));
	assert.equal(tcp.length, 1, 'one TCP listener, the hook endpoint');
	const line = fs
		.readFileSync('/proc/net/tcp', 'utf8')
		.split('\n')
		.find((l) => l.trim().split(/\s+/)[9] === tcp[0]);
	assert.match(line ?? '', /^\s*\d+: 0100007F:/, 'on 127.0.0.1 only');
	const port = parseInt(/0100007F:([0-9A-F]{4})/.exec(line ?? '')?.[1] ?? '0', 16);
	const rpc = spawnSync(
		process.execPath,
		[
			'-e',
			`fetch('http://127.0.0.1:${port}/', {method:'POST', headers:{'content-type':'application/json'}, body: JSON.stringify({jsonrpc:'2.0', id:1, method:'daemon/status'})}).then(async (r)=>console.log(r.status, await r.text()))`,
		],
		{ encoding: 'utf8' },
	);
	assert.match(rpc.stdout, /^404 baton: no such hook/, `JSON-RPC over TCP is refused: ${rpc.stdout}${rpc.stderr}`);
	if (process.getuid?.() === 0) {
		// Root can try it for real as another user: connect(2) needs write permission on the socket.
		const other = spawnSync(
			process.execPath,
			[
				'-e',
				`require('net').connect(${JSON.stringify(info.socket)}).on('connect',()=>{console.log('connected');process.exit(0)}).on('error',(e)=>{console.log(e.code);process.exit(0)})`,
			],
			{
				uid: 65534,
				gid: 65534,
				encoding: 'utf8',
				cwd: '/',
			},
		);
		assert.equal(other.stdout.trim(), 'EACCES', other.stderr);
	}
	const status = spawnSync(process.execPath, [cli, 'daemon', 'status', '--json'], { cwd: root, env: daemonEnv(), encoding: 'utf8' });
	const parsed = JSON.parse(status.stdout) as { running: boolean; pid: number; socket: string; uptime: number; clients: number };
	assert.deepEqual({ running: parsed.running, pid: parsed.pid, socket: parsed.socket }, { running: true, pid: info.pid, socket: info.socket });
	assert.equal(typeof parsed.uptime, 'number');
	assert.equal(parsed.clients, 1);
});

test('the daemon shuts down after the idle time and the next command starts another; --no-daemon starts none', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	const none = await baton(cli, root, ['--no-daemon', 'task', 'list']);
	assert.equal(none.code, 0);
	const viaEnv = await baton(cli, root, ['task', 'list'], { env: { BATON_NO_DAEMON: '1' } });
	assert.equal(viaEnv.code, 0);
	assert.equal(daemonPids(root).length, 0);
	assert.equal((await baton(cli, root, ['task', 'list'], { env: { BATON_DAEMON_IDLE_MS: '1500' } })).code, 0);
	const pid = endpoint(root)?.pid;
	assert.ok(pid);
	assert.ok(await waitFor(() => daemonPids(root).length === 0, 15_000), 'still running after the idle time');
	assert.equal(endpoint(root), undefined, 'the endpoint file is removed');
	assert.equal(fs.existsSync(path.join(root, '.baton', 'daemon.lock')), false);
	const stopped = spawnSync(process.execPath, [cli, 'daemon', 'status', '--json'], { cwd: root, env: daemonEnv(), encoding: 'utf8' });
	assert.deepEqual(JSON.parse(stopped.stdout), { running: false });
});

test('a daemon a terminal started runs on that Node: it writes the user’s launcher with it, where one started on the editor’s binary warns and writes none', async (t) => {
	const PATH = `${path.dirname(process.execPath)}:/usr/bin:/bin`;
	const started = async (editorNode: boolean): Promise<{ root: string; home: string }> => {
		const { cli, root } = await daemonWorkspace(t);
		const home = path.join(root, '.baton', 'test-home');
		const env: Record<string, string> = { PATH, BATON_LAUNCHER_HOME: home, ...(editorNode ? { BATON_EDITOR_NODE: '1' } : {}) };
		assert.equal((await baton(cli, root, ['task', 'list'], { env })).code, 0);
		return { root, home };
	};
	const [terminal, editor] = await Promise.all([started(false), started(true)]);
	const launcher = (home: string): string => path.join(home, '.baton', 'bin', 'baton');
	const logged = (root: string): boolean => /launcher/.test(daemonLog(root));
	assert.ok(await waitFor(() => fs.existsSync(launcher(terminal.home)) && logged(editor.root), 20_000), 'each daemon refreshed the launcher once');
	assert.ok(fs.readFileSync(launcher(terminal.home), 'utf8').includes(fs.realpathSync(process.execPath)), 'the launcher runs the Node the terminal ran');
	assert.doesNotMatch(daemonLog(terminal.root), /was not written/);
	assert.match(daemonLog(editor.root), /the launcher agent hooks use was not written: No Node\.js 20\+ on PATH/);
	assert.equal(fs.existsSync(launcher(editor.home)), false);
});
