#!/usr/bin/env node
// `npm start`: build Baton, seed a demo workspace (once), and open a real VS Code on it with the
// extension loaded: desktop `code` when it is installed, otherwise a local code-server workbench on
// 127.0.0.1 whose URL is printed (open it in a browser). Ctrl-C stops it.
//   BATON_DEMO_WORKSPACE=dir  use another folder      BATON_PORT=n  port for the workbench (default 3210)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const demo = path.resolve(process.env.BATON_DEMO_WORKSPACE ?? path.join(root, 'artifacts', 'demo-workspace'));
/** Stops `npm start` with one line that says what failed (the step's own output is above it). */
function fail(reason) {
	console.error(`\nnpm start: ${reason}`);
	process.exit(1);
}
const run = (cmd, args, what, opts = {}) => {
	try {
		execFileSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
	} catch (err) {
		fail(
			`${what} failed (${err.code === 'ENOENT' ? `${cmd} not found` : err.signal ? `killed by ${err.signal}` : `exit ${err.status}`}); see the lines above. Re-running resumes where it stopped.`,
		);
	}
};

run(process.execPath, ['esbuild.mjs'], 'building the extension');
if (!existsSync(path.join(demo, '.baton'))) {
	run(process.execPath, ['--import', 'tsx', 'scripts/seedDemo.ts', demo, '--force'], 'seeding the demo workspace');
}
const cli = path.join(root, 'dist', 'cli.js');
console.log(`\nDemo workspace: ${demo}   (try: node ${cli} session list --workspace ${demo})`);

const desktop = spawnSync('code', ['--version'], { encoding: 'utf8' });
if (desktop.status === 0 && !process.env.BATON_FORCE_WORKBENCH) {
	console.log('Opening VS Code with Baton loaded from this checkout…');
	run('code', ['--new-window', `--extensionDevelopmentPath=${root}`, demo], 'opening VS Code');
} else {
	run('bash', [path.join(root, 'scripts/workbench/install.sh')], 'installing the VS Code workbench');
	const { startWorkbenchServer } = await import('../test/harness/workbench.mjs');
	let server;
	try {
		server = await startWorkbenchServer({
			extensionFolders: [root],
			workspace: demo,
			port: Number(process.env.BATON_PORT ?? 3210),
			theme: process.env.BATON_THEME ?? 'dark',
		});
	} catch (err) {
		fail(`the workbench did not start: ${String(err?.message ?? err).split('\n')[0]}`);
	}
	console.log(`\nBaton is running in VS Code ${'(code-server, offline)'} at:\n\n    ${server.url}\n\nOpen it in a browser on this machine; Ctrl-C stops it.`);
	const stop = async () => {
		await server.stop?.();
		process.exit(0);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
	await new Promise(() => {});
}
