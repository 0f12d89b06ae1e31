/**
 * A refusal names the process that holds the lock by what Baton started it as, read from its command
 * line: the daemon, an editor window's backend (dist/backend.js, which loads dist/server.js, or
 * server.js started itself), or a `baton` command by its command words, never its options' values.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test, type TestContext } from 'node:test';
import { describeProcess } from '../../../../src/engine/storage/lockHolder';

/** A live process whose command line reads `node -e … <args>`, as if it ran one of Baton's bundles. */
function running(t: TestContext, args: string[]): number {
	const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)', ...args], { stdio: 'ignore' });
	t.after(() => child.kill('SIGKILL'));
	assert.ok(child.pid);
	return child.pid;
}

test('a lock holder is named by what Baton started it as', (t) => {
	const dist = '/opt/ext/baton-1.0.0/dist';
	assert.equal(describeProcess(running(t, [`${dist}/backend.js`, '--daemon', '--workspace', '/w'])), 'the workspace daemon');
	assert.equal(describeProcess(running(t, [`${dist}/backend.js`, '--workspace', '/w', '--config', '{}'])), "an editor window's backend");
	assert.equal(describeProcess(running(t, [`${dist}/server.js`, '--workspace', '/w'])), "an editor window's backend");
	assert.equal(describeProcess(running(t, [`${dist}/cli.js`, 'task', 'add', '--title', 'secret words'])), 'baton task add');
	assert.equal(describeProcess(running(t, ['/usr/lib/other/tool.js', 'run'])), 'a process');
});
