import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import * as esbuild from 'esbuild';

const repo = path.resolve(__dirname, '../../..');

test('the hook client (dist/cli.js) bundles no engine, no drizzle and no sql.js', async () => {
	const result = await esbuild.build({
		entryPoints: [path.join(repo, 'src/cli/launcher.ts')],
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target: 'node20',
		write: false,
		metafile: true,
		mainFields: ['module', 'main'],
		logLevel: 'silent',
	});
	const inputs = Object.keys(result.metafile.inputs);
	assert.ok(inputs.some((file) => file.endsWith('src/cli/daemonClient.ts')));
	assert.deepEqual(
		inputs.filter((file) => /node_modules\/(sql\.js|drizzle-orm|vscode-jsonrpc|zod)\/|src\/engine\//.test(file)),
		[],
	);
	const bytes = result.outputFiles[0]?.contents.byteLength ?? Infinity;
	assert.ok(bytes < 40_000, `dist/cli.js is ${bytes} bytes`);
});
