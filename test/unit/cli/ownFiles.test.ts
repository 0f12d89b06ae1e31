/**
 * A repository can carry `.baton/` files (a `git add -f`, an archive of someone's workspace): what they
 * say is someone else's choice (engine/ownFiles.ts). Through the built CLI, as a clone meets them:
 * a hook secret, hook port and machine id written by git (its modes, 0644) are replaced by this
 * machine's own; an endpoint file that is not this user's own sends nothing to the socket it names;
 * and a silent socket's pid is ended only when it runs this workspace's daemon. The secret's file,
 * its temp file and its backups stay private and out of git.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { tempDir } from '../helpers';
import { agentCli, runBaton } from './agentCli';

const plantedSecret = 'a'.repeat(64);

function workspace(t: TestContext): { root: string; cli: Promise<string> } {
	const root = fs.realpathSync(tempDir(t, 'baton-own-'));
	spawnSync('git', ['init', '-q', root]);
	return { root, cli: agentCli() };
}

/** Writes `.baton/<name>` as a checkout does: the umask's mode (0644 here), whatever it holds. */
function plant(root: string, name: string, text: string): void {
	fs.mkdirSync(path.join(root, '.baton'), { recursive: true });
	fs.writeFileSync(path.join(root, '.baton', name), text, { mode: 0o644 });
	fs.chmodSync(path.join(root, '.baton', name), 0o644);
}

const mode = (file: string): string => (fs.statSync(file).mode & 0o777).toString(8);

/** A socket that takes connections and answers nothing, counting them. */
async function silentSocket(t: TestContext, file: string): Promise<{ connections: () => number }> {
	let count = 0;
	const held: net.Socket[] = [];
	const server = net.createServer((socket) => {
		count++;
		held.push(socket);
	});
	await new Promise<void>((resolve) => server.listen(file, resolve));
	t.after(() => {
		for (const s of held) s.destroy();
		server.close();
	});
	return { connections: () => count };
}

/** `baton ARGS` asynchronously (this process serves the silent socket meanwhile). */
function batonAsync(cli: string, root: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [cli, ...args], {
			cwd: root,
			env: { ...process.env, BATON_ACTOR: 'test:own', BATON_DAEMON_IDLE_MS: '3000', ...env },
		});
		let stderr = '';
		child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
		child.stdout.resume();
		child.on('close', (code) => resolve({ code, stderr }));
	});
}

/**
 * A workspace whose `.baton/daemon.json` (written with `mode`) names a silent socket of this process's
 * and a bystander `sleep`; then `baton task list`, run with a 1 s bound on the daemon's silence.
 */
async function endpointNaming(t: TestContext, mode: number) {
	const { root, cli: built } = workspace(t);
	const cli = await built;
	assert.equal((await batonAsync(cli, root, ['init'], { BATON_NO_DAEMON: '1' })).code, 0);
	const file = path.join(root, '.baton', 'named.sock');
	const socket = await silentSocket(t, file);
	const bystander: ChildProcess = spawn('sleep', ['60'], { stdio: 'ignore' });
	t.after(() => bystander.kill('SIGKILL'));
	plant(root, 'daemon.json', `${JSON.stringify({ pid: bystander.pid, socket: file, instance: 'named', workspace: root, version: 'unknown' })}\n`);
	fs.chmodSync(path.join(root, '.baton', 'daemon.json'), mode);
	const run = await batonAsync(cli, root, ['task', 'list'], { BATON_DAEMON_ANSWER_MS: '1000' });
	return { cli, root, socket, bystander, run };
}

void describe('this machine’s own files in .baton/', () => {
	void it('a hook secret, hook port and machine id a checkout wrote are replaced by this machine’s; the secret stays private and out of git', async (t) => {
		const { root, cli: built } = workspace(t);
		const cli = await built;
		plant(root, 'hook-secret', `${plantedSecret}\n`);
		plant(root, 'hook-http.json', '{"port":1}\n');
		plant(root, 'machine.json', '{"id":"deadbeef"}\n');
		const baton = (...args: string[]) => runBaton(cli, root, args, { env: { BATON_NO_DAEMON: '1' } });
		const init = baton('init');
		assert.equal(init.code, 0, init.stderr);
		// Before the store makes .baton/ private (which would give the copies the mode of Baton's own).
		assert.match(
			init.stderr,
			/removed \.baton\/hook-secret \(mode 644: open to others, so not written by Baton\), \.baton\/hook-http\.json .*\.baton\/machine\.json .*Baton makes its own/,
		);
		assert.equal(baton('connect', 'claude').code, 0);
		const local = path.join(root, '.claude', 'settings.local.json');
		const settings = fs.readFileSync(local, 'utf8');
		assert.doesNotMatch(settings, new RegExp(plantedSecret), 'the secret whoever committed it knows is not used');
		assert.doesNotMatch(settings, /127\.0\.0\.1:1\//, 'nor the port they chose');
		const secret = fs.readFileSync(path.join(root, '.baton', 'hook-secret'), 'utf8').trim();
		assert.match(secret, /^[0-9a-f]{64}$/);
		assert.ok(settings.includes(`Bearer ${secret}`));
		assert.equal(mode(path.join(root, '.baton', 'hook-secret')), '600');
		assert.equal(mode(local), '600');
		assert.equal(baton('session', 'start', '--name', 'here').code, 0);
		const machine = JSON.parse(fs.readFileSync(path.join(root, '.baton', 'machine.json'), 'utf8')) as { id: string };
		assert.notEqual(machine.id, 'deadbeef', 'this clone pushes as itself, not as the machine whose file it carried');
		assert.equal(mode(path.join(root, '.baton', 'machine.json')), '600');

		// Another port makes Baton update the file (with a backup, which holds the secret too): git sees neither.
		fs.writeFileSync(path.join(root, '.baton', 'hook-http.json'), '{"port":23456}\n', { mode: 0o600 });
		assert.equal(baton('connect', 'claude').code, 0);
		const backups = fs.readdirSync(path.join(root, '.claude')).filter((n) => n.startsWith('settings.local.json.baton-backup-'));
		assert.equal(backups.length, 1);
		assert.equal(mode(path.join(root, '.claude', backups[0] as string)), '600');
		const untracked = (): string =>
			spawnSync('git', ['status', '--porcelain', '-uall'], { cwd: root, encoding: 'utf8' })
				.stdout.split('\n')
				.filter((l) => l.includes('settings.local'))
				.join('\n');
		assert.equal(untracked(), '', 'neither the file nor its backup is one git would add');
		assert.equal(baton('connect', 'claude', '--remove').code, 0);
		assert.equal(fs.existsSync(local), false);
		assert.equal(untracked(), '', 'a backup left after a disconnect is still not one git would add');
		assert.equal(fs.readdirSync(path.join(root, '.claude')).filter((n) => n.includes('.baton-tmp-')).length, 0);
	});

	void it('a clone made with umask 077 carries them 0600, this user’s: git tracking them is what tells them from Baton’s', async (t) => {
		const { root: origin, cli: built } = workspace(t);
		const cli = await built;
		plant(origin, 'hook-secret', `${plantedSecret}\n`);
		plant(origin, 'machine.json', '{"id":"deadbeef"}\n');
		const git = (cwd: string, ...args: string[]) =>
			spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8' });
		assert.equal(git(origin, 'add', '-f', '.baton').status, 0);
		assert.equal(git(origin, 'commit', '-q', '-m', 'carries .baton').status, 0);
		const clone = path.join(fs.realpathSync(tempDir(t, 'baton-own-clone-')), 'clone');
		const cloned = spawnSync('sh', ['-c', 'umask 077 && git clone -q "$0" "$1"', origin, clone], { encoding: 'utf8' });
		assert.equal(cloned.status, 0, cloned.stderr);
		assert.equal(mode(path.join(clone, '.baton', 'hook-secret')), '600', 'the checkout wrote it as Baton would');
		const init = runBaton(cli, clone, ['init'], { env: { BATON_NO_DAEMON: '1' } });
		assert.equal(init.code, 0, init.stderr);
		assert.match(init.stderr, /removed \.baton\/hook-secret \(tracked by git: a checkout wrote it\), \.baton\/machine\.json \(tracked by git/);
		assert.match(
			init.stderr,
			/this repository tracks those paths: run `git rm --cached \.baton\/hook-secret \.baton\/machine\.json` so this machine's never goes into a commit/,
		);
		assert.equal(runBaton(cli, clone, ['connect', 'claude'], { env: { BATON_NO_DAEMON: '1' } }).code, 0);
		assert.doesNotMatch(fs.readFileSync(path.join(clone, '.claude', 'settings.local.json'), 'utf8'), new RegExp(plantedSecret));
		assert.equal(runBaton(cli, clone, ['session', 'start', '--name', 'here'], { env: { BATON_NO_DAEMON: '1' } }).code, 0);
		const machineId = (): string => (JSON.parse(fs.readFileSync(path.join(clone, '.baton', 'machine.json'), 'utf8')) as { id: string }).id;
		const own = { secret: fs.readFileSync(path.join(clone, '.baton', 'hook-secret'), 'utf8'), machine: machineId() };
		assert.notEqual(own.machine, 'deadbeef');
		// git's index still lists both paths: Baton's own files there, which differ from it, are kept at every later opening.
		const later = runBaton(cli, clone, ['session', 'end', '--note', 'done'], { env: { BATON_NO_DAEMON: '1' } });
		assert.equal(later.code, 0, later.stderr);
		assert.doesNotMatch(later.stderr, /removed/);
		assert.equal(fs.readFileSync(path.join(clone, '.baton', 'hook-secret'), 'utf8'), own.secret, 'the secret Claude’s settings name stays');
		assert.equal(machineId(), own.machine, 'this clone keeps pushing as one machine');
	});

	void it('an endpoint file that is not this user’s own is not followed: its socket gets nothing', async (t) => {
		// As a checkout writes it (0644), naming a socket that takes connections and answers nothing.
		const { cli, root, socket, bystander, run } = await endpointNaming(t, 0o644);
		assert.equal(run.code, 0, run.stderr);
		assert.equal(socket.connections(), 0, 'no command line, environment or input went to the socket it names');
		assert.equal(bystander.exitCode ?? bystander.signalCode, null, 'nor was the pid it names ended');
		await batonAsync(cli, root, ['daemon', 'stop']);
	});

	void it('a silent socket’s pid is ended only when the system says it runs this workspace’s daemon', async (t) => {
		// This user's own file (a stale one, or one whose pid was reused) naming some other process of this user's.
		const { cli, root, socket, bystander, run } = await endpointNaming(t, 0o600);
		assert.equal(run.code, 0, run.stderr);
		assert.ok(socket.connections() > 0, 'its own socket was tried');
		assert.match(run.stderr, /pid \d+\) answered nothing .*: that pid runs no daemon of this workspace, so it was left alone/);
		assert.equal(bystander.exitCode ?? bystander.signalCode, null, 'the process the file named still runs');
		await batonAsync(cli, root, ['daemon', 'stop']);
	});
});
