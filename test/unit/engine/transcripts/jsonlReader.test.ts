/**
 * readJsonlBytes (transcripts/jsonlReader.ts): the bytes an import's discovery read whole are parsed as
 * readJsonlFrom parses the file, from any offset, with maxBytes, a torn last line, CRLF and bad lines.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readJsonlBytes, readJsonlFrom } from '../../../../src/engine/transcripts/jsonlReader';
import { tempDir } from '../../helpers';

test('the bytes read already give the same records, offsets and counts as reading the file, from any line start, capped or not', (t) => {
	const file = path.join(tempDir(t), 't.jsonl');
	const lines = ['{"a":1}', '{"text":"naïve café 日本語 🚀"}', 'not json', '', `{"big":"${'x'.repeat(5_000)}"}`, '{"crlf":true}\r', '{"type":"user"}'];
	for (const tail of ['', '{"torn": tr']) {
		fs.writeFileSync(file, `${lines.join('\n')}\n${tail}`);
		const bytes = fs.readFileSync(file);
		const starts = [0, ...lines.map((_, i) => Buffer.byteLength(`${lines.slice(0, i + 1).join('\n')}\n`)), bytes.length + 10];
		for (const offset of starts) {
			for (const maxBytes of [undefined, 1, 6_000]) {
				const options = maxBytes ? { maxBytes } : {};
				const fromFile: unknown[] = [];
				const fromBytes: unknown[] = [];
				const a = readJsonlFrom(file, offset, (r, at) => fromFile.push([r, at]), { ...options, chunkBytes: 7 });
				const b = readJsonlBytes(bytes, offset, (r, at) => fromBytes.push([r, at]), options);
				assert.deepEqual(b, a, `tail ${JSON.stringify(tail)}, offset ${offset}, maxBytes ${maxBytes}`);
				assert.deepEqual(fromBytes, fromFile);
			}
		}
	}
	const skipped: unknown[] = [];
	readJsonlBytes(Buffer.from('{"a":1}\n{"b":2}\n'), 0, (r) => skipped.push(r), { skipLine: (line) => line.includes('"a"') });
	assert.deepEqual(skipped, [{ b: 2 }], 'a skipped line is not parsed');
});
