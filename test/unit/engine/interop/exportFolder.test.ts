/**
 * The folder an export writes to (exportFolder.ts) after an export crashed in the middle of it: the
 * temp file atomicWriteFile was writing (`<name>.tmp-<pid>`) stays behind. Beside a file the folder's
 * Baton index lists, or beside that index, and of a process that is gone, it is that export's and is
 * removed before the folder is judged; otherwise the next export refused the folder as foreign for good.
 * A live process's (an export in progress), and anything else, still make it refuse.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { writeExportFolder } from '../../../../src/engine/interop/exportFolder';
import { indexFormat } from '../../../../src/engine/interop/sessionFileFormat';
import { tempDir } from '../../helpers';

const index = JSON.stringify({ format: indexFormat, sessions: [{ name: '01-checkout', file: '01-checkout.json' }] });
const files = () => new Map([['01-checkout.json', '{"session": 1}']]);

test('a dead export’s temp files beside the files its index lists are removed before the folder is judged; a live one’s or any other still refuse it', (t) => {
	const dir = path.join(tempDir(t, 'baton-export-folder-'), 'out');
	writeExportFolder(dir, files(), index);
	const dead = spawnSync(process.execPath, ['-e', '']).pid;
	assert.ok(dead);
	fs.writeFileSync(path.join(dir, `01-checkout.json.tmp-${dead}`), '{"sess');
	fs.writeFileSync(path.join(dir, `index.json.tmp-${dead}`), '{"for');
	writeExportFolder(dir, files(), index);
	assert.deepEqual(fs.readdirSync(dir).sort(), ['01-checkout.json', 'index.json']);

	for (const name of [`01-checkout.json.tmp-${process.ppid}`, `notes.md.tmp-${dead}`, `01-checkout.json.tmp-x${dead}`]) {
		fs.writeFileSync(path.join(dir, name), 'not ours to remove');
		assert.throws(() => writeExportFolder(dir, files(), index), /not part of a Baton export/, name);
		assert.ok(fs.existsSync(path.join(dir, name)), `${name} is kept`);
		fs.rmSync(path.join(dir, name));
	}

	const foreign = path.join(path.dirname(dir), 'theirs');
	fs.mkdirSync(foreign);
	fs.writeFileSync(path.join(foreign, `index.json.tmp-${dead}`), '{}');
	assert.throws(() => writeExportFolder(foreign, files(), index), /is not empty/);
	assert.deepEqual(fs.readdirSync(foreign), [`index.json.tmp-${dead}`], 'a folder without Baton’s index is never touched');
});
