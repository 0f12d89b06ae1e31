/**
 * Loading a bundle through a V8 code cache kept beside it: the launcher's in-process fallback
 * (dist/baton.js, dist/hook.js) and every backend process (dist/backend.js loading dist/server.js).
 * Compiling a 4 MB bundle is a fifth of a cold start; with the cache V8 deserialises the functions
 * the last run compiled instead of compiling them again.
 *
 * V8 rejects a cache made by another V8 or under other flags, so the name carries Node's and V8's
 * versions (the editor's Electron and the `node` on PATH can share a Node version, not a V8) and the
 * caller's flavour (`.liftoff` for a process that set `--liftoff-only` before loading). A rejected
 * cache is written again. V8 checks the source only by its length: a rebuilt bundle of the same
 * length ran the old build's code from the old cache (seen: a constant changed from `2e4` to `5e3`
 * and the old value ran). The cache therefore begins with the SHA-256 of the bundle it was made from
 * (2-3 ms for a 4 MB bundle), and one made from other bytes is not given to V8. The cache lives next to the bundle (the user's own extension folder), never
 * in a shared temporary folder another user could write; a read-only install just compiles each time.
 * Node built-ins only: the hook client (dist/cli.js) bundles this file.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

interface CachedLoad<T> {
	exports: T;
	/** True when V8 took the cache: nothing to write. */
	cached: boolean;
	/**
	 * Writes the cache (once) with every function compiled so far, so the next run deserialises what
	 * this one ran, not only the top level. A no-op when the cache was taken or is written already.
	 */
	save: () => void;
}

/** The cache file of `file` in this runtime and flavour. */
function codeCacheFile(file: string, flavour = ''): string {
	return `${file}.${process.version}-v8-${process.versions.v8}${flavour}.v8cache`;
}

/** Loads `file` as a CommonJS module (child of `parent`) through its code cache. */
export function loadWithCodeCache<T>(file: string, parent: Module, flavour = ''): CachedLoad<T> {
	const cacheFile = codeCacheFile(file, flavour);
	const source = fs.readFileSync(file);
	const digest = createHash('sha256').update(source).digest();
	const cachedData = readCache(cacheFile, digest);
	const script = new vm.Script(Module.wrap(source.toString('utf8')), { filename: file, ...(cachedData ? { cachedData } : {}) });
	const cached = cachedData !== undefined && !script.cachedDataRejected;
	const mod = new Module(file, parent);
	mod.filename = file;
	const run = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;
	let saved = cached;
	const save = (): void => {
		if (saved) {
			return;
		}
		saved = true;
		const temp = `${cacheFile}.${process.pid}.tmp`;
		try {
			// The file first: a read-only install finds out before V8 serialises megabytes for nothing.
			const fd = fs.openSync(temp, 'w');
			try {
				fs.writeFileSync(fd, digest);
				fs.writeFileSync(fd, script.createCachedData());
			} finally {
				fs.closeSync(fd);
			}
			fs.renameSync(temp, cacheFile);
		} catch {
			// Read-only install, or out of disk: the next run compiles again. Never throws (it runs at exit).
			try {
				fs.rmSync(temp, { force: true });
			} catch {
				// Nothing of ours there to remove.
			}
		}
	};
	run.call(mod.exports, mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
	return { exports: mod.exports as T, cached, save };
}

/** A cache is a few MB: anything far larger is not one (nor read into memory to find out). */
const maxCacheBytes = 64 * 1024 * 1024;

/**
 * The cache's V8 bytes, or undefined: none yet, unreadable, not a regular file of a sensible size (a
 * FIFO in its place is opened without waiting for a writer and then passed over, as a device is), or
 * made from another bundle (its first bytes are not `digest`, the bundle's SHA-256).
 */
function readCache(cacheFile: string, digest: Buffer): Buffer | undefined {
	let fd: number;
	try {
		fd = fs.openSync(cacheFile, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
	} catch {
		return undefined; // First run (or no cache): compile normally; the caller saves one.
	}
	try {
		const stat = fs.fstatSync(fd);
		if (!stat.isFile() || stat.size === 0 || stat.size > maxCacheBytes) {
			return undefined;
		}
		const bytes = Buffer.allocUnsafe(stat.size);
		let read = 0;
		while (read < bytes.length) {
			const n = fs.readSync(fd, bytes, read, bytes.length - read, read);
			if (n === 0) break;
			read += n;
		}
		return read === bytes.length && bytes.length > digest.length && bytes.subarray(0, digest.length).equals(digest)
			? bytes.subarray(digest.length)
			: undefined;
	} catch {
		return undefined;
	} finally {
		fs.closeSync(fd);
	}
}
