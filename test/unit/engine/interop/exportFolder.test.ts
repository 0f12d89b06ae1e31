/**
 * The folder an export writes to (exportFolder.ts) after an export crashed in the middle of it: the
 * temp file atomicWriteFile was writing (`<name>.tmp-<pid>`) stays behind. Beside a file the folder's
 * Baton index lists, or beside that index, and of a process that is gone, it is that export's and is
 * removed before the folder is judged; otherwise the next export refused the folder as foreign for good.
 * A live process's (an export in progress), and anything else, still make it refuse. An export that
 * crashed after writing new files but before its index listed them is taken over by the next one.
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

test('an export that crashed after writing new files, before its index, leaves a folder the next export takes over: the files it meant to write are its own', (t) => {
	const base = tempDir(t, 'baton-export-crash-');
	const dir = path.join(base, 'out');
	writeExportFolder(dir, files(), index);
	// What a crash between a new file and the new index leaves: the file, and the list of what that export meant to write.
	const crashed = (folder: string) => {
		fs.mkdirSync(folder, { recursive: true });
		fs.writeFileSync(path.join(folder, '.baton-export-pending.json'), JSON.stringify({ format: `${indexFormat}.pending`, files: ['02-refunds.json'] }));
		fs.writeFileSync(path.join(folder, '02-refunds.json'), '{"session": 2}');
	};
	crashed(dir);
	writeExportFolder(dir, files(), index);
	assert.deepEqual(fs.readdirSync(dir).sort(), ['01-checkout.json', 'index.json'], 'what the crashed export wrote and this one does not is removed');

	const first = path.join(base, 'first');
	crashed(first);
	writeExportFolder(first, files(), index);
	assert.deepEqual(fs.readdirSync(first).sort(), ['01-checkout.json', 'index.json'], 'the same when the crash was the folder’s first export');

	fs.writeFileSync(path.join(dir, '.baton-export-pending.json'), JSON.stringify({ format: 'theirs', files: ['notes.md'] }));
	fs.writeFileSync(path.join(dir, 'notes.md'), 'mine');
	assert.throws(() => writeExportFolder(dir, files(), index), /not part of a Baton export/, 'a list Baton did not write names nothing of Baton’s');
	assert.ok(fs.existsSync(path.join(dir, 'notes.md')));
	fs.rmSync(path.join(dir, 'notes.md'));
	fs.writeFileSync(path.join(base, 'escape.json'), 'outside');
	fs.writeFileSync(path.join(dir, '.baton-export-pending.json'), JSON.stringify({ format: `${indexFormat}.pending`, files: ['../escape.json'] }));
	writeExportFolder(dir, files(), index);
	assert.equal(fs.readFileSync(path.join(base, 'escape.json'), 'utf8'), 'outside', 'a name that leads out of the folder is never removed');
});

test('an export that completes leaves no list of pending files behind', (t) => {
	const dir = path.join(tempDir(t, 'baton-export-done-'), 'out');
	writeExportFolder(dir, files(), index);
	writeExportFolder(dir, files(), index);
	assert.deepEqual(fs.readdirSync(dir).sort(), ['01-checkout.json', 'index.json']);
});
