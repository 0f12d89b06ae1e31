/**
 * `.baton/transcripts/index.json` as a process changes it: the parse kept between its own reads and
 * writes is used only while the file is still the one it read or wrote, so another process's write is
 * never lost. A session's files touched go to its sidecar, never into index.json (sessionFiles.ts), and
 * files already recorded cost no write at all.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { addFiles, sessionArchiveOf, TranscriptIndexFile } from '../../../../src/engine/transcripts/transcriptIndex';
import { TranscriptArchive } from '../../../../src/engine/transcripts/transcriptArchive';
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
	const sidecar = (root: string, session: string) =>
		JSON.parse(fs.readFileSync(path.join(root, '.baton', 'transcripts', '_sessions', `${session}.json`), 'utf8')).archive.filesTouched;

	void it('go to the session’s sidecar, never into index.json, and files already named cost no write', async (t) => {
		const s = setup(t);
		const indexFile = path.join(s.root, '.baton', 'transcripts', 'index.json');
		const sidecarFile = path.join(s.root, '.baton', 'transcripts', '_sessions', 'ses_1.json');
		assert.equal(await s.archive.recordFilesTouched('ses_1', ['src/a.ts', 'src/b.ts']), true);
		assert.equal(fs.existsSync(indexFile), false, 'index.json is not written for a file touched');
		assert.deepEqual(sidecar(s.root, 'ses_1'), ['src/a.ts', 'src/b.ts']);
		const written = fs.statSync(sidecarFile);
		assert.equal(await s.archive.recordFilesTouched('ses_1', ['src/b.ts', 'src/a.ts']), false);
		const after = fs.statSync(sidecarFile);
		assert.equal(`${after.ino}:${after.mtimeMs}`, `${written.ino}:${written.mtimeMs}`, 'no write for files already named');
		assert.equal(await s.archive.recordFilesTouched('ses_1', ['src/c.ts']), true);
		assert.deepEqual(s.archive.digest('ses_1').filesTouched, ['src/a.ts', 'src/b.ts', 'src/c.ts']);
		assert.equal(fs.existsSync(indexFile), false);
	});

	void it('two processes adding files each keep the other’s, and a note written from an older index loses none', async (t) => {
		const s = setup(t);
		const other = new TranscriptArchive({ workspaceRoot: s.root, claudeHome: s.claudeHome, log: s.log });
		await s.archive.addNote('ses_1', 'session-end', 'first note');
		assert.equal(await s.archive.recordFilesTouched('ses_1', ['src/a.ts']), true);
		assert.equal(await other.recordFilesTouched('ses_1', ['src/b.ts']), true);
		assert.equal(await s.archive.recordFilesTouched('ses_1', ['src/b.ts', 'src/c.ts']), true, 'c.ts is new to the sidecar');
		assert.deepEqual(sidecar(s.root, 'ses_1'), ['src/a.ts', 'src/b.ts', 'src/c.ts']);
		// The note rewrites the sidecar from index.json, which names none of the files.
		await other.addNote('ses_1', 'pre-compact', 'second note');
		assert.deepEqual(sidecar(s.root, 'ses_1'), ['src/a.ts', 'src/b.ts', 'src/c.ts']);
		assert.deepEqual(
			other.digest('ses_1').notes.map((n) => n.text),
			['first note', 'second note'],
		);
		assert.deepEqual(other.digest('ses_1').filesTouched, ['src/a.ts', 'src/b.ts', 'src/c.ts']);
	});

	void it('files an older index.json names for the session still count, and are carried into its sidecar', async (t) => {
		const s = setup(t);
		const dir = path.join(s.root, '.baton', 'transcripts');
		await touch(new TranscriptIndexFile(dir, () => undefined), 'ses_1', ['src/old.ts']);
		const archive = new TranscriptArchive({ workspaceRoot: s.root, claudeHome: s.claudeHome, log: s.log });
		assert.deepEqual(archive.digest('ses_1').filesTouched, ['src/old.ts']);
		assert.equal(await archive.recordFilesTouched('ses_1', ['src/old.ts']), false);
		assert.equal(await archive.recordFilesTouched('ses_1', ['src/new.ts']), true);
		assert.deepEqual(sidecar(s.root, 'ses_1'), ['src/old.ts', 'src/new.ts']);
		assert.deepEqual(archive.digest('ses_1').filesTouched, ['src/old.ts', 'src/new.ts']);
	});

	void it('a sidecar that is no header (cut short, a FIFO) is read as none and written whole again', async (t) => {
		const s = setup(t);
		const folder = path.join(s.root, '.baton', 'transcripts', '_sessions');
		fs.mkdirSync(folder, { recursive: true });
		fs.writeFileSync(path.join(folder, 'ses_1.json'), '{"kind":"baton-transcript-session","vers');
		assert.deepEqual(s.archive.digest('ses_1').filesTouched, []);
		assert.equal(await s.archive.recordFilesTouched('ses_1', ['src/a.ts']), true);
		assert.deepEqual(sidecar(s.root, 'ses_1'), ['src/a.ts']);
		fs.rmSync(path.join(folder, 'ses_2.json'), { force: true });
		execFileSync('mkfifo', [path.join(folder, 'ses_2.json')]);
		assert.deepEqual(s.archive.digest('ses_2').filesTouched, [], 'a FIFO is not waited on');
	});
});
