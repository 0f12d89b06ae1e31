/**
 * dist/cli.js, the `baton` command: a few lines that pick a bundle. `baton hook …` loads dist/hook.js
 * (an agent waits for every hook: it carries only what hooks need); everything else loads
 * dist/baton.js, the whole CLI. Both load through a V8 code cache kept beside them: compiling the
 * bundle was the largest part of a hook's time.
 *
 * The cache is only an optimisation: V8 rejects data that does not match the source, and any error
 * reading or writing it falls back to a plain load. It lives next to the bundles (the user's own
 * extension folder), never in a shared temporary folder another user could write.
 */
import fs from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

interface Entry {
	main(argv?: string[]): void;
}

const argv = process.argv.slice(2);
if (argv[0] === 'hook') {
	loadCached(path.join(__dirname, 'hook.js')).main(argv);
} else {
	loadCached(path.join(__dirname, 'baton.js')).main(argv);
}

function loadCached(file: string): Entry {
	const cacheFile = `${file}.${process.version}.v8cache`;
	let cachedData: Buffer | undefined;
	try {
		cachedData = fs.readFileSync(cacheFile);
	} catch {
		// First run (or no cache): compile normally and write one at exit.
	}
	const script = new vm.Script(Module.wrap(fs.readFileSync(file, 'utf8')), { filename: file, ...(cachedData ? { cachedData } : {}) });
	const mod = new Module(file, module);
	mod.filename = file;
	const run = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;
	run.call(mod.exports, mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
	if (!cachedData || script.cachedDataRejected) {
		// At exit the functions the hook ran are compiled too, so the next hook finds them in the cache.
		process.once('exit', () => {
			try {
				const temp = `${cacheFile}.${process.pid}.tmp`;
				fs.writeFileSync(temp, script.createCachedData());
				fs.renameSync(temp, cacheFile);
			} catch {
				// Read-only install or a race with another hook: the next hook compiles again.
			}
		});
	}
	return mod.exports as Entry;
}
