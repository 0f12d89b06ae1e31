/**
 * The size rules (CONTRIBUTING.md: files ≤ 400 lines, functions ≤ 80) are ESLint's, in
 * eslint.config.mjs. This holds the config to them: every file gets max-lines, and every source,
 * script and bench file gets max-lines-per-function, with no file exempt (the allow-list that
 * exempted files waiting to be split is gone with the last of them).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';

const root = path.resolve(__dirname, '../..');
const sizeOptions = { skipBlankLines: true, skipComments: true };

function ruleOf(config: Linter.Config, name: string): unknown {
	return config.rules?.[name];
}

void describe('lint rules', () => {
	void it('gives every file max-lines 400 and every source, script and bench file max-lines-per-function 80, blank lines and comments not counted, none exempt', async () => {
		const eslint = new ESLint({ cwd: root });
		for (const file of [
			'src/engine/sync/syncService.ts',
			'src/extension/extension.ts',
			'bench/syncBench.ts',
			'src/server/daemon.ts',
			'src/cli/main.ts',
			'bench/run.ts',
			'scripts/seedDemo.ts',
			'test/unit/architecture.test.ts',
		]) {
			const config = (await eslint.calculateConfigForFile(file)) as Linter.Config;
			assert.deepEqual(ruleOf(config, 'max-lines'), [2, { max: 400, ...sizeOptions }], `${file}: max-lines`);
			const functions = ruleOf(config, 'max-lines-per-function');
			if (file.startsWith('test/')) {
				assert.equal(functions, undefined, `${file}: no function rule`);
			} else {
				assert.deepEqual(functions, [2, { max: 80, ...sizeOptions }], `${file}: max-lines-per-function`);
			}
		}
	});

	void it('finds a function over 80 lines and lets one of 80 pass', async () => {
		const body = (lines: number): string => `export function f(): number {\n\tlet n = 0;\n${'\tn++;\n'.repeat(lines - 4)}\treturn n;\n}\n`;
		const eslint = new ESLint({
			cwd: root,
			overrideConfigFile: true,
			overrideConfig: [
				{
					files: ['**/*.ts'],
					languageOptions: { parser: tseslint.parser as Linter.Parser },
					rules: { 'max-lines-per-function': ['error', { max: 80, ...sizeOptions }] },
				},
			],
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
