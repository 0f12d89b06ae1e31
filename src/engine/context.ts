import type { BatonConfig } from './config';
import { DomainEvents } from './events';
import type { Clock, Logger } from './ports';
import type { BatonDb, JournalStore } from './storage/journalStore';

/** What every engine service shares: the store, the host's ports, the configuration. */
export class EngineContext {
	private readonly derivedCache = new Map<string, { key: string; value: unknown }>();
	/** Told of every change inside its write (see events.ts). */
	readonly events = new DomainEvents();

	constructor(
		readonly store: JournalStore,
		readonly clock: Clock,
		readonly log: Logger,
		readonly config: BatonConfig,
		readonly workspaceRoot: string,
	) {}

	nowIso(): string {
		return new Date(this.clock.now()).toISOString();
	}

	/**
	 * A value derived from some tables as of the data applied so far (the task graph, say), rebuilt
	 * only when one of those tables changed. The rooms above own what they derive; the context only
	 * remembers it, so it needs to know none of them. `build` gets the value it replaces, if any, to
	 * update rather than rebuild what did not change.
	 */
	derived<T>(name: string, tables: readonly string[], build: (db: BatonDb, previous: T | undefined) => T): T {
		const key = derivedKey(this.store, tables);
		const cached = this.derivedCache.get(name);
		if (cached?.key === key) {
			return cached.value as T;
		}
		const value = build(this.store.db, cached?.value as T | undefined);
		this.derivedCache.set(name, { key, value });
		return value;
	}

	/** The value `derived` would return for these tables if it needs no rebuild; undefined when it would build one. */
	derivedIfCurrent<T>(name: string, tables: readonly string[]): T | undefined {
		const cached = this.derivedCache.get(name);
		return cached?.key === derivedKey(this.store, tables) ? (cached.value as T) : undefined;
	}
}

/** The tables' versions as one string: a derived value is current while it is unchanged. */
function derivedKey(store: JournalStore, tables: readonly string[]): string {
	return tables.map((table) => `${table}@${store.tableVersion(table)}`).join(':');
}
