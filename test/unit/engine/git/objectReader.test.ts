/**
 * Reading blobs another machine wrote within bounds (objectReader.ts `catBlobs`), against a real
 * repository: the usual read is one capped `cat-file --batch`; when the answer would pass its bound
 * the blobs are read in groups under it, and a blob above the per-blob bound comes back as its size.
 * And an export split into batch files (eventRefs.ts `splitBatch`): cut between lines, each file
 * named by its last event, nothing lost or doubled.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import test from 'node:test';
import { runGit } from '../../../../src/engine/git/gitRunner';
import { catBlobGroups, catBlobs, type BoundedGitRun } from '../../../../src/engine/git/objectReader';
import { splitBatch } from '../../../../src/engine/sync/eventRefs';
import { tempDir } from '../../helpers';

const env = { PATH: process.env['PATH'] ?? '', GIT_CONFIG_NOSYSTEM: '1', HOME: '/nonexistent', LC_ALL: 'C' };

test('catBlobs: one read when it fits, groups under the bound when not (the last marked), sizes for blobs above the per-blob bound', async (t) => {
	const cwd = tempDir(t, 'baton-catblobs-');
	execFileSync('git', ['init', '-q', cwd], { env });
	const write = (content: string): string => execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd, env, input: content, encoding: 'utf8' }).trim();
	const sizes = [300, 5_000, 300, 20_000, 4_000, 4_000, 0];
	const contents = sizes.map((n, i) => String.fromCharCode(97 + i).repeat(n));
	const oids = contents.map(write);
	const tree = execFileSync('git', ['mktree'], { cwd, env, input: '', encoding: 'utf8' }).trim();
	const calls: { args: string; bound: number }[] = [];
	const run: BoundedGitRun = async (args, input, maxStdoutBytes) => {
		calls.push({ args: args.join(' '), bound: maxStdoutBytes });
		return (await runGit(args, { cwd, env, input, maxStdoutBytes })).stdout;
	};
	const texts = (found: Awaited<ReturnType<typeof catBlobs>>): unknown[] =>
		found.map((b) => (b === null ? null : 'tooLarge' in b ? { tooLarge: b.tooLarge } : b.content.toString()));

	// Everything fits one answer: one process, as catBatch.
	const all = await catBlobs(run, [...oids, tree], { maxBlobBytes: 50_000, maxGroupBytes: 100_000 });
	assert.deepEqual(texts(all), [...contents, null]);
	assert.deepEqual(
		calls.map((c) => c.args),
		['cat-file --batch'],
	);

	// The answer would pass 10,000 bytes: sizes first, then groups each under it; the 20,000-byte blob is above 8,000.
	calls.length = 0;
	const grouped = await catBlobs(run, [...oids, tree], { maxBlobBytes: 8_000, maxGroupBytes: 10_000 });
	assert.deepEqual(texts(grouped), [contents[0], contents[1], contents[2], { tooLarge: 20_000 }, contents[4], contents[5], contents[6], null]);
	assert.deepEqual(
		calls.map((c) => c.args),
		// 300 + 5,000 + 300 + 4,000 with their headers is 10,000; the last 4,000 and the empty blob are a second group.
		['cat-file --batch', 'cat-file --batch-check=%(objectname) %(objecttype) %(objectsize)', 'cat-file --batch', 'cat-file --batch'],
	);
	assert.ok(
		calls.filter((c) => c.args === 'cat-file --batch').every((c) => c.bound <= 10_000),
		JSON.stringify(calls),
	);
	// Each group says whether it is the last: a reader need not ask for the next to know.
	const lasts: boolean[] = [];
	for await (const group of catBlobGroups(run, [...oids, tree], { maxBlobBytes: 8_000, maxGroupBytes: 10_000 })) lasts.push(group.last);
	assert.deepEqual(lasts, [false, true]);
	for await (const group of catBlobGroups(run, oids, { maxBlobBytes: 50_000, maxGroupBytes: 100_000 })) assert.equal(group.last, true);

	// A blob above the per-blob bound inside an answer that fits is still reported by size alone.
	calls.length = 0;
	assert.deepEqual(texts(await catBlobs(run, [oids[3] as string, oids[0] as string], { maxBlobBytes: 8_000, maxGroupBytes: 100_000 })), [
		{ tooLarge: 20_000 },
		contents[0],
	]);
	assert.equal(calls.length, 1);
});

test('splitBatch: cut between lines under the bound, each file named by its last event id, the last by the export’s', () => {
	const line = (n: number, pad = 10): string => JSON.stringify({ id: `evt_${String(n).padStart(4, '0')}_m1`, kind: 'k', body: { pad: 'é'.repeat(pad) } });
	const lines = Array.from({ length: 40 }, (_, n) => line(n, n === 7 ? 400 : 10));
	const text = lines.join('\n');
	assert.deepEqual(splitBatch(text, 'evt_0039_m1', Buffer.byteLength(text)), [{ lastId: 'evt_0039_m1', text }]);

	const bound = 300;
	const batches = splitBatch(text, 'evt_0039_m1', bound);
	assert.ok(batches.length > 5);
	assert.equal(batches.map((b) => b.text).join('\n'), text, 'nothing lost or doubled, in order');
	for (const b of batches) {
		const parts = b.text.split('\n');
		assert.equal(b.lastId, (JSON.parse(parts[parts.length - 1] as string) as { id: string }).id);
		// Bytes, not characters (é is two): only a single line longer than the bound passes it.
		assert.ok(Buffer.byteLength(b.text) + 1 <= bound || parts.length === 1, `${Buffer.byteLength(b.text)} bytes in ${parts.length} lines`);
	}
	assert.ok(
		batches.some((b) => b.text === lines[7]),
		'the line above the bound is a file of its own',
	);
	assert.equal(new Set(batches.map((b) => b.lastId)).size, batches.length);
});
