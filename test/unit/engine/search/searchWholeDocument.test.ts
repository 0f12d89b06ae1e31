/**
 * A transcript read whole on every change (a VS Code chat session, Gemini CLI's and Cline's JSON) has
 * its archive written again from its first byte at the same path (archiveSource.ts `resetEntry`): the
 * index must read it again whole, not go on from the byte it had read to.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SearchIndex } from '../../../../src/engine/search/searchIndex';
import { SearchFeed } from '../../../../src/engine/search/searchSources';
import type { TranscriptArchive } from '../../../../src/engine/transcripts/transcriptArchive';

void describe('search of a whole-document transcript', () => {
	void it('finds what its archive holds after it was written again, and nothing it no longer holds', async (t) => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-search-whole-'));
		t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
		const archivePath = 'copilot/chat-1.jsonl';
		fs.mkdirSync(path.join(dir, 'copilot'));
		const info = {
			id: 'chat-1',
			agent: 'copilot',
			sessionId: null,
			archivePath,
			archiveBytes: 0,
			syncedAt: '',
			sourcePath: path.join(dir, 'workspaceStorage', 'chatSessions', 'chat-1.json'),
		};
		const archive = { dir, list: () => [info] } as unknown as TranscriptArchive;
		const write = (texts: string[], stamp: number) => {
			const text = texts.map((s) => `${JSON.stringify({ type: 'user', at: '2026-11-28T10:00:00.000Z', text: s })}\n`).join('');
			fs.writeFileSync(path.join(dir, archivePath), text);
			info.archiveBytes = Buffer.byteLength(text);
			info.syncedAt = new Date(stamp * 1000).toISOString();
			fs.writeFileSync(path.join(dir, 'index.json'), JSON.stringify({ stamp }));
			fs.utimesSync(path.join(dir, 'index.json'), stamp, stamp);
		};
		const index = await SearchIndex.create();
		t.after(() => index.close());
		const feed = new SearchFeed();
		const found = (word: string) => index.matches(word, {}, { exactUpTo: 5_000, sample: 2_000, countUpTo: 20_000 }).total;
		write(['rename the walrus module', 'add tests for it'], 1_000);
		await feed.fromArchive(index, archive);
		assert.equal(found('walrus'), 1);
		// The person edited the first request in the chat: the chat file, and so its archive, is written again, longer.
		write(['rename the narwhal module instead', 'add tests for it', 'and document it'], 2_000);
		await feed.fromArchive(index, archive);
		assert.equal(found('walrus'), 0, 'a request the chat no longer holds');
		assert.equal(found('narwhal'), 1, 'the edited request');
		assert.equal(found('document'), 1, 'the new one');
		assert.equal(index.size, 3);
		// A typo fixed in a request: the archive is as long as it was.
		write(['rename the narwhal module instead', 'add tests for it', 'and documnet it'], 3_000);
		await feed.fromArchive(index, archive);
		assert.equal(found('document'), 0, 'the text before the edit');
		assert.equal(found('documnet'), 1, 'the text after it');
		assert.equal(index.size, 3);
	});
});
