// @ts-check
// Builds Baton's bundles: the extension (the only one that may see `vscode`), the backend server,
// the CLI, and the browser-side webviews; copies sql.js's WASM beside the Node bundles.
import * as esbuild from 'esbuild';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { chmodSync, existsSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** @type {import('esbuild').Plugin} */
const problemMatcher = {
	name: 'esbuild-problem-matcher',
	setup(build) {
		build.onStart(() => {
			if (watch) console.log('[watch] build started');
		});
		build.onEnd((result) => {
			for (const { text, location } of result.errors) {
				console.error(`✘ [ERROR] ${text}`);
				if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
			}
			if (watch) console.log('[watch] build finished');
		});
	},
};

/** @type {import('esbuild').Plugin} */
/**
 * dist/cli.js is run as `baton` (linked onto PATH, named in agents' hook files): esbuild writes it with
 * the umask's mode, so a fresh build would leave it without its executable bit.
 * @param {string} file
 * @returns {import('esbuild').Plugin}
 */
function executable(file) {
	return {
		name: 'executable',
		setup(build) {
			build.onEnd((result) => {
				if (result.errors.length === 0 && existsSync(file)) {
					chmodSync(file, 0o755);
				}
			});
		},
	};
}

/**
 * Keeps a Node bundle ASCII: V8 holds an all-ASCII source one byte a character and decodes it faster
 * (a backend loads ~30 ms sooner than from the two-byte string one character elsewhere makes of it).
 * esbuild escapes non-ASCII characters in strings and templates but copies comments as written: this
 * writes those on comment lines as \uXXXX. The lint keeps them out of regular expressions, and
 * test/unit/bundleText.test.ts checks every bundle, dependencies' code included.
 * @type {import('esbuild').Plugin}
 */
const asciiComments = {
	name: 'ascii-comments',
	setup(build) {
		build.onEnd(async (result) => {
			const file = build.initialOptions.outfile;
			if (result.errors.length > 0 || !file || !existsSync(file)) {
				return;
			}
			const text = await readFile(file, 'utf8');
			if (!/[\u0080-\uffff]/.test(text)) {
				return;
			}
			const escaped = text
				.split('\n')
				.map((line) =>
					/^\s*(\/\/|\/\*|\*)/.test(line) ? line.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : line,
				)
				.join('\n');
			await writeFile(file, escaped);
		});
	},
};

const copySqlWasm = {
	name: 'copy-sql-wasm',
	setup(build) {
		build.onEnd(async () => {
			await mkdir('dist', { recursive: true });
			await copyFile('node_modules/sql.js/dist/sql-wasm.wasm', 'dist/sql-wasm.wasm');
		});
	},
};

/** @type {import('esbuild').BuildOptions} */
const node = {
	bundle: true,
	platform: 'node',
	format: 'cjs',
	target: 'node20',
	sourcemap: true,
	sourcesContent: false,
	minify: production,
	logLevel: 'silent',
	// drizzle/zod resolve their ESM builds; one copy of each in every bundle.
	mainFields: ['module', 'main'],
};
/** Every Node bundle's plugins. */
const nodePlugins = [problemMatcher, asciiComments];

/** @type {import('esbuild').BuildOptions[]} */
const builds = [
	// A `vscode` import reaching the server or the CLI fails their build: only this bundle marks it external.
	{ ...node, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'], plugins: nodePlugins },
	{ ...node, entryPoints: ['src/server/main.ts'], outfile: 'dist/server.js', plugins: [...nodePlugins, copySqlWasm] },
	// What starts a backend (the editor's or the daemon): dist/server.js through its V8 code cache.
	{ ...node, entryPoints: ['src/server/backend.ts'], outfile: 'dist/backend.js', plugins: nodePlugins },
	// The `baton` command: a launcher (dist/cli.js) that loads the whole CLI (dist/baton.js) or, for
	// agent hooks, a smaller bundle without the MCP server and the mail client (dist/hook.js).
	{
		...node,
		entryPoints: ['src/cli/launcher.ts'],
		outfile: 'dist/cli.js',
		banner: { js: '#!/usr/bin/env node' },
		plugins: [...nodePlugins, executable('dist/cli.js')],
	},
	{ ...node, entryPoints: ['src/cli/main.ts'], outfile: 'dist/baton.js', plugins: [...nodePlugins, copySqlWasm] },
	{ ...node, entryPoints: ['src/cli/hookMain.ts'], outfile: 'dist/hook.js', external: ['nodemailer'], plugins: nodePlugins },
	{
		bundle: true,
		platform: 'browser',
		format: 'esm',
		target: 'es2022',
		sourcemap: !production,
		minify: production,
		logLevel: 'silent',
		entryPoints: { main: 'webview/main.ts', replay: 'webview/replayMain.ts' },
		outdir: 'dist/webview',
		loader: { '.css': 'text' },
		plugins: [problemMatcher],
	},
].filter((b) => Object.values(/** @type {Record<string,string>|string[]} */ (b.entryPoints ?? [])).every((e) => existsSync(e)));

const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
if (watch) {
	await Promise.all(contexts.map((c) => c.watch()));
} else {
	const results = await Promise.allSettled(contexts.map((c) => c.rebuild()));
	await Promise.all(contexts.map((c) => c.dispose()));
	const failed = results.filter((r) => r.status === 'rejected');
	if (failed.length > 0) {
		process.exitCode = 1;
	}
}
