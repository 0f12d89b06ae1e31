/**
 * Tables SQLite's triggers keep from another (`session_scopes`, `session_status_counts`,
 * `task_status_counts`, `task_done_children`): each must say what its aggregate computed from
 * scratch says, after any write, in any order.
 */
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import type { Engine } from '../../../src/engine/engine';
import type { BatonDb } from '../../../src/engine/storage/journalStore';

/** A kept table's rows and the aggregate they stand for, both as queries ordered alike. */
export interface KeptTable {
	name: string;
	kept: string;
	aggregate: string;
}

export function compareKept(db: BatonDb, tables: readonly KeptTable[], step: string): void {
	for (const table of tables) {
		assert.deepEqual(db.all(sql.raw(table.kept)), db.all(sql.raw(table.aggregate)), `${table.name} after ${step}`);
	}
}

/** A small deterministic generator, so a failing sequence is the same on every run. */
export function random(seed: number): () => number {
	let x = seed;
	return () => {
		x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
		return x / 2 ** 31;
	};
}

/**
 * Runs 400 of `steps` picked by `next`, the first (an insert) weighing more so the table grows while
 * everything else happens to it, and `check` after each; every kind of step must have run.
 */
export async function randomWrites(next: () => number, steps: readonly [string, () => Promise<void>][], check: (step: string) => Promise<void>): Promise<void> {
	const counts = new Map<string, number>();
	for (let i = 0; i < 400; i++) {
		const [name, run] =
			next() < 0.35 ? (steps[0] as [string, () => Promise<void>]) : (steps[Math.floor(next() * steps.length)] as [string, () => Promise<void>]);
		await run();
		counts.set(name, (counts.get(name) ?? 0) + 1);
		await check(`${name} (step ${i})`);
	}
	assert.ok(
		[...counts.values()].every((n) => n > 5),
		`every kind of change ran: ${JSON.stringify([...counts])}`,
	);
}

/** Writes to `table` (keyed by `id`) through the store, each captured for the journal as the engine's are. */
export function tableWrites(engine: Engine, table: 'sessions' | 'tasks') {
	const ids = async (): Promise<string[]> =>
		engine.store.read((db) => db.all<{ id: string }>(sql.raw(`SELECT id FROM ${table} ORDER BY id`)).map((r) => r.id));
	const exec = (statement: string, params: (string | null)[]): Promise<void> => engine.store.write(() => engine.store.execCaptured(statement, params));
	return {
		ids,
		/** `set` (with `params`) on the row `id`; nothing when there is none. */
		update: async (id: string | undefined, set: string, params: (string | null)[]): Promise<void> => {
			if (id) await exec(`UPDATE ${table} SET ${set} WHERE id = ?`, [...params, id]);
		},
		/** Every row whose `column` IS `value`. */
		removeWhere: (column: string, value: string | null): Promise<void> => exec(`DELETE FROM ${table} WHERE ${column} IS ?`, [value]),
	};
}
