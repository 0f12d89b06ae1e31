/**
 * A command's own writes are marked by wrapping the store's `write` for its async context (the
 * request ledger, requestLedger.ts; a hook event's once-only check, hookOnce.ts). In the daemon
 * several commands share one store at once (its lanes, docs/daemon.md): assigning `store.write` and
 * putting the old one back afterwards would drop the wrapper of a command that began in between, and
 * with it that command's exactly-once record. Here each adds its own wrapper and removes only it.
 */
import type { BatonDb, JournalStore } from '../engine/storage/journalStore';

type WriteFn<T> = (db: BatonDb) => T;
/** Wraps one write; `next` is the write as the wrappers added before it (and the store) do it. */
type WriteWrapper = <T>(fn: WriteFn<T>, next: <R>(fn: WriteFn<R>) => Promise<R>) => Promise<T>;

interface Installed {
	original: JournalStore['write'];
	wrappers: WriteWrapper[];
}

const installed = new WeakMap<JournalStore, Installed>();

/** Adds `wrapper` around every write of `store` until the returned function is called. */
export function wrapWrites(store: JournalStore, wrapper: WriteWrapper): () => void {
	let entry = installed.get(store);
	if (!entry) {
		const own: Installed = { original: store.write, wrappers: [] };
		entry = own;
		installed.set(store, own);
		store.write = function <T>(this: JournalStore, fn: WriteFn<T>): Promise<T> {
			// The wrappers as they are when this write begins (one removed meanwhile still sees it through).
			const wrappers = own.wrappers.slice();
			const call = <R>(at: number, f: WriteFn<R>): Promise<R> => {
				const wrap = wrappers[at];
				return wrap ? wrap(f, (g) => call(at - 1, g)) : (own.original.call(store, f) as Promise<R>);
			};
			return call(wrappers.length - 1, fn);
		} as JournalStore['write'];
	}
	const list = entry.wrappers;
	list.push(wrapper);
	return () => {
		const at = list.indexOf(wrapper);
		if (at >= 0) {
			list.splice(at, 1);
		}
	};
}
