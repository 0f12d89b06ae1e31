import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parseLockfile } from '../../../../src/engine/environment/lockfilePackages';
import { redactArgs } from '../../../../src/engine/environment/readMcpServers';
import { actor, tempDir } from '../../helpers';
import { createSettled, openCheckpointEngine, probeGate, userGit, write } from '../checkpoints/gitFixtures';

function fakeBin(dir: string, name: string, script: string): string {
	const file = path.join(dir, name);
	fs.writeFileSync(file, `#!/bin/sh\n${script}\n`, { mode: 0o755 });
	return file;
}

void describe('environment capture', () => {
	void it('records agent CLIs with binary hashes, runtimes, MCP servers without secrets, lockfile packages and git state', async (t) => {
		const bin = tempDir(t, 'baton-bin-');
		const claude = fakeBin(bin, 'claude', 'echo "2.1.3 (Claude Code)"');
		fakeBin(bin, 'node', 'echo v22.1.0');
		// Time enough for every probe on a loaded machine: one that runs out is recorded without its hash.
		const { engine, root } = await openCheckpointEngine(t, { searchPath: bin, config: { checkpoints: { environmentTimeout: 120_000 } } });
		write(
			root,
			'.mcp.json',
			JSON.stringify({
				mcpServers: {
					github: {
						command: 'npx',
						args: ['-y', '@mcp/github', '--token', 'ghp_abcdefghijklmnopqrstuvwxyz012345'],
						env: { GITHUB_TOKEN: 'ghp_secretsecretsecretsecret0123' },
					},
				},
			}),
		);
		write(
			root,
			'.vscode/mcp.json',
			'{\n  // VS Code allows comments\n  "servers": { "docs": { "type": "http", "url": "https://user:pw@mcp.example.com/mcp?key=abc123" }, },\n}\n',
		);
		write(root, 'package.json', JSON.stringify({ dependencies: { zod: '^4.0.0' }, devDependencies: { typescript: '^5.0.0' } }));
		write(
			root,
			'package-lock.json',
			JSON.stringify({
				lockfileVersion: 3,
				packages: {
					'': {},
					'node_modules/zod': { version: '4.6.7' },
					'node_modules/typescript': { version: '5.9.3' },
					'node_modules/transitive': { version: '1.0.0' },
					'node_modules/zod/node_modules/x': { version: '9' },
				},
			}),
		);
		write(root, 'requirements.txt', 'requests==2.32.3\nnumpy>=1.26  # comment\n-r other.txt\n');

		const cp = await createSettled(engine, {
			actor,
			host: { vscode: { version: '1.95.0', extensions: [{ id: 'anthropic.claude-code', version: '2.1.3' }] } },
		});
		const env = cp.environment;
		assert.ok(env);
		assert.deepEqual(env.agents['claude'], {
			version: '2.1.3',
			path: claude,
			binaryHash: `sha256:${createHash('sha256').update(fs.readFileSync(claude)).digest('hex')}`,
		});
		const cache = JSON.parse(fs.readFileSync(path.join(root, '.baton', 'cache', 'binary-hashes.json'), 'utf8')) as Record<string, { hash: string }>;
		assert.equal(cache[fs.realpathSync(claude)]?.hash, env.agents['claude']?.binaryHash, 'remembered for the next process');
		assert.deepEqual(env.runtimes, { node: '22.1.0' });
		assert.deepEqual(env.vscode, { version: '1.95.0', extensions: { 'anthropic.claude-code': '2.1.3' } });
		assert.deepEqual(env.packages['package-lock.json'], { manager: 'npm', packages: { typescript: '5.9.3', zod: '4.6.7' }, truncated: false });
		assert.deepEqual(env.packages['requirements.txt']?.packages, { numpy: '>=1.26', requests: '2.32.3' });
		const github = env.mcpServers['.mcp.json:github'];
		assert.deepEqual(github?.args, ['-y', '@mcp/github', '--token', '<redacted>']);
		assert.deepEqual(github?.envKeys, ['GITHUB_TOKEN']);
		assert.equal(env.mcpServers['.vscode/mcp.json:docs']?.url, 'https://<redacted>@mcp.example.com/mcp?key=<redacted>');
		assert.doesNotMatch(JSON.stringify(env), /ghp_|secret|abc123|pw@/, 'no secret reaches the database');
		assert.equal(env.git?.branch, 'main');
		assert.equal(env.git?.head, userGit(root, 'rev-parse', 'HEAD').trim());
		assert.equal(env.git?.changedFiles, 0);
		assert.ok((env.git?.untrackedFiles ?? 0) > 0);
		assert.deepEqual(env.unknown, []);
	});

	void it('never fails or stalls a checkpoint: a probe that hangs is recorded as unknown within the budget', async (t) => {
		const bin = tempDir(t, 'baton-bin-');
		// codex answers only when the gate opens, which is after the checkpoint settled: it never does in time.
		const gate = probeGate(bin);
		fakeBin(bin, 'codex', `${gate.wait}; echo 1.0.0`);
		fakeBin(bin, 'gemini', 'exit 3');
		const { engine } = await openCheckpointEngine(t, { searchPath: bin, config: { checkpoints: { environmentTimeout: 400 } } });
		const cp = await createSettled(engine, { actor });
		gate.open();
		assert.equal(cp.environment?.agents['codex']?.version, null);
		assert.ok(cp.environment?.unknown.includes('agent codex version: timed out'), JSON.stringify(cp.environment?.unknown));
		assert.ok(cp.environment?.unknown.some((u) => u.startsWith('agent gemini version: ')));
	});

	void it('with the file watcher running, runs the user’s git status only when the work tree, HEAD or the index changed', async (t) => {
		const bin = tempDir(t, 'baton-bin-');
		const log = path.join(bin, 'git-calls.log');
		const realGit = (process.env['PATH'] ?? '')
			.split(path.delimiter)
			.map((d) => path.join(d, 'git'))
			.find((f) => fs.existsSync(f));
		assert.ok(realGit, 'git on PATH');
		// The real git, with every call of the capture's (the user-repository environment) written down.
		fakeBin(bin, 'git', `echo "$1 $2" >> '${log}'\nexec '${realGit}' "$@"`);
		const { engine, root } = await openCheckpointEngine(t);
		const savedPath = process.env['PATH'];
		process.env['PATH'] = `${bin}${path.delimiter}${savedPath ?? ''}`;
		t.after(() => {
			process.env['PATH'] = savedPath;
		});
		const statusCalls = () =>
			fs.existsSync(log)
				? fs
						.readFileSync(log, 'utf8')
						.split('\n')
						.filter((l) => l.includes('status')).length
				: 0;
		t.after(await engine.checkpoints.dirty.start());

		const first = await createSettled(engine, { actor });
		assert.equal(statusCalls(), 1);
		const second = await createSettled(engine, { actor });
		assert.equal(statusCalls(), 1, 'nothing changed: the last git state is reused');
		assert.deepEqual(second.environment?.git, first.environment?.git);

		write(root, 'src/app.ts', 'export const app = 2;\n');
		const edited = await createSettled(engine, { actor });
		assert.equal(statusCalls(), 2, 'a work-tree change');
		assert.equal(edited.environment?.git?.changedFiles, (first.environment?.git?.changedFiles ?? 0) + 1);

		userGit(root, 'commit', '-qam', 'user commit');
		const committed = await createSettled(engine, { actor });
		assert.equal(statusCalls(), 3, 'HEAD and the index moved');
		assert.notEqual(committed.environment?.git?.head, first.environment?.git?.head);
		assert.equal(committed.environment?.git?.changedFiles, first.environment?.git?.changedFiles);

		engine.checkpoints.dirty.stop();
		await createSettled(engine, { actor });
		assert.equal(statusCalls(), 4, 'the watcher that vouched for the last answer is gone');
		await createSettled(engine, { actor });
		assert.equal(statusCalls(), 4, 'without a watcher, the snapshot (same tree) vouches for the work tree');
		write(root, 'src/app.ts', 'export const app = 3;\n');
		const noWatcher = await createSettled(engine, { actor });
		assert.equal(statusCalls(), 5, 'a new tree: read again');
		assert.equal(noWatcher.environment?.git?.changedFiles, (first.environment?.git?.changedFiles ?? 0) + 1);
	});

	void it('diffs the environments of two checkpoints per category', async (t) => {
		const bin = tempDir(t, 'baton-bin-');
		fakeBin(bin, 'claude', 'echo 2.1.3');
		const { engine, root, clock } = await openCheckpointEngine(t, { searchPath: bin });
		write(root, 'requirements.txt', 'requests==2.32.3\nflask==3.0.0\n');
		const a = await createSettled(engine, { actor });
		clock.advance(1_000);
		fakeBin(bin, 'claude', 'echo 2.2.0');
		write(root, 'requirements.txt', 'requests==2.32.4\nrich==13.0.0\n');
		write(root, '.mcp.json', JSON.stringify({ mcpServers: { fs: { command: 'mcp-fs', args: ['.'] } } }));
		const b = await createSettled(engine, { actor });
		const { environment } = await engine.checkpoints.diff(a.id, b.id);
		assert.equal(environment.changed, true);
		assert.deepEqual(
			environment.agents.changed.map((c) => c.key),
			['claude.binaryHash', 'claude.version'],
		);
		assert.deepEqual(
			environment.agents.changed.find((c) => c.key === 'claude.version'),
			{ key: 'claude.version', from: '2.1.3', to: '2.2.0' },
		);
		assert.deepEqual(environment.packages, {
			added: [{ key: 'requirements.txt:rich', value: '13.0.0' }],
			removed: [{ key: 'requirements.txt:flask', value: '3.0.0' }],
			changed: [{ key: 'requirements.txt:requests', from: '2.32.3', to: '2.32.4' }],
		});
		assert.deepEqual(
			environment.mcpServers.added.map((x) => x.key),
			['.mcp.json:fs'],
		);
		assert.deepEqual(environment.runtimes, { added: [], removed: [], changed: [] });
	});

	void it('compares like with like: what one side could not observe is not compared, never "removed"', async (t) => {
		const bin = tempDir(t, 'baton-bin-');
		fakeBin(bin, 'claude', 'echo 2.1.3');
		fakeBin(bin, 'python3', 'echo Python 3.12.1');
		const { engine, clock } = await openCheckpointEngine(t, { searchPath: bin });
		// Taken in the editor: it knows VS Code and its extensions.
		const inEditor = await createSettled(engine, { actor, host: { vscode: { version: '1.99.0', extensions: { 'ms-python.python': '2025.1.0' } } } });
		clock.advance(1_000);
		// Taken by the CLI, whose python probe fails this time.
		fakeBin(bin, 'python3', 'exit 3');
		const byCli = await createSettled(engine, { actor });
		assert.equal(byCli.environment?.vscode, null);
		assert.ok(
			byCli.environment?.unknown.some((u) => u.startsWith('runtime python:')),
			JSON.stringify(byCli.environment?.unknown),
		);
		for (const [from, to] of [
			[inEditor, byCli],
			[byCli, inEditor],
		] as const) {
			const { environment } = await engine.checkpoints.diff(from.id, to.id);
			assert.deepEqual(environment.vscode, { added: [], removed: [], changed: [] });
			assert.deepEqual(environment.extensions, { added: [], removed: [], changed: [] });
			assert.deepEqual(environment.runtimes, { added: [], removed: [], changed: [] }, 'python is unknown on one side, not removed or added');
			assert.equal(environment.changed, false);
			assert.deepEqual(
				environment.notCompared.map((u) => [u.category, u.key]),
				[
					['vscode', null],
					['extensions', null],
					['runtimes', 'python'],
				],
			);
			assert.match(environment.notCompared[0]!.reason, /taken outside VS Code/);
		}
		// Really gone is still removed: the python binary missing from PATH altogether.
		fs.rmSync(path.join(bin, 'python3'));
		clock.advance(1_000);
		const gone = await createSettled(engine, { actor, host: { vscode: { version: '1.99.0', extensions: {} } } });
		const { environment } = await engine.checkpoints.diff(inEditor.id, gone.id);
		assert.deepEqual(
			environment.runtimes.removed.map((r) => r.key),
			['python'],
		);
		assert.deepEqual(
			environment.extensions.removed.map((r) => r.key),
			['ms-python.python'],
		);
	});

	void it('reads the lockfile formats: pnpm, yarn v1 and berry, Cargo, poetry, go.sum', () => {
		const direct = new Set(['react', 'typescript', '@scope/pkg']);
		const pnpm = `lockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    dependencies:\n      react:\n        specifier: ^18.2.0\n        version: 18.3.1(react-dom@18.3.1)\n    devDependencies:\n      typescript:\n        specifier: ^5.0.0\n        version: 5.4.5\n\n  packages/other:\n    dependencies:\n      lodash:\n        specifier: ^4\n        version: 4.17.21\n\npackages:\n\n  react@18.3.1:\n    resolution: {integrity: sha512-x}\n`;
		assert.deepEqual(parseLockfile('pnpm-lock.yaml', pnpm, direct)?.packages, { react: '18.3.1', typescript: '5.4.5' });
		const pnpm5 = `lockfileVersion: 5.4\n\nspecifiers:\n  react: ^18.2.0\n\ndependencies:\n  react: 18.2.0\n\npackages:\n  /react/18.2.0:\n    dev: false\n`;
		assert.deepEqual(parseLockfile('pnpm-lock.yaml', pnpm5, null)?.packages, { react: '18.2.0' });
		const yarn1 = `# yarn lockfile v1\n\n"@scope/pkg@^1.0.0", "@scope/pkg@^1.1.0":\n  version "1.2.0"\n  resolved "https://x"\n\nreact@^18.0.0:\n  version "18.3.1"\n\nloose-envify@^1.1.0:\n  version "1.4.0"\n`;
		assert.deepEqual(parseLockfile('yarn.lock', yarn1, direct)?.packages, { '@scope/pkg': '1.2.0', react: '18.3.1' });
		const berry = `__metadata:\n  version: 6\n\n"react@npm:^18.0.0":\n  version: 18.3.1\n  resolution: "react@npm:18.3.1"\n`;
		assert.deepEqual(parseLockfile('yarn.lock', berry, null)?.packages, { react: '18.3.1' });
		const cargo = `version = 3\n\n[[package]]\nname = "serde"\nversion = "1.0.200"\nsource = "registry"\n\n[[package]]\nname = "app"\nversion = "0.1.0"\n`;
		assert.deepEqual(parseLockfile('Cargo.lock', cargo, null)?.packages, { app: '0.1.0', serde: '1.0.200' });
		const poetry = `[[package]]\nname = "requests"\nversion = "2.32.3"\ndescription = "HTTP"\n\n[package.dependencies]\nidna = ">=2.5"\n`;
		assert.deepEqual(parseLockfile('poetry.lock', poetry, null)?.packages, { requests: '2.32.3' });
		const gosum = `github.com/a/b v1.2.3 h1:abc=\ngithub.com/a/b v1.2.3/go.mod h1:def=\ngolang.org/x/text v0.14.0/go.mod h1:x=\n`;
		assert.deepEqual(parseLockfile('go.sum', gosum, null)?.packages, { 'github.com/a/b': 'v1.2.3' });
		const many = Array.from({ length: 600 }, (_, i) => `p${i}==1.0`).join('\n');
		const capped = parseLockfile('requirements.txt', many, null);
		assert.equal(Object.keys(capped?.packages ?? {}).length, 500);
		assert.equal(capped?.truncated, true);
	});

	void it('redacts arguments that carry credentials', () => {
		assert.deepEqual(
			redactArgs(['--api-key=sk-live-123456789', '--password', 'hunter2', 'serve', 'sk-ant-abcdefghijkl', '--port', '8080', 'AKIAABCDEFGHIJKLMNOP']),
			['--api-key=<redacted>', '--password', '<redacted>', 'serve', '<redacted>', '--port', '8080', '<redacted>'],
		);
	});
});
