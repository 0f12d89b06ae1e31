/**
 * The extension as users install it: the .vsix that `npm run package` makes (the same vsce call, on
 * the current build) carries what runs and nothing else: no sources, tests, source maps or
 * node_modules (esbuild bundled them), but every file the manifest and the README point at.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { packageVsix } from '../../scripts/packageVsix.mjs';
import { zipEntries } from '../harness/zipEntries.mjs';

const root = path.resolve(__dirname, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<string, unknown>;

/** Every string under a manifest key that names a file of the extension (icons, walkthrough media). */
function manifestFiles(value: unknown, key = ''): string[] {
	if (typeof value === 'string') {
		return ['icon', 'markdown', 'image', 'svg', 'light', 'dark'].includes(key) && /^(\.\/)?[\w.-]+\/[\w./-]+\.\w+$/.test(value)
			? [value.replace(/^\.\//, '')]
			: [];
	}
	if (Array.isArray(value)) return value.flatMap((v) => manifestFiles(v, key));
	if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => manifestFiles(v, k));
	return [];
}

describe('the .vsix', () => {
	let dir: string;
	let files: string[];
	before(() => {
		dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-vsix-'));
		const entries = zipEntries(fs.readFileSync(packageVsix(path.join(dir, 'baton.vsix'))));
		assert.ok(entries.includes('extension.vsixmanifest'), 'no extension.vsixmanifest: not a VSIX');
		files = entries.filter((e) => e.startsWith('extension/')).map((e) => e.slice('extension/'.length));
	});
	after(() => fs.rmSync(dir, { recursive: true, force: true }));

	it('has the bundles, the WASM, the webview, the manifest and the README', () => {
		for (const f of [
			'package.json',
			'readme.md',
			'dist/extension.js',
			'dist/server.js',
			'dist/backend.js',
			'dist/cli.js',
			'dist/baton.js',
			'dist/hook.js',
			'dist/sql-wasm.wasm',
			'dist/webview/main.js',
		]) {
			assert.ok(files.includes(f), `${f} is missing from the .vsix (${files.join(', ')})`);
		}
	});

	it('has every file the manifest points at', () => {
		const wanted = [
			String(manifest.main).replace(/^\.\//, ''),
			...Object.values(manifest.bin as Record<string, string>).map((b) => b.replace(/^\.\//, '')),
			...manifestFiles(manifest.contributes),
		];
		assert.ok(
			wanted.some((f) => f.startsWith('media/walkthrough/')),
			'the walkthrough media were not found in the manifest: the scan is broken',
		);
		for (const f of wanted) assert.ok(files.includes(f), `${f} (named in package.json) is missing from the .vsix`);
	});

	it('has every image the README shows (its links stay relative to the installed extension)', () => {
		const images = [...fs.readFileSync(path.join(root, 'README.md'), 'utf8').matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)]
			.map((m) => m[1] ?? '')
			.filter((u) => u !== '' && !/^[a-z]+:/i.test(u));
		for (const image of images) assert.ok(files.includes(image), `${image} (shown in README.md) is missing from the .vsix`);
	});

	it('carries no sources, tests, source maps, code caches or node_modules', () => {
		const stray = files.filter(
			(f) =>
				/^(src|test|webview|scripts|bench|drizzle|out|\.baton)\//.test(f) ||
				/(^|\/)node_modules\//.test(f) ||
				// A code cache is this machine's V8's (hookHost/codeCache.ts writes one beside each bundle it loads).
				/\.(ts|tsx|map|mjs|v8cache)$/.test(f) ||
				/^(tsconfig|esbuild|drizzle\.config|package-lock)/.test(f),
		);
		assert.deepEqual(stray, []);
	});

	it('installs as a bundled extension: its code needs no package at run time', () => {
		// A bare require() left in a bundle would fail in the installed extension, where no node_modules exists.
		// (A require inside a string or template literal is code ajv generates as text, never run here.)
		for (const bundle of files.filter((f) => /^dist\/[^/]+\.js$/.test(f))) {
			const text = fs.readFileSync(path.join(root, bundle), 'utf8');
			const bare = [...text.matchAll(/(?<![`'\w$.])require\("([^"./][^"]*)"\)/g)]
				.map((m) => m[1] ?? '')
				.filter((name) => !name.startsWith('node:') && name !== 'vscode' && !isBuiltin(name));
			assert.deepEqual([...new Set(bare)], [], `${bundle} requires packages that are not in the .vsix`);
		}
	});
});

function isBuiltin(name: string): boolean {
	return builtinModules.includes(name.split('/')[0] ?? name);
}
