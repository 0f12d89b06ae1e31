#!/usr/bin/env node
// Bundles the extension-host suite (test/integration/*.ts) to CommonJS in out/integration (vscode and
// mocha stay external): scripts/runEditorTests.mjs runs it in the offline workbench, `npm run
// test:electron` through @vscode/test-cli (.vscode-test.mjs). Run directly, it also prepares the
// workspaces .vscode-test.mjs opens (out/workspaces/<suite>), as runEditorTests.mjs does in temp dirs.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const integrationOutDir = path.join(root, 'out', 'integration');

export async function bundleIntegrationTests() {
	fs.rmSync(integrationOutDir, { recursive: true, force: true });
	const entries = fs
		.readdirSync(path.join(root, 'test/integration'))
		.filter((f) => f.endsWith('.ts'))
		.map((f) => path.join(root, 'test/integration', f));
	await esbuild.build({
		entryPoints: entries,
		outdir: integrationOutDir,
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target: 'node20',
		external: ['vscode', 'mocha'],
		sourcemap: 'inline',
		logLevel: 'warning',
	});
}

/** The workspace each suite expects (the same set-up runEditorTests.mjs makes in temp dirs). */
function prepareWorkspaces() {
	const base = path.join(root, 'out', 'workspaces');
	fs.rmSync(base, { recursive: true, force: true });
	const cli = (...args) => spawnSync(process.execPath, [path.join(root, 'dist/cli.js'), ...args], { stdio: 'ignore' });
	const env = {
		...process.env,
		GIT_CONFIG_GLOBAL: '/dev/null',
		GIT_AUTHOR_NAME: 't',
		GIT_AUTHOR_EMAIL: 't@example.invalid',
		GIT_COMMITTER_NAME: 't',
		GIT_COMMITTER_EMAIL: 't@example.invalid',
	};
	const git = (cwd, ...args) => spawnSync('git', args, { cwd, env, stdio: 'ignore' });
	const dir = (name) => {
		const d = path.join(base, name);
		fs.mkdirSync(d, { recursive: true });
		return d;
	};
	const extension = dir('extension');
	git(extension, 'init', '-q');
	fs.writeFileSync(path.join(extension, 'README.md'), '# extension-host test workspace\n');
	const checkpoints = dir('checkpoints');
	git(checkpoints, 'init', '-q');
	fs.mkdirSync(path.join(checkpoints, 'src'));
	fs.writeFileSync(path.join(checkpoints, 'src/app.js'), 'export const answer = 42;\n');
	fs.writeFileSync(path.join(checkpoints, 'README.md'), '# checkpoints\n');
	git(checkpoints, 'add', '.');
	git(checkpoints, 'commit', '-qm', 'init');
	cli('init', '--workspace', checkpoints);
	cli('init', '--workspace', dir('interop'));
	const notifications = dir('notifications');
	fs.writeFileSync(path.join(notifications, 'README.md'), '# notifications\n');
	cli('init', '--workspace', notifications);
	const one = dir('multiRoot/one');
	fs.writeFileSync(path.join(one, 'README.md'), '# folder one\n');
	fs.writeFileSync(path.join(dir('multiRoot/two'), 'notes.md'), '# folder two\n');
	cli('init', '--workspace', one);
	cli('session', 'start', '--name', 'seeded in folder one', '--workspace', one);
	fs.writeFileSync(path.join(base, 'multiRoot', 'both.code-workspace'), JSON.stringify({ folders: [{ path: 'one' }, { path: 'two' }] }));
	const shop = dir('agents/shop');
	fs.mkdirSync(path.join(shop, 'src'));
	fs.writeFileSync(path.join(shop, 'src/payment.js'), 'export async function charge(card, amount) {\n  return { ok: true, amount };\n}\n');
	spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/seedTranscript.ts'), shop], { cwd: root, stdio: 'ignore' });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	await bundleIntegrationTests();
	prepareWorkspaces();
}
