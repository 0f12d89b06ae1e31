/**
 * Applies drizzle-kit's migrations (embedded by scripts/embedMigrations.mjs) by tag. Unlike drizzle's
 * own migrator, which only compares timestamps with the last applied one, every tag is checked, so a
 * migration merged with an older timestamp is not skipped.
 */
import type { Database } from 'sql.js';

export interface EmbeddedMigration {
	tag: string;
	when: number;
	hash: string;
	statements: string[];
}

const migrationsTable = '__baton_migrations';

function appliedMigrationTags(sqlite: Database): Set<string> {
	const exists = sqlite.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '${migrationsTable}'`);
	if (exists.length === 0) {
		return new Set();
	}
	const rows = sqlite.exec(`SELECT tag FROM ${migrationsTable}`);
	return new Set((rows[0]?.values ?? []).map((r) => String(r[0])));
}

export function pendingMigrations(sqlite: Database, all: readonly EmbeddedMigration[]): EmbeddedMigration[] {
	const applied = appliedMigrationTags(sqlite);
	return all.filter((m) => !applied.has(m.tag));
}

/** The statements that apply `migration`, bookkeeping included, for one journaled transaction. */
export function migrationStatements(migration: EmbeddedMigration): [string, (string | number)[]][] {
	return [
		[`CREATE TABLE IF NOT EXISTS ${migrationsTable} (tag TEXT PRIMARY KEY, hash TEXT NOT NULL, created_at INTEGER NOT NULL)`, []],
		...migration.statements.map((s): [string, (string | number)[]] => [s, []]),
		[`INSERT INTO ${migrationsTable} (tag, hash, created_at) VALUES (?, ?, ?)`, [migration.tag, migration.hash, migration.when]],
	];
}
