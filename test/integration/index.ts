/**
 * extensionTestsPath entry: the extension host calls run(). The suites are bundled beside this file;
 * mocha comes from the project's node_modules (or the workbench cache's copy).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as MochaModule from 'mocha';

function loadMocha(): typeof MochaModule {
	try {
		return require('mocha');
	} catch {
		const home = process.env['BATON_WORKBENCH_HOME'] ?? path.join(os.homedir(), '.cache', 'baton-workbench');
		return require(path.join(home, 'node_modules', 'mocha'));
	}
}

export function run(): Promise<void> {
	const Mocha = loadMocha();
	const mocha = new Mocha({ ui: 'tdd', color: false, timeout: 30_000, reporter: 'spec' });
	// BATON_EXTHOST_SUITE picks one suite: the multi-root one needs a different workspace.
	const only = process.env['BATON_EXTHOST_SUITE'];
	for (const file of fs
		.readdirSync(__dirname)
		.filter((f) => f.endsWith('.test.js') && (!only || f === `${only}.test.js`))
		.sort()) {
		mocha.addFile(path.join(__dirname, file));
	}
	return new Promise((resolve, reject) => {
		const runner = mocha.run((failures) => {
			// One line the runner script counts (the mocha summary is for people).
			console.log(`BATON-EXTHOST-SUMMARY ${runner.stats?.passes ?? 0} passed, ${failures} failed`);
			if (failures > 0) {
				reject(new Error(`${failures} extension-host test(s) failed`));
			} else {
				resolve();
			}
		});
	});
}
