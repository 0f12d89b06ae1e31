/**
 * The size rules (CONTRIBUTING.md: files ≤ 400 lines, functions ≤ 80) are ESLint's, in
 * eslint.config.mjs. This holds the config to them: every file gets max-lines, every source, script
 * and bench file not on the allow-list gets max-lines-per-function, and the allow-list only names
 * files that still hold a long function (an entry left behind after a split fails here).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';

const root = path.resolve(__dirname, '../..');
const sizeOptions = { skipBlankLines: true, skipComments: true };

async function allowList(): Promise<string[]> {
	const config = (await import(pathToFileURL(path.join(root, 'eslint.config.mjs')).href)) as { longFunctionFiles?: string[] };
	assert.ok(Array.isArray(config.longFunctionFiles), 'eslint.config.mjs exports longFunctionFiles');
	return config.longFunctionFiles;
}

/** The function rule alone, without types (fast): the functions over 80 lines in each file. */
async function longFunctions(files: readonly string[]): Promise<Map<string, string[]>> {
	const eslint = new ESLint({
		cwd: root,
		overrideConfigFile: true,
		overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as Linter.Parser }, rules: { 'max-lines-per-function': ['error', { max: 80, ...sizeOptions }] } }],
	});
	const found = new Map<string, string[]>();
	for (const result of await eslint.lintFiles([...files])) {
		found.set(
			path.relative(root, result.filePath).split(path.sep).join('/'),
			result.messages.filter((m) => m.ruleId === 'max-lines-per-function').map((m) => `${m.line}: ${m.message}`),
		);
	}
	return found;
}

function ruleOf(config: Linter.Config, name: string): unknown {
	return config.rules?.[name];
}

void describe('lint rules', () => {
	void it('gives every file max-lines 400 and every source, script and bench file max-lines-per-function 80, blank lines and comments not counted', async () => {
		const eslint = new ESLint({ cwd: root });
		const listed = new Set(await allowList());
		for (const file of ['src/engine/sync/syncService.ts', 'src/extension/extension.ts', 'bench/syncBench.ts', 'src/server/daemon.ts', 'test/unit/architecture.test.ts']) {
			const config = (await eslint.calculateConfigForFile(file)) as Linter.Config;
			assert.deepEqual(ruleOf(config, 'max-lines'), [2, { max: 400, ...sizeOptions }], `${file}: max-lines`);
			const functions = ruleOf(config, 'max-lines-per-function');
			if (file.startsWith('test/') || listed.has(file)) {
				assert.equal(functions, undefined, `${file}: no function rule`);
			} else {
				assert.deepEqual(functions, [2, { max: 80, ...sizeOptions }], `${file}: max-lines-per-function`);
			}
		}
	});

	void it('lists on the allow-list only files that still hold a function over 80 lines', async () => {
		const files = await allowList();
		assert.deepEqual([...files].sort(), files, 'the allow-list is sorted');
		const found = await longFunctions(files);
		const stale = files.filter((f) => (found.get(f) ?? []).length === 0);
		assert.deepEqual(stale, [], 'split: remove these entries from longFunctionFiles in eslint.config.mjs');
	});

	void it('finds a function over 80 lines and lets one of 80 pass', async () => {
		const body = (lines: number): string => `export function f(): number {\n\tlet n = 0;\n${'\tn++;\n'.repeat(lines - 4)}\treturn n;\n}\n`;
		const eslint = new ESLint({
			cwd: root,
			overrideConfigFile: true,
			overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as Linter.Parser }, rules: { 'max-lines-per-function': ['error', { max: 80, ...sizeOptions }] } }],
		});
		const [long] = await eslint.lintText(body(81), { filePath: 'src/engine/long.ts' });
		const [fits] = await eslint.lintText(`${body(80)}\n// a comment\n\n`, { filePath: 'src/engine/fits.ts' });
		assert.equal(long?.messages.filter((m) => m.ruleId === 'max-lines-per-function').length, 1);
		assert.deepEqual(
			fits?.messages.map((m) => m.message),
			[],
		);
	});
});
