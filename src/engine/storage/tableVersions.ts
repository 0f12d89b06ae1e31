const tableOfStatement = /^\s*(?:insert\s+(?:or\s+\w+\s+)?into|update(?:\s+or\s+\w+)?|delete\s+from|replace\s+into)\s+["`]?(\w+)/i;

/** Change counters per table, cache keys for derived data: bumped by every applied write or reload. */
export class TableVersions {
	private readonly versions = new Map<string, number>();
	private version = 0;

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
			const table = tableOfStatement.exec(statement)?.[1] ?? '*';
			this.versions.set(table, (this.versions.get(table) ?? 0) + 1);
		}
	}

	/** Everything may have changed (a reload from disk). */
	bumpAll(): void {
		this.versions.set('*', (this.versions.get('*') ?? 0) + 1);
		this.version++;
	}
}
