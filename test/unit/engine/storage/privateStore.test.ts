/**
 * `.baton/` is its user's only (issue #29): the journal holds decisions and hook prompts, the
 * archive holds transcripts. Every folder Baton creates there is 0700 and every file 0600, whether
 * the engine runs in the test's process or the built CLI runs in its own (no daemon), and a store
 * made before that is tightened when it is opened. As root (here and in CI), a process of user
 * `nobody` really tries to read it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { Engine } from '../../../../src/engine/engine';
import { LockFile } from '../../../../src/engine/storage/lockFile';
import { TranscriptArchive } from '../../../../src/engine/transcripts/transcriptArchive';
import { claudeProjectDir } from '../../../../src/engine/transcripts/claudeProjects';
import { TranscriptWriter } from '../transcripts/transcriptWriter';
import { cliPath } from '../../cli/cliRunner';
import { makeWorkspace } from '../checkpoints/gitFixtures';
import { actor, MemoryLogger, tempDir } from '../../helpers';

const agentId = '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33';
const nobody = { uid: 65534, gid: 65534 };
const isRoot = process.getuid?.() === 0;

/** A workspace any user may pass through and read (as most are): only Baton's own modes can keep others out of `.baton/`. */
function openWorkspace(t: TestContext): { base: string; root: string } {
	const base = tempDir(t, 'baton-private-');
	fs.chmodSync(base, 0o755);
	const root = path.join(base, 'ws');
	fs.mkdirSync(root);
	fs.chmodSync(root, 0o755);
	fs.writeFileSync(path.join(root, 'README.md'), 'public\n');
	fs.chmodSync(path.join(root, 'README.md'), 0o644);
	return { base, root };
}

/** Everything below `dir` (relative path → mode), not inside `shadow.git`: git sets the modes there. */
function modesBelow(dir: string): Map<string, number> {
	const out = new Map<string, number>();
	const walk = (folder: string, rel: string): void => {
		for (const name of fs.readdirSync(folder)) {
			const full = path.join(folder, name);
			const key = rel ? `${rel}/${name}` : name;
			const stat = fs.lstatSync(full);
			out.set(stat.isDirectory() ? `${key}/` : key, stat.mode);
			if (stat.isDirectory() && key !== 'shadow.git') {
				walk(full, key);
			}
		}
	};
	walk(dir, '');
	return out;
}

/** What in `.baton/` another user's permission bits let in: folders must be 0700 or tighter, files 0600 or tighter. */
function loose(dir: string): string[] {
	const problems: string[] = [];
	const own = fs.statSync(dir).mode & 0o777;
	if (own !== 0o700) {
		problems.push(`.baton/ is ${own.toString(8)}`);
	}
	for (const [rel, mode] of modesBelow(dir)) {
		const bits = mode & 0o777;
		const allowed = rel.endsWith('/') ? 0o700 : 0o600;
		if ((mode & fs.constants.S_IFMT) !== fs.constants.S_IFLNK && (bits & ~allowed) !== 0) {
			problems.push(`${rel} is ${bits.toString(8)}`);
		}
	}
	return problems;
}

function assertHas(dir: string, expected: string[]): void {
	const seen = [...modesBelow(dir).keys()];
	for (const rel of expected) {
		assert.ok(seen.includes(rel), `${rel} was written (saw ${seen.join(', ')})`);
	}
}

function cli(root: string, ...args: string[]): string {
	return run(root, { BATON_NO_DAEMON: '1' }, ...args);
}

/** `baton ARGS` through the workspace's daemon (started by the first). */
function viaDaemon(root: string, ...args: string[]): string {
	return run(root, { BATON_DAEMON_IDLE_MS: '3000' }, ...args);
}

function run(root: string, env: Record<string, string>, ...args: string[]): string {
	const run = spawnSync(process.execPath, [cliPath, ...args], {
		cwd: root,
		encoding: 'utf8',
		env: { ...process.env, BATON_ACTOR: 'test:cli', ...env },
	});
	assert.equal(run.status, 0, `baton ${args.join(' ')}: ${run.stderr}`);
	return run.stdout;
}

/** Runs `command` as user nobody; as root only (no other user can be had otherwise). */
function asNobody(command: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
	const run = spawnSync(command, args, { ...nobody, encoding: 'utf8', cwd: '/' });
	return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A store with a write, a compaction, a lock queue ticket and an archived transcript, all made in this process. Returns the ticket's mode. */
async function storeInProcess(base: string, root: string): Promise<number> {
	const engine = await Engine.open({ workspaceRoot: root, log: new MemoryLogger(), create: true, compactAfterBytes: 1 });
	try {
		await engine.tasks.add({ title: 'Rotate the signing keys', actor });
		assert.equal(await engine.maintain(), true, 'compaction wrote a new snapshot through a temp file');
	} finally {
		engine.close();
	}
	// A waiter takes a ticket in the lock's queue while another holds the lock.
	const lockFile = path.join(root, '.baton', 'baton.db.lock');
	const holder = new LockFile(lockFile, 5_000);
	await holder.acquire();
	const waiter = new LockFile(lockFile, 5_000);
	const waiting = waiter.acquire();
	const queue = `${lockFile}.queue`;
	while (!fs.existsSync(queue) || fs.readdirSync(queue).length === 0) {
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
	const [ticket] = fs.readdirSync(queue);
	const ticketMode = fs.statSync(path.join(queue, ticket as string)).mode & 0o777;
	holder.dispose();
	await waiting;
	waiter.dispose();

	const claudeHome = path.join(base, 'claude');
	const writer = new TranscriptWriter(agentId, root);
	writer.user('The staging password is in the vault; rotate it before the demo.');
	writer.assistant([{ text: 'Rotating it now.' }], { input_tokens: 10, output_tokens: 5 });
	writer.flush(path.join(claudeProjectDir(claudeHome, root), `${agentId}.jsonl`));
	const archive = new TranscriptArchive({ workspaceRoot: root, claudeHome, log: new MemoryLogger() });
	const report = await archive.sync({ link: async () => 'ses_20260301090000_abcdef' });
	assert.equal(report.synced.length, 1, 'the transcript was archived');
	return ticketMode;
}

void describe('the store is private', () => {
	void it('creates .baton/ 0700 and its files 0600 in process (store, compaction, lock queue, transcript archive)', async (t) => {
		const { base, root } = openWorkspace(t);
		const ticketMode = await storeInProcess(base, root);
		const dir = path.join(root, '.baton');
		assert.equal(ticketMode.toString(8), '600', 'a lock queue ticket (it exists only while its process waits)');
		assertHas(dir, [
			'.gitignore',
			'baton.db',
			'baton.db.journal',
			'baton.db.sum',
			'baton.db.prev',
			'transcripts/',
			'transcripts/index.json',
			`transcripts/ses_20260301090000_abcdef/${agentId}.jsonl`,
		]);
		assert.deepEqual(loose(dir), []);
	});

	void it('creates them private through the built CLI in its own process: init, writes, a checkpoint with its caches', (t) => {
		assert.ok(fs.existsSync(cliPath), `${cliPath} is missing: run \`node esbuild.mjs\` first`);
		const { root } = openWorkspace(t);
		makeWorkspace(root);
		cli(root, 'init');
		cli(root, 'task', 'add', '--title', 'Rotate the signing keys');
		cli(root, 'session', 'start', '--name', 'private');
		cli(root, 'decision', 'record', '--text', 'keys live in the vault', '--rationale', 'not in the repo');
		cli(root, 'checkpoint', 'create', '--message', 'before the rotation');
		const dir = path.join(root, '.baton');
		assertHas(dir, ['.gitignore', 'baton.db', 'baton.db.journal', 'baton.db.sum', 'machine.json', 'shadow.git/']);
		assert.deepEqual(loose(dir), []);
	});

	void it('creates them private through the daemon too, which keeps its starter’s umask for the person’s own files', (t) => {
		const { root } = openWorkspace(t);
		makeWorkspace(root);
		cli(root, 'init');
		viaDaemon(root, 'task', 'add', '--title', 'Rotate the signing keys');
		viaDaemon(root, 'session', 'start', '--name', 'private');
		viaDaemon(root, 'checkpoint', 'create', '--message', 'before the rotation');
		viaDaemon(root, 'connect', 'claude');
		viaDaemon(root, 'daemon', 'stop');
		const dir = path.join(root, '.baton');
		assertHas(dir, ['baton.db', 'baton.db.journal', 'machine.json', 'hook-secret', 'hook-http.json', 'logs/daemon.log', 'shadow.git/']);
		assert.deepEqual(
			loose(dir).filter((p) => !p.startsWith('daemon.')),
			[],
			'nothing of Baton’s own is open to others',
		);
		// What a command run in its own process would make: the umask's modes (this run's is 022 or narrower).
		const umask = process.umask();
		assert.equal((fs.statSync(path.join(root, '.claude')).mode & 0o777).toString(8), (0o777 & ~umask).toString(8), 'the agent’s folder');
		assert.equal(
			(fs.statSync(path.join(root, '.claude', 'settings.json')).mode & 0o777).toString(8),
			(0o666 & ~umask).toString(8),
			'its committed settings',
		);
		assert.equal(fs.statSync(path.join(root, '.claude', 'settings.local.json')).mode & 0o777, 0o600, 'the file with the secret stays private');
	});

	void it('tightens a store made before (0755 folders, 0644 files) when it is opened, and changes nothing else', async (t) => {
		const { base, root } = openWorkspace(t);
		await storeInProcess(base, root);
		const dir = path.join(root, '.baton');
		fs.mkdirSync(path.join(dir, 'shadow.git', 'objects'), { recursive: true });
		const outside = path.join(base, 'elsewhere.txt');
		fs.writeFileSync(outside, 'not Baton’s\n');
		fs.symlinkSync(outside, path.join(dir, 'link-out'));
		for (const [rel, mode] of modesBelow(dir)) {
			if ((mode & fs.constants.S_IFMT) !== fs.constants.S_IFLNK) {
				fs.chmodSync(path.join(dir, rel), rel.endsWith('/') ? 0o755 : 0o644);
			}
		}
		fs.chmodSync(dir, 0o755);
		fs.chmodSync(outside, 0o644);
		const bytes = new Map(
			[...modesBelow(dir).keys()]
				.filter((rel) => !rel.endsWith('/') && !rel.startsWith('shadow.git'))
				.map((rel) => [rel, fs.readFileSync(path.join(dir, rel), 'latin1')]),
		);
		assert.ok(loose(dir).length > 5, 'the old store is readable by others before it is opened');

		const engine = await Engine.open({ workspaceRoot: root, log: new MemoryLogger() });
		try {
			assert.equal((await engine.tasks.list({})).length, 1, 'the data is all there');
		} finally {
			engine.close();
		}
		assert.deepEqual(loose(dir), []);
		assert.equal(fs.statSync(path.join(dir, 'shadow.git')).mode & 0o777, 0o700, 'the shadow store folder is tightened');
		assert.equal(fs.statSync(path.join(dir, 'shadow.git', 'objects')).mode & 0o777, 0o755, 'inside it git keeps its own modes');
		assert.equal(fs.statSync(outside).mode & 0o777, 0o644, 'a symbolic link is not followed');
		for (const [rel, before] of bytes) {
			assert.equal(fs.readFileSync(path.join(dir, rel), 'latin1'), before, `${rel} is unchanged`);
		}
	});

	void it('keeps another local user out of the journal and the folder', async (t) => {
		const { base, root } = openWorkspace(t);
		await storeInProcess(base, root);
		const dir = path.join(root, '.baton');
		if (!isRoot) {
			// Only root can run a process as another user; these modes are what keeps them out.
			assert.deepEqual(loose(dir), []);
			return;
		}
		// The path is open to nobody up to the workspace: it reads a file there...
		const control = asNobody('cat', path.join(root, 'README.md'));
		assert.equal(control.status, 0, `nobody can reach the workspace (else this test proves nothing): ${control.stderr}`);
		assert.equal(control.stdout, 'public\n');
		// ...and only Baton's modes stop it at .baton/.
		for (const [command, target] of [
			['cat', path.join(dir, 'baton.db.journal')],
			['cat', path.join(dir, 'baton.db')],
			['ls', dir],
		] as const) {
			const run = asNobody(command, target);
			assert.notEqual(run.status, 0, `nobody ran ${command} ${target}: ${run.stdout}`);
			assert.match(run.stderr, /Permission denied/, `${command} ${target} fails for lack of permission (EACCES)`);
		}
		assert.deepEqual(loose(dir), []);
	});
});
