/**
 * dist/backend.js, how every backend process starts: the editor window's (forked with an IPC
 * channel) and the workspace daemon (spawned by a `baton` client). It loads dist/server.js through its
 * V8 code cache (hookHost/codeCache.ts), and server.js then runs as if it had been started itself,
 * with the same arguments (`node dist/server.js …` still works, compiling every time).
 *
 * A backend runs for hours, so the cache is not left to its exit alone: it is written a few seconds
 * after the start, when the first requests have compiled what they need (a window's first views, a
 * client's first command), or at exit if that comes first. Once written, every later backend takes it.
 */
import path from 'node:path';
import { loadWithCodeCache } from '../hookHost/codeCache';
import { leanHeap } from './leanHeap';

/** Long enough for a backend's first answers, short enough that a daemon which serves one command and stops has written it. */
const saveAfterMs = 3_000;

// Before server.js is compiled: V8 keeps the flags in its code cache's check, so a flag set after the
// load would make every later backend's cache look foreign (and be thrown away).
leanHeap();
const loaded = loadWithCodeCache(path.join(__dirname, 'server.js'), module);
if (!loaded.cached) {
	setTimeout(loaded.save, saveAfterMs).unref();
	process.once('exit', loaded.save);
}
