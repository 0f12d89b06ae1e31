#!/usr/bin/env node
// `npm test` after type-check and build: the unit suites, then the editor tests in a real VS Code
// workbench. Ends with one `total: N passed, N failed` line; exits non-zero if anything failed.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function run(script) {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [path.join(root, 'scripts', script)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
		let out = '';
		child.stdout.on('data', (d) => {
			out += d;
			process.stdout.write(d);
		});
		child.on('exit', (code) => resolve({ code: code ?? 1, out }));
	});
}

const unit = await run('runUnitTests.mjs');
const unitPass = Number(/^ℹ pass (\d+)$/m.exec(unit.out)?.[1] ?? 0);
const unitFail = Number(/^ℹ fail (\d+)$/m.exec(unit.out)?.[1] ?? 0) + (unit.code !== 0 && !/^ℹ fail [1-9]/m.test(unit.out) ? 1 : 0);
const editor = await run('runEditorTests.mjs');
const m = /^editor: (\d+) passed, (\d+) failed$/m.exec(editor.out);
const editorPass = Number(m?.[1] ?? 0);
const editorFail = Number(m?.[2] ?? 0) + (editor.code !== 0 && !(m && Number(m[2]) > 0) ? 1 : 0);
const passed = unitPass + editorPass;
const failed = unitFail + editorFail;
console.log(`\nunit: ${unitPass} passed, ${unitFail} failed`);
console.log(`editor: ${editorPass} passed, ${editorFail} failed`);
console.log(`total: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
