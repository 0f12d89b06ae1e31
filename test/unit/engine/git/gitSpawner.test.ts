/**
 * Git calls through the spawner process (gitSpawner.ts) behave as direct ones: output, input of
 * many frames, failures and their messages, exit codes a caller accepts, timeouts. When the
 * spawner dies, the calls in flight fail with a clear error and later calls spawn directly; and a
 * process that uses it still exits on its own once its calls are done.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { gitCommand, GitTimeoutError, runGit, type GitRunOptions } from '../../../../src/engine/git/gitRunner';
import { activeGitSpawner, stopGitSpawner, useGitSpawner } from '../../../../src/engine/git/gitSpawner';
import { tempDir } from '../../helpers';

const env = { PATH: process.env['PATH'] ?? '', GIT_CONFIG_NOSYSTEM: '1', HOME: '/nonexistent', LC_ALL: 'C' };

/** The same call directly and through the spawner: what each settled with. */
async function both(args: string[], options: GitRunOptions): Promise<[unknown, unknown]> {
	const settle = (p: Promise<{ stdout: Buffer; stderr: string; code: number }>): Promise<unknown> =>
		p.then(
			(r) => ({ stdout: r.stdout.toString('base64'), stderr: r.stderr, code: r.code }),
			(e: Error) => ({ error: e.message }),
		);
	stopGitSpawner();
	const direct = await settle(runGit(args, options));
	assert.equal(await useGitSpawner().whenReady(), true);
	assert.ok(activeGitSpawner());
	const through = await settle(runGit(args, options));
	return [through, direct];
}

void describe('git spawner', () => {
	after(() => stopGitSpawner());

	void it('gives what a direct call gives: output, large input, failures, accepted exit codes', async (t) => {
		const dir = tempDir(t, 'baton-spawner-');
		execFileSync('git', ['init', '-q', dir], { env });
		const cwd = dir;
		// 5 MB of input: many frames of the spawner's protocol (64 KB each).
		const input = Buffer.alloc(5 << 20);
		for (let i = 0; i < input.length; i++) {
			input[i] = (i * 7919) % 251;
		}
		const [through, direct] = await both(['hash-object', '-w', '--stdin'], { cwd, env, input });
		assert.deepEqual(through, direct);
		const oid = Buffer.from((direct as { stdout: string }).stdout, 'base64')
			.toString()
			.trim();
		// And 5 MB of output, byte for byte.
		const [big, bigDirect] = await both(['cat-file', 'blob', oid], { cwd, env });
		assert.equal(Buffer.from((big as { stdout: string }).stdout, 'base64').equals(input), true);
		assert.deepEqual(big, bigDirect);
		// Output past a call's bound: git is stopped and the call fails the same way, holding nothing.
		const [capped, cappedDirect] = await both(['cat-file', 'blob', oid], { cwd, env, maxStdoutBytes: 1 << 20 });
		assert.deepEqual(capped, cappedDirect);
		assert.deepEqual(capped, { error: `git cat-file printed more than ${1 << 20} bytes` });
		const [fits, fitsDirect] = await both(['cat-file', 'blob', oid], { cwd, env, maxStdoutBytes: 5 << 20 });
		assert.deepEqual([fits, fitsDirect], [big, big]);
		// A promise as input, as the pull's readers use.
		const [later, laterDirect] = await both(['cat-file', '--batch-check'], {
			cwd,
			env,
			input: new Promise<string>((r) => setTimeout(() => r(`${oid}\nnope\n`), 50)),
		});
		assert.deepEqual(later, laterDirect);
		assert.match(Buffer.from((later as { stdout: string }).stdout, 'base64').toString(), /^[0-9a-f]{40} blob 5242880\nnope missing\n$/);
		// A failure's message (git's stderr), and an exit code the caller accepts.
		const [failed, failedDirect] = await both(['rev-parse', '--verify', 'no-such-ref'], { cwd, env });
		assert.deepEqual(failed, failedDirect);
		assert.match((failed as { error: string }).error, /git rev-parse failed \(exit 128\)/);
		fs.writeFileSync(path.join(dir, 'a'), 'a\n');
		fs.writeFileSync(path.join(dir, 'same'), 'a\n');
		fs.writeFileSync(path.join(dir, 'b'), 'b\n');
		const [same, sameDirect] = await both(['diff', '--no-index', '--quiet', 'a', 'same'], { cwd, env, okCodes: [1] });
		const [differs, differsDirect] = await both(['diff', '--no-index', '--quiet', 'a', 'b'], { cwd, env, okCodes: [1] });
		assert.deepEqual([same, differs], [sameDirect, differsDirect]);
		assert.deepEqual([(same as { code: number }).code, (differs as { code: number }).code], [0, 1]);
	});

	void it('names the git command in its messages, past git’s own options', async (t) => {
		assert.equal(gitCommand(['-c', 'credential.helper=', '-c', 'http.proxy=x', 'fetch', '--quiet']), 'fetch');
		assert.equal(gitCommand(['-C', '/repo', '--no-optional-locks', 'status', '-z']), 'status');
		assert.equal(gitCommand(['--version']), '--version');
		const cwd = tempDir(t, 'baton-spawner-');
		await assert.rejects(runGit(['-c', 'core.quotePath=false', 'rev-parse', '--verify', 'nothing'], { cwd, env }), /git rev-parse failed \(exit 128\)/);
	});

	void it('kills a call that runs past its timeout', async (t) => {
		const cwd = tempDir(t, 'baton-spawner-');
		execFileSync('git', ['init', '-q', cwd], { env });
		assert.equal(await useGitSpawner().whenReady(), true);
		// cat-file waits for input that never comes.
		await assert.rejects(
			runGit(['cat-file', '--batch'], { cwd, env, input: new Promise<string>(() => undefined), timeoutMs: 300 }),
			(e) => e instanceof GitTimeoutError,
		);
		// The spawner carries on.
		assert.equal((await runGit(['--version'], { cwd, env })).code, 0);
	});

	void it('fails the calls in flight when the spawner dies, and spawns directly after', async (t) => {
		const cwd = tempDir(t, 'baton-spawner-');
		execFileSync('git', ['init', '-q', cwd], { env });
		stopGitSpawner();
		const spawner = useGitSpawner();
		assert.equal(await spawner.whenReady(), true);
		assert.equal((await runGit(['--version'], { cwd, env })).code, 0);
		const inFlight = runGit(['cat-file', '--batch'], { cwd, env, input: new Promise<string>(() => undefined), timeoutMs: 30_000 });
		await new Promise((r) => setTimeout(r, 200));
		process.kill(spawner.pid as number, 'SIGKILL');
		await assert.rejects(inFlight, /the git spawner process ended while git ran/);
		assert.equal(activeGitSpawner(), undefined);
		const after = await runGit(['rev-parse', '--git-dir'], { cwd, env });
		assert.equal(after.stdout.toString().trim(), '.git');
	});

	void it('spawns directly while the spawner starts, and for good when it cannot start', async (t) => {
		const cwd = tempDir(t, 'baton-spawner-');
		execFileSync('git', ['init', '-q', cwd], { env });
		stopGitSpawner();
		const spawner = useGitSpawner(path.join(cwd, 'no-such-node'));
		// Called at once: the spawner is not ready (and never will be), so git runs directly.
		assert.equal((await runGit(['rev-parse', '--git-dir'], { cwd, env })).stdout.toString().trim(), '.git');
		assert.equal(await spawner.whenReady(), false);
		assert.equal(activeGitSpawner(), undefined);
		assert.equal((await runGit(['rev-parse', '--git-dir'], { cwd, env })).stdout.toString().trim(), '.git');
	});

	void it('lets a process that uses it exit once its calls are done', async (t) => {
		const dir = tempDir(t, 'baton-spawner-');
		const script = path.join(dir, 'use.ts');
		const source = path.resolve('src/engine/git');
		fs.writeFileSync(
			script,
			`import { runGit } from ${JSON.stringify(path.join(source, 'gitRunner'))};\nimport { useGitSpawner } from ${JSON.stringify(path.join(source, 'gitSpawner'))};\nvoid useGitSpawner().whenReady().then(async (ready) => {\n\tconst r = await runGit(['--version'], { cwd: ${JSON.stringify(dir)}, env: { PATH: process.env.PATH ?? '' } });\n\tconsole.log(ready ? 'through the spawner' : 'directly', r.stdout.toString().trim());\n});\n`,
		);
		const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
		let out = '';
		child.stdout.on('data', (d: Buffer) => (out += d.toString()));
		const exited = await new Promise<number | null>((resolve) => {
			const timer = setTimeout(() => {
				child.kill('SIGKILL');
				resolve(null);
			}, 20_000);
			child.on('exit', (code) => {
				clearTimeout(timer);
				resolve(code);
			});
		});
		assert.equal(exited, 0, 'the process exited by itself');
		assert.match(out, /^through the spawner git version /);
	});
});
