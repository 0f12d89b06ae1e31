/**
 * The backend (the daemon, the editor's) lives for hours and works in bursts: a pull, a push or an
 * import allocates hundreds of megabytes that are garbage a moment later. V8's default lets the old
 * generation grow to several times what survived its last full collection before the next one, so
 * the process's resident memory was mostly garbage not yet collected: a fresh clone's daemon pulling
 * 10,000 sessions' history peaked at 350-450 MB, of which ~30 MB were live after a collection.
 * Growing the heap by a fifth at most between full collections trades a little time for that memory,
 * the right trade for a process that runs beside the editor and the agents (docs/daemon.md). A
 * command's own process (an import the daemon hands off) keeps V8's default: it ends, and gives all of
 * it back, and its large live heap made the tighter bound cost it a quarter more time.
 *
 * Called at startup, before server.js is compiled (backend.ts: V8's code cache is checked against the
 * flags) and before the first full collection sets a limit; V8 reads the factor at each collection.
 */
import { setFlagsFromString } from 'node:v8';

const heapGrowingPercent = 20;

export function leanHeap(): void {
	setFlagsFromString(`--heap-growing-percent=${heapGrowingPercent}`);
}
