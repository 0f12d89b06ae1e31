/**
 * `.baton/transcripts/index.json` as a process changes it: the parse kept between its own reads and
 * writes is used only while the file is still the one it read or wrote, so another process's write is
 * never lost, and a session's files already recorded cost no write at all.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { addFiles, sessionArchiveOf, TranscriptIndexFile } from '../../../../src/engine/transcripts/transcriptIndex';
import { tempDir } from '../../helpers';
import { setup } from './transcriptWorld';

const touch = (file: TranscriptIndexFile, session: string, files: string[]) =>
	file.update((index) => ({ changed: addFiles(sessionArchiveOf(index, session).filesTouched, files), result: undefined }));

void describe('the transcript index kept in a process', () => {
	void it('never loses another process’s write between two of its own', async (t) => {
		const dir = tempDir(t);
		const mine = new TranscriptIndexFile(dir, () => undefined);
		const theirs = new TranscriptIndexFile(dir, () => undefined);
		await touch(mine, 's1', ['a.ts']);
		assert.deepEqual(mine.peek().sessions['s1']?.filesTouched, ['a.ts']);
		await touch(theirs, 's1', ['b.ts']);
		await touch(theirs, 's2', ['c.ts']);
		await touch(mine, 's1', ['d.ts']);
		const stored = JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8'));
		assert.deepEqual(stored.sessions.s1.filesTouched, ['a.ts', 'b.ts', 'd.ts']);
		assert.deepEqual(stored.sessions.s2.filesTouched, ['c.ts']);
		assert.deepEqual(JSON.parse(JSON.stringify(mine.peek())), stored, 'what the process keeps is what it wrote');
	});

	void it('hands a reader the index as written, never one an update is changing', async (t) => {
		const dir = tempDir(t);
		const file = new TranscriptIndexFile(dir, () => undefined);
		await touch(file, 's1', ['a.ts']);
		let during: string[] | undefined;
		await assert.rejects(
			file.update(async (index) => {
				sessionArchiveOf(index, 's1').filesTouched.push('half.ts');
				await new Promise((resolve) => setTimeout(resolve, 10));
				during = [...(file.peek().sessions['s1']?.filesTouched ?? [])];
				throw new Error('failed half-way');
			}),
			/half-way/,
		);
		assert.deepEqual(during, ['a.ts'], 'a peek during the update reads the file');
		assert.deepEqual(file.peek().sessions['s1']?.filesTouched, ['a.ts'], 'a failed update leaves nothing behind in the process');
	});
});

void describe('files touched by a session', () => {
	void it('writes the index only for a file the session had not named', async (t) => {
		const s = setup(t);
		const indexFile = path.join(s.root, '.baton', 'transcripts', 'index.json');
		assert.equal(await s.archive.recordFilesTouched('ses_1', ['src/a.ts', 'src/b.ts']), true);
		const written = fs.statSync(indexFile);
		assert.equal(await s.archive.recordFilesTouched('ses_1', ['src/b.ts', 'src/a.ts']), false);
		const after = fs.statSync(indexFile);
		assert.equal(`${after.ino}:${after.mtimeMs}`, `${written.ino}:${written.mtimeMs}`, 'no write for files already named');
		assert.equal(await s.archive.recordFilesTouched('ses_1', ['src/c.ts']), true);
		assert.deepEqual(s.archive.digest('ses_1').filesTouched, ['src/a.ts', 'src/b.ts', 'src/c.ts']);
	});
});
