/**
 * The unused-export check `npm test` runs (scripts/unusedExports.mjs), on small trees written for it:
 * what counts as a use (named, default, namespace, dynamic and type imports, through re-export
 * chains), what does not (a use in the export's own file), and the allow-list's entries going stale.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { findUnusedExports } from '../../scripts/unusedExports.mjs';
import { tempDir } from './helpers';

function tree(root: string, files: Record<string, string>): string {
	for (const [rel, text] of Object.entries(files)) {
		fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
		fs.writeFileSync(path.join(root, rel), text);
	}
	return root;
}

void describe('unused exports', () => {
	void it('names an export only its own file uses, and none that another file imports in any form', (t) => {
		const root = tree(tempDir(t), {
			'src/lib.ts': [
				'export function used(): number { return 1; }',
				'export const onlyHere = 2;',
				'export const viaDefault = 0; // used as the default export only',
				'export interface Shape { a: number }',
				'export type Unused = string;',
				'export function alsoUnused(): number { return onlyHere; }',
				'export default viaDefault;',
			].join('\n'),
			'src/spaced.ts': 'export const a = 1;\nexport const b = 2;\n',
			'src/lazy.ts': 'export const lazy = 1;\nexport const lazier = 2;\n',
			'src/typed.ts': 'export interface Named { x: number }\nexport interface Other { y: number }\n',
			'src/deep/inner.ts': 'export const reached = 1;\nexport const notReached = 2;\nexport const renamed = 3;\n',
			'src/deep/index.ts': "export * from './inner';\nexport { renamed as alias } from './inner';\n",
			'src/app.ts': [
				"import lib, { used, type Shape } from './lib';",
				"import * as spaced from './spaced';",
				"import { reached, alias } from './deep';",
				"const t: import('./typed').Named = { x: 1 };",
				"export const run = (s: Shape) => [lib, used(), spaced.a, reached, alias, s, t, import('./lazy')];",
			].join('\n'),
			'test/app.test.ts': "import { run } from '../src/app';\nvoid run;\n",
		});
		assert.deepEqual(findUnusedExports(root, { allowed: {} }), [
			'src/deep/inner.ts:2 notReached',
			'src/lib.ts:2 onlyHere',
			'src/lib.ts:3 viaDefault',
			'src/lib.ts:5 Unused',
			'src/lib.ts:6 alsoUnused',
			'src/typed.ts:2 Other',
		]);
	});

	void it('leaves out what the allow-list names, and fails on an entry that is imported or no longer exported', (t) => {
		const root = tree(tempDir(t), {
			'src/entry.ts': 'export function activate(): void {}\nexport function helper(): void {}\n',
			'src/user.ts': "import { helper } from './entry';\nhelper();\n",
		});
		assert.deepEqual(findUnusedExports(root, { allowed: { 'src/entry.ts': { names: ['activate'], reason: 'the host calls it' } } }), []);
		assert.deepEqual(findUnusedExports(root, { allowed: { 'src/entry.ts': { names: ['activate', 'helper', 'gone'], reason: 'stale' } } }), [
			'src/entry.ts gone: listed as unused in scripts/unusedExports.mjs, but it is not exported',
			'src/entry.ts helper: listed as unused in scripts/unusedExports.mjs, but it is imported',
		]);
	});

	void it('checks only src/ and webview/: tests, scripts and benches use the code, their own exports are theirs', (t) => {
		const root = tree(tempDir(t), {
			'webview/panel.ts': 'export const shown = 1;\n',
			'scripts/tool.mjs': 'export const tool = 1;\n',
			'bench/row.ts': 'export const row = 1;\n',
		});
		assert.deepEqual(findUnusedExports(root, { allowed: {} }), ['webview/panel.ts:1 shown']);
	});
});
