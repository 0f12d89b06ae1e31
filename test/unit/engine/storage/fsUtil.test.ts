/**
 * What a crash in the middle of an atomic write leaves behind (`<file>.tmp-<pid>`, up to hundreds of MB
 * for the search cache) is removed by the next write of that file, whatever its pid; a temp file a
 * live process may still be writing is left alone.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { atomicWriteFile, preserveCopy } from '../../../../src/engine/storage/fsUtil';
import { tempDir } from '../../helpers';

/** A pid that was a process a moment ago and is none now. */
function deadPid(): number {
	const run = spawnSync(process.execPath, ['-e', '']);
	assert.ok(run.pid);
	return run.pid;
}

void describe('atomicWriteFile after a crash', () => {
	void it('a process killed between its write and its rename leaves a temp file that the next write removes', (t) => {
		const dir = tempDir(t, 'baton-fsutil-');
		const file = path.join(dir, 'search-index.db');
		const script = [
			`const fs = require('node:fs');`,
			`const { atomicWriteFile } = require(${JSON.stringify(path.resolve('src/engine/storage/fsUtil.ts'))});`,
			`fs.renameSync = () => process.kill(process.pid, 'SIGKILL');`,
			`atomicWriteFile(${JSON.stringify(file)}, Buffer.alloc(1 << 20, 7));`,
		].join('\n');
		const crashed = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', timeout: 30_000 });
		assert.equal(crashed.signal, 'SIGKILL', crashed.stderr);
		assert.deepEqual(fs.readdirSync(dir), [`search-index.db.tmp-${crashed.pid}`], 'the crash left its temp file');

		atomicWriteFile(file, Buffer.from('new'));
		assert.deepEqual(fs.readdirSync(dir), ['search-index.db']);
		assert.equal(fs.readFileSync(file, 'utf8'), 'new');
	});

	void it("removes only that file's temp files of dead processes or older than a day, never a live writer's", (t) => {
		const dir = tempDir(t, 'baton-fsutil-');
		const file = path.join(dir, 'cache.db');
		const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
		t.after(() => live.kill());
		assert.ok(live.pid);
		const dead = deadPid();
		const dayAndMore = new Date(Date.now() - 25 * 3600_000);
		const files = {
			dead: `cache.db.tmp-${dead}`,
			liveFresh: `cache.db.tmp-${live.pid}`,
			liveOld: `cache.db.tmp-${process.ppid}`,
			otherTarget: `other.db.tmp-${dead}`,
			notAPid: `cache.db.tmp-x${dead}`,
		};
		for (const name of Object.values(files)) fs.writeFileSync(path.join(dir, name), 'partial');
		fs.utimesSync(path.join(dir, files.liveOld), dayAndMore, dayAndMore);

		atomicWriteFile(file, Buffer.from('new'));
		assert.deepEqual(fs.readdirSync(dir).sort(), ['cache.db', files.liveFresh, files.notAPid, files.otherTarget].sort());

		// preserveCopy writes through a temp file of the same name: it cleans up the same way.
		fs.writeFileSync(path.join(dir, `other.db.tmp-${deadPid()}`), 'partial');
		preserveCopy(file, path.join(dir, 'other.db'));
		assert.deepEqual(fs.readdirSync(dir).sort(), ['cache.db', 'other.db', files.liveFresh, files.notAPid].sort());
	});
});
