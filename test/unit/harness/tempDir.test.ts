/**
 * The test helpers' own teardown: a process a test started that keeps writing into its temp folder
 * is stopped before the folder is removed, so the removal neither fails (ENOTEMPTY) nor leaves that
 * process running (which kept a test file's process, and so the whole unit run, alive for ever).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import test from 'node:test';
import { stopBeforeRemoval, stopChild, tempDir } from '../helpers';

test('a child writing into a temp folder is stopped before the folder is removed', async (t) => {
	let dir = '';
	let child: ChildProcess | undefined;
	await t.test('a test that leaves a writer running', async (inner) => {
		dir = tempDir(inner);
		// Folders appear in it every millisecond until the child is stopped.
		child = spawn(
			process.execPath,
			['-e', `const fs=require('fs');let n=0;setInterval(()=>{for(let i=0;i<20;i++)fs.mkdirSync(${JSON.stringify(dir)}+'/d'+(n++),{recursive:true})},1)`],
			{ stdio: 'ignore' },
		);
		const started = child;
		stopBeforeRemoval(inner, () => stopChild(started));
		// Until the child wrote there (it starts late on a loaded machine), however long that takes.
		while (fs.readdirSync(dir).length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
	});
	assert.ok(child && (child.exitCode !== null || child.signalCode !== null), 'the writer was stopped');
	assert.equal(fs.existsSync(dir), false, 'the folder is gone');
});
