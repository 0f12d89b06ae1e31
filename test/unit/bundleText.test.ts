/**
 * Every Node bundle is ASCII (esbuild.mjs `asciiComments`, and the lint's rule on regular expressions):
 * V8 keeps an all-ASCII source one byte a character and decodes it faster, while one non-ASCII
 * character anywhere, a comment's arrow included, makes the whole 4 MB bundle a two-byte string
 * (measured: a backend loading dist/server.js through its code cache, 470 → 430 ms median).
 * Checks the bundles `npm run build` wrote, whose code is the shipped (minified) bundles' code.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const dist = path.resolve(__dirname, '../../dist');
const bundles = ['extension.js', 'server.js', 'backend.js', 'cli.js', 'baton.js', 'hook.js'];

test('every Node bundle is ASCII, so V8 holds its source one byte a character', () => {
	for (const name of bundles) {
		const text = fs.readFileSync(path.join(dist, name), 'utf8');
		const lines = text.split('\n');
		const found = lines.flatMap((line, i) => (/[\u0080-\uffff]/.test(line) ? [`${name}:${i + 1}: ${line.trim().slice(0, 120)}`] : []));
		assert.deepEqual(
			found,
			[],
			`non-ASCII characters in ${name}: write them as \\uXXXX in the source (a regular expression), or find the dependency that adds them`,
		);
		assert.ok(lines.length > 1, `${name} was built`);
	}
});

test('a comment keeps what it says, its characters written as escapes', () => {
	// The environment's shape comment, as the bundle carries it: its arrow written as an escape.
	const text = fs.readFileSync(path.join(dist, 'server.js'), 'utf8');
	assert.match(text, /Lockfile \(relative path\) \\u2192 declared packages/);
});
