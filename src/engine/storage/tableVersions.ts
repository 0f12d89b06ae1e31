const tableOfStatement = /^\s*(?:insert\s+(?:or\s+\w+\s+)?into|update(?:\s+or\s+\w+)?|delete\s+from|replace\s+into)\s+["`]?(\w+)/i;

/** The table a statement writes, or '*' when it names none a change counter knows (it counts for all). */
export function tableOf(statement: string): string {
	return tableOfStatement.exec(statement)?.[1] ?? '*';
}

/**
 * Change counters per table, cache keys for derived data: bumped by every applied write or reload.
 * Beside them, each table's content mark: where in the store's history the table last changed, the
 * same in every process (below), a key for derived data kept on disk between processes.
 */
export class TableVersions {
	private readonly versions = new Map<string, number>();
	private version = 0;
	/** The store's generation (a compaction starts one) and the sequence its snapshot holds. */
	private generation: string | undefined;
	private base = 0;
	/** The sequence of the last durable record of this generation that wrote each table ('*': all). */
	private readonly changedAt = new Map<string, number>();

	get data(): number {
		return this.version;
	}

	/** Bumps whenever `table` changes; reloads bump every table. */
	of(table: string): number {
		return (this.versions.get(table) ?? 0) + (this.versions.get('*') ?? 0);
	}

	/** The statements of one applied record; a statement naming no table counts for all. */
	bump(statements: readonly string[]): void {
		this.version++;
		for (const statement of statements) {
			const table = tableOf(statement);
			this.versions.set(table, (this.versions.get(table) ?? 0) + 1);
		}
	}

	/** Everything may have changed (a reload from disk). */
	bumpAll(): void {
		this.versions.set('*', (this.versions.get('*') ?? 0) + 1);
		this.version++;
	}

	/**
	 * The store as loaded or compacted: generation `generation` from its snapshot at `base`, and the
	 * records replayed on top of it with the tables they wrote (`touched`: table → last sequence).
	 */
	rebase(generation: string | undefined, base: number, touched?: ReadonlyMap<string, number>): void {
		this.generation = generation;
		this.base = base;
		this.changedAt.clear();
		for (const [table, seq] of touched ?? []) this.changedAt.set(table, seq);
	}

	/** A record, now durable (appended, replayed, or in a snapshot). */
	durable(record: { seq: number; stmts: readonly (readonly [string, unknown])[] }): void {
		for (const statement of record.stmts) this.changedAt.set(tableOf(statement[0]), record.seq);
	}

	/**
	 * What the content of `tables` is, named the same by every process that holds it: the generation
	 * and the sequence of the last record that wrote any of them (the snapshot's when none since). A
	 * generation's snapshot and records never change once written (journalStore.ts), so two processes
	 * with the same mark hold the same rows. Undefined for a store whose snapshot names no generation.
	 */
	mark(tables: readonly string[]): string | undefined {
		if (this.generation === undefined) return undefined;
		let last = Math.max(this.base, this.changedAt.get('*') ?? 0);
		for (const table of tables) last = Math.max(last, this.changedAt.get(table) ?? 0);
		return `${this.generation}:${last}`;
	}
}
