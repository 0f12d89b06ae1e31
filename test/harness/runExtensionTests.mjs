#!/usr/bin/env node
// Runs an extension's mocha-style integration tests inside a real VS Code 1.139 extension host
// (code-server, headless and offline): the stand-in for @vscode/test-electron's runTests.
//   node test/harness/runExtensionTests.mjs --extensionDevelopmentPath DIR --extensionTestsPath FILE
//                                          [--workspace DIR] [--timeout SECONDS] [--log FILE]
// Exit code = the tests' exit code (124 on timeout, 2 on bad usage or a missing install).
// Needs scripts/workbench/install.sh once; run it under scripts/workbench/isolated.sh for a
// loopback-only network. BATON_WORKBENCH_VERBOSE=1 also prints the workbench's own log noise.
import { parseArgs } from 'node:util';
import { runExtensionTests } from './workbench.mjs';

const usage =
	'usage: node test/harness/runExtensionTests.mjs --extensionDevelopmentPath DIR --extensionTestsPath FILE [--workspace DIR] [--timeout SECONDS] [--log FILE]';
let values;
try {
	({ values } = parseArgs({
		options: {
			extensionDevelopmentPath: { type: 'string' },
			extensionTestsPath: { type: 'string' },
			workspace: { type: 'string' },
			timeout: { type: 'string', default: '300' },
			log: { type: 'string' },
			help: { type: 'boolean', short: 'h' },
		},
	}));
} catch (e) {
	console.error(`${e.message}\n${usage}`);
	process.exit(2);
}
if (values.help) {
	console.log(usage);
	process.exit(0);
}
if (!values.extensionDevelopmentPath || !values.extensionTestsPath || !(Number(values.timeout) > 0)) {
	console.error(usage);
	process.exit(2);
}

const t0 = Date.now();
let code;
try {
	code = await runExtensionTests({
		extensionDevelopmentPath: values.extensionDevelopmentPath,
		extensionTestsPath: values.extensionTestsPath,
		workspace: values.workspace,
		timeoutMs: Number(values.timeout) * 1000,
		logFile: values.log,
	});
} catch (e) {
	console.error(`runExtensionTests: ${e.message}`);
	process.exit(2);
}
console.log(`extension tests ${code === 0 ? 'PASSED' : `FAILED (exit ${code})`} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
process.exit(code);
