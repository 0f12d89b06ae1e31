/**
 * A bundle loaded through its V8 code cache (src/hookHost/codeCache.ts): the first load compiles and
 * writes the cache beside the bundle, the next takes it; a cache V8 will not take (another build's,
 * damaged) or another build's of the same length (which V8 would take) is compiled past and written
 * again; a cache that cannot be written leaves nothing behind.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { loadWithCodeCache } from '../../../src/hookHost/codeCache';
import { tempDir } from '../helpers';

/** A CommonJS bundle that reads its own folder, requires a built-in and replaces module.exports, as esbuild's do. */
function bundle(dir: string): string {
	const file = path.join(dir, 'bundle.js');
	fs.writeFileSync(
		file,
		`const path = require('node:path');\nconst factor = 2;\nfunction twice(n) { return n * factor; }\nmodule.exports = { folder: path.basename(__dirname), name: path.basename(__filename), twice };\n`,
	);
	return file;
}

const cacheFiles = (dir: string): string[] => fs.readdirSync(dir).filter((f) => f !== 'bundle.js' && f !== 'load.ts');

/**
 * One load in a process of its own, as the launcher and a backend load theirs: within one process V8
 * finds a script it compiled before in its own compilation cache and never looks at the one given.
 */
function loadInChild(dir: string, file: string, save: boolean): { cached: boolean; twice: number; folder: string; name: string } {
	const runner = path.join(dir, 'load.ts');
	fs.writeFileSync(
		runner,
		`import { loadWithCodeCache } from ${JSON.stringify(path.resolve(__dirname, '../../../src/hookHost/codeCache'))};
const loaded = loadWithCodeCache<{ folder: string; name: string; twice: (n: number) => number }>(${JSON.stringify(file)}, module);
if (${save}) loaded.save();
process.stdout.write(JSON.stringify({ cached: loaded.cached, twice: loaded.exports.twice(21), folder: loaded.exports.folder, name: loaded.exports.name }));
`,
	);
	return JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', runner], { encoding: 'utf8', timeout: 30_000 })) as {
		cached: boolean;
		twice: number;
		folder: string;
		name: string;
	};
}

test('a bundle compiles once: the cache written beside it is taken by the next process, and one V8 rejects is written again', (t) => {
	const dir = tempDir(t);
	const file = bundle(dir);
	assert.deepEqual(loadInChild(dir, file, false), { cached: false, twice: 42, folder: path.basename(dir), name: 'bundle.js' });
	assert.deepEqual(cacheFiles(dir), [], 'nothing is written before save()');
	assert.equal(loadInChild(dir, file, true).cached, false);
	const [cache] = cacheFiles(dir);
	assert.ok(cache && cache.includes(process.versions.v8) && cache.endsWith('.v8cache'), cacheFiles(dir).join(', '));
	assert.deepEqual(loadInChild(dir, file, true), { cached: true, twice: 42, folder: path.basename(dir), name: 'bundle.js' });

	// Another build's cache, or a damaged one: compiled past, then written again.
	fs.writeFileSync(path.join(dir, cache), 'not a code cache');
	assert.equal(loadInChild(dir, file, true).cached, false, 'a damaged cache is not taken');
	assert.equal(loadInChild(dir, file, false).cached, true, 'and is written again');
	fs.appendFileSync(file, '// a new build\n');
	assert.equal(loadInChild(dir, file, true).cached, false, "the old build's cache is not taken");
	assert.equal(loadInChild(dir, file, false).cached, true);
	assert.deepEqual(cacheFiles(dir), [cache]);

	// A new build of the same length (V8 checks no more than the length): its own code runs, not the
	// cached build's, and its cache replaces the old one.
	const before = fs.readFileSync(file, 'utf8');
	fs.writeFileSync(file, before.replace('factor = 2', 'factor = 3'));
	assert.equal(fs.statSync(file).size, Buffer.byteLength(before));
	assert.deepEqual(loadInChild(dir, file, true), { cached: false, twice: 63, folder: path.basename(dir), name: 'bundle.js' });
	assert.deepEqual(loadInChild(dir, file, false), { cached: true, twice: 63, folder: path.basename(dir), name: 'bundle.js' });
});

test('the flavour names its own cache: a process under other V8 flags never rejects the other', (t) => {
	const dir = tempDir(t);
	const file = bundle(dir);
	loadWithCodeCache(file, module).save();
	loadWithCodeCache(file, module, '.liftoff').save();
	assert.equal(cacheFiles(dir).length, 2);
	assert.equal(cacheFiles(dir).filter((f) => f.endsWith('.liftoff.v8cache')).length, 1);
});

/** A bundle whose cache's name is known and free: a cache was written there, then removed. */
function freedCachePlace(t: TestContext): { dir: string; file: string; cache: string } {
	const dir = tempDir(t);
	const file = bundle(dir);
	loadWithCodeCache(file, module).save();
	const [cache] = cacheFiles(dir);
	assert.ok(cache);
	fs.rmSync(path.join(dir, cache));
	return { dir, file, cache };
}

test('a cache that cannot be written (its name taken by a folder) is skipped: the load works and no temporary file is left', (t) => {
	const { dir, file, cache } = freedCachePlace(t);
	fs.mkdirSync(path.join(dir, cache));
	const loaded = loadWithCodeCache<{ twice: (n: number) => number }>(file, module);
	assert.equal(loaded.cached, false);
	assert.doesNotThrow(() => loaded.save());
	assert.equal(loaded.exports.twice(3), 6);
	assert.deepEqual(cacheFiles(dir), [cache], 'no .tmp left beside it');
});

test('a FIFO or a huge file in the cache place is passed over without waiting or reading it, and replaced by a real cache', (t) => {
	const { dir, file, cache } = freedCachePlace(t);
	execFileSync('mkfifo', [path.join(dir, cache)]);
	// A blocking read of the FIFO would wait here for a writer that never comes (the test would time out).
	assert.deepEqual(loadInChild(dir, file, true), { cached: false, twice: 42, folder: path.basename(dir), name: 'bundle.js' });
	assert.ok(fs.statSync(path.join(dir, cache)).isFile(), 'the FIFO is replaced by the cache');
	assert.equal(loadInChild(dir, file, false).cached, true);

	fs.truncateSync(path.join(dir, cache), 65 * 1024 * 1024);
	assert.equal(loadInChild(dir, file, true).cached, false, 'a sparse 65 MB file is not read as a cache');
	assert.equal(loadInChild(dir, file, false).cached, true);
});
