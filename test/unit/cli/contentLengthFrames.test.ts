/**
 * The daemon client's framing (src/cli/contentLengthFrames.ts) reads every message whole however the
 * stream is cut: a 50 MB answer in 64 KiB chunks, small messages split inside their header, inside
 * `\r\n\r\n` and inside a multi-byte character, one byte at a time, or many in one chunk.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ContentLengthFrames } from '../../../src/cli/contentLengthFrames';

const frame = (body: string, header = ''): Buffer =>
	Buffer.concat([Buffer.from(`${header}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`, 'ascii'), Buffer.from(body, 'utf8')]);

/** Feeds `stream` cut at `cuts` (offsets) and returns the bodies read, as text. */
function read(stream: Buffer, cuts: number[]): string[] {
	const frames = new ContentLengthFrames();
	const out: string[] = [];
	let from = 0;
	for (const to of [...cuts, stream.length]) {
		for (const body of frames.push(stream.subarray(from, to))) out.push(body.toString('utf8'));
		from = to;
	}
	return out;
}

void describe('Content-Length framing', () => {
	const small = [
		JSON.stringify({ jsonrpc: '2.0', method: 'baton/dataChanged', params: {} }),
		'',
		JSON.stringify({ jsonrpc: '2.0', id: 2, result: { text: 'é – 日本 🎉' } }),
		'{"jsonrpc":"2.0","id":3,"result":null}',
	];

	void it('reads a 50 MB answer sent in 64 KiB chunks, between small messages', () => {
		const big = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { rows: 'x'.repeat(50 * 1024 * 1024) } });
		const bodies = [small[0]!, big, ...small.slice(1)];
		const stream = Buffer.concat(bodies.map((b, i) => frame(b, i === 1 ? 'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n' : '')));
		const cuts: number[] = [];
		for (let at = 65_536; at < stream.length; at += 65_536) cuts.push(at);
		const got = read(stream, cuts);
		assert.equal(got.length, bodies.length);
		assert.ok(got[1] === big, 'the big answer reads back whole');
		assert.deepEqual([got[0], ...got.slice(2)], [small[0], ...small.slice(1)]);
	});

	void it('reads small messages cut at every offset, one byte at a time, and all in one chunk', () => {
		const stream = Buffer.concat(small.map((b) => frame(b)));
		for (let at = 1; at < stream.length; at++) {
			assert.deepEqual(read(stream, [at]), small, `cut at ${at}`);
		}
		assert.deepEqual(
			read(
				stream,
				Array.from({ length: stream.length - 1 }, (_, i) => i + 1),
			),
			small,
		);
		assert.deepEqual(read(stream, []), small);
	});

	void it('refuses a header without a length rather than waiting for ever', () => {
		assert.throws(() => new ContentLengthFrames().push(Buffer.from('Content-Type: x\r\n\r\n{}')), /without a Content-Length/);
	});
});
