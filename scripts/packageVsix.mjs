#!/usr/bin/env node
// Packs dist/ (as last built) into a .vsix with @vscode/vsce, offline: esbuild already bundled every
// dependency (--no-dependencies), README links stay relative (its screenshots ship in the .vsix) and
// there is no LICENSE file (the manifest names MIT). `npm run package` builds first; the tests call
// this directly on the build `npm test` made. Usage: node scripts/packageVsix.mjs [out.vsix]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Packs the extension into `out`; throws with vsce's output when it fails. */
export function packageVsix(out) {
	for (const f of ['dist/extension.js', 'dist/cli.js', 'dist/sql-wasm.wasm']) {
		if (!fs.existsSync(path.join(root, f))) throw new Error(`${f} is missing: build first (npm run build)`);
	}
	const vsce = createRequire(import.meta.url).resolve('@vscode/vsce/vsce');
	const r = spawnSync(
		process.execPath,
		[vsce, 'package', '--no-dependencies', '--no-rewrite-relative-links', '--skip-license', '--no-update-package-json', '--out', out],
		{ cwd: root, encoding: 'utf8' },
	);
	if (r.status !== 0) throw new Error(`vsce package failed:\n${r.stdout}${r.stderr}`);
	return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
	const out = path.resolve(process.argv[2] ?? path.join(root, `${pkg.name}-${pkg.version}.vsix`));
	try {
		packageVsix(out);
		console.log(`packaged ${path.relative(process.cwd(), out)} (${Math.round(fs.statSync(out).size / 1024)} KB)`);
	} catch (error) {
		console.error(error instanceof Error ? error.message : String(error));
		process.exit(1);
	}
}
