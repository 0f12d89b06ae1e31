#!/usr/bin/env node
// `npm start`: build Baton, seed a demo workspace (once), and show it. The editor part opens a real
// VS Code on it; until then this runs the CLI against the demo workspace.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const demo = process.env.BATON_DEMO_WORKSPACE ?? path.join(root, 'artifacts', 'demo-workspace');
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });

run(process.execPath, ['esbuild.mjs']);
if (!existsSync(path.join(demo, '.baton'))) {
	run(process.execPath, ['--import', 'tsx', 'scripts/seedDemo.ts', demo, '--force']);
}
const cli = path.join(root, 'dist', 'cli.js');
console.log(`\nDemo workspace: ${demo}\n\n$ baton session list`);
run(process.execPath, [cli, 'session', 'list'], { cwd: demo });
console.log('\n$ baton briefing --scope epic:T1');
run(process.execPath, [cli, 'briefing', '--scope', 'epic:T1'], { cwd: demo });
console.log(`\nTry it yourself: cd ${demo} && node ${path.relative(demo, cli)} --help`);
