/**
 * The layout of the unit tests: test/unit mirrors src/, so a file's tests are found beside the path of
 * the file they test (src/engine/x/y.ts → test/unit/engine/x/…).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const root = path.resolve(__dirname, '../..');

void describe('test layout', () => {
	void it('keeps test/unit a mirror of src: every folder of tests names a folder of the code it tests', () => {
		// test/unit/<path> ↔ src/<path>; the exceptions mirror other trees (webview/, test/harness/) or hold shared fixtures.
		const others: Record<string, string> = { webview: 'webview', harness: 'test/harness', fixtures: 'test/unit/fixtures' };
		const unit = path.join(root, 'test', 'unit');
		const strays: string[] = [];
		const walk = (rel: string): void => {
			for (const entry of fs.readdirSync(path.join(unit, rel), { withFileTypes: true })) {
				const child = rel ? `${rel}/${entry.name}` : entry.name;
				if (!entry.isDirectory()) {
					continue;
				}
				const top = child.split('/')[0] as string;
				const mirrored =
					others[top] !== undefined
						? fs.existsSync(path.join(root, others[top], child.slice(top.length)))
						: fs.existsSync(path.join(root, 'src', child));
				if (!mirrored) {
					strays.push(`test/unit/${child}`);
				}
				walk(child);
			}
		};
		walk('');
		assert.deepEqual(strays, [], 'test folders with no src folder of that name (move the tests next to what they test)');
	});
});
