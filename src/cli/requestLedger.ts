/**
 * Exactly-once for commands a client sent to the daemon. The client gives each command a random
 * request id; the daemon records that id in the same journal write as the command's first change,
 * and the answer (exit code, output) once the command is done. A client whose daemon died before
 * answering cannot tell whether the command ran, so it runs it in its own process with the same id:
 * the id already recorded means "already done", and the recorded answer is printed instead of a
 * second run. An id not recorded means the command changed nothing, and running it is safe.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Engine } from '../engine/engine';
import { wrapWrites } from '../hookHost/writeWrappers';

export interface RecordedAnswer {
	/** Undefined when the command wrote but its daemon died before recording what it printed. */
	exitCode: number | undefined;
	stdout: string;
	stderr: string;
}

/** Rows older than this are of no use to any client (a client waits seconds, not days). */
const keepMs = 24 * 60 * 60_000;

export async function recordedAnswer(engine: Engine, requestId: string): Promise<RecordedAnswer | undefined> {
	const store = engine.store;
	const row = await store.read(() => store.sqlite.exec('SELECT exit_code, stdout, stderr FROM client_requests WHERE id = ?', [requestId])[0]?.values[0]);
	return (
		row && {
			exitCode: typeof row[0] === 'number' ? row[0] : undefined,
			stdout: typeof row[1] === 'string' ? row[1] : '',
			stderr: typeof row[2] === 'string' ? row[2] : '',
		}
	);
}

/** The request whose command this async call chain belongs to (see `runAsRequest`). */
const currentRequest = new AsyncLocalStorage<string>();

/** Runs a command as request `requestId`: only writes made on its behalf carry its id. */
export function runAsRequest<T>(requestId: string, fn: () => Promise<T>): Promise<T> {
	return currentRequest.run(requestId, fn);
}

/**
 * Until the returned function is called, the command's first write also records the request id,
 * inside that write's transaction: the id is durable exactly when the change is. In the daemon the
 * engine is shared with the editor's requests, deliveries, timers and other commands (its lanes), so a
 * write carries the id only when it is made on this command's behalf (its async context,
 * `runAsRequest`), and each command's wrapper comes and goes on its own (writeWrappers.ts).
 */
export function tagWrites(engine: Engine, requestId: string, command: string): { wrote(): boolean; untag(): void } {
	const store = engine.store;
	let wrote = false;
	const untag = wrapWrites(store, (fn, next) => {
		const mine = currentRequest.getStore() === requestId;
		return next((db) => {
			const result = fn(db);
			if (!wrote && mine) {
				store.execCaptured('INSERT OR IGNORE INTO client_requests (id, command, created_at) VALUES (?, ?, ?)', [
					requestId,
					command,
					new Date().toISOString(),
				]);
				wrote = true;
			}
			return result;
		});
	});
	return { wrote: () => wrote, untag };
}

/** The answer of a command that wrote, for a client that asks again; old rows go in the same write. */
export async function recordAnswer(engine: Engine, requestId: string, answer: { exitCode: number; stdout: string; stderr: string }): Promise<void> {
	await engine.store.write(() => {
		engine.store.execCaptured('UPDATE client_requests SET exit_code = ?, stdout = ?, stderr = ? WHERE id = ?', [
			answer.exitCode,
			answer.stdout,
			answer.stderr,
			requestId,
		]);
		engine.store.execCaptured('DELETE FROM client_requests WHERE created_at < ?', [new Date(Date.now() - keepMs).toISOString()]);
	});
}
