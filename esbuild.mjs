// @ts-check
// Builds Baton's bundles: the extension (the only one that may see `vscode`), the backend server,
// the CLI, and the browser-side webviews; copies sql.js's WASM beside the Node bundles.
import * as esbuild from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';
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

/** @type {import('esbuild').BuildOptions[]} */
const builds = [
	// A `vscode` import reaching the server or the CLI fails their build: only this bundle marks it external.
	{ ...node, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'], plugins: [problemMatcher] },
	{ ...node, entryPoints: ['src/server/main.ts'], outfile: 'dist/server.js', plugins: [problemMatcher, copySqlWasm] },
	// What starts a backend (the editor's or the daemon): dist/server.js through its V8 code cache.
	{ ...node, entryPoints: ['src/server/backend.ts'], outfile: 'dist/backend.js', plugins: [problemMatcher] },
	// The `baton` command: a launcher (dist/cli.js) that loads the whole CLI (dist/baton.js) or, for
	// agent hooks, a smaller bundle without the MCP server and the mail client (dist/hook.js).
	{
		...node,
		entryPoints: ['src/cli/launcher.ts'],
		outfile: 'dist/cli.js',
		banner: { js: '#!/usr/bin/env node' },
		plugins: [problemMatcher, executable('dist/cli.js')],
	},
	{ ...node, entryPoints: ['src/cli/main.ts'], outfile: 'dist/baton.js', plugins: [problemMatcher, copySqlWasm] },
	{ ...node, entryPoints: ['src/cli/hookMain.ts'], outfile: 'dist/hook.js', external: ['nodemailer'], plugins: [problemMatcher] },
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
