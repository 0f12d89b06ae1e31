/**
 * The daemon's one engine, held by several commands at once (its lanes): a reopen (its files were
 * replaced behind its back) waits until nobody holds it, keeps newcomers out meanwhile, and two
 * commands that find it stale at once open it once. A real workspace, the real DaemonBackend.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { Engine } from '../../../src/engine/engine';
import { BatonError } from '../../../src/engine/errors';
import { tasks } from '../../../src/engine/storage/schema';
import { silentLogger } from '../../../src/engine/ports';
import { DaemonBackend } from '../../../src/server/daemonBackend';
import { EngineHost } from '../../../src/server/engineHost';
import { taskRow, tempDir } from '../helpers';

/** A workspace, its daemon backend, and another process's write and compaction (a new snapshot file: the warm engine is stale). */
async function staleBackend(t: TestContext): Promise<{ root: string; backend: DaemonBackend; replace(): Promise<void> }> {
	const root = tempDir(t, 'baton-gate-');
	spawnSync('git', ['init', '-q', root]);
	(await Engine.open({ workspaceRoot: root, log: silentLogger, create: true, git: { read: async () => null } })).close();
	const backend = new DaemonBackend({ workspaceRoot: root, log: silentLogger, readOnly: false, checkpointTimer: false, secretsFromProcessEnv: false });
	t.after(() => backend.dispose());
	const replace = async (): Promise<void> => {
		const other = await Engine.open({ workspaceRoot: root, log: silentLogger, git: { read: async () => null } });
		await other.tasks.add({ title: 'written elsewhere', actor: 'test' });
		await other.store.compact();
		other.close();
	};
	return { root, backend, replace };
}

const io = { stderr: () => undefined, env: {} };

test('two commands that find the engine stale at once reopen it once and share the new one', async (t) => {
	const { root, backend, replace } = await staleBackend(t);
	const warm = await backend.asCommand({}, () => backend.acquire(root, io));
	backend.release(warm, root);
	assert.equal(backend.opened, 1);
	await replace();
	const [first, second] = await Promise.all([1, 2].map(() => backend.asCommand({}, () => backend.acquire(root, io))));
	assert.ok(first && second);
	assert.equal(first, second, 'both got the same engine');
	assert.notEqual(first, warm, 'a new engine on the replaced files');
	assert.equal(backend.opened, 2, 'opened once for the two of them');
	assert.deepEqual(
		(await first.tasks.list()).map((task) => task.title),
		['written elsewhere'],
	);
	backend.release(first, root);
	backend.release(second, root);
	const next = await backend.asCommand({}, () => backend.acquire(root, io));
	assert.equal(next, first, 'warm again');
	backend.release(next, root);
});

test('while a long command holds the engine, commands that find it stale get it at once and nobody closes it under the holder', async (t) => {
	const { root, backend, replace } = await staleBackend(t);
	const held = await backend.asCommand({}, () => backend.acquire(root, io));
	await replace();
	// Neither waits for the holder, and the holder's engine stays open: its store reads the new files itself.
	const [first, second] = await Promise.all([1, 2].map(() => backend.asCommand({}, () => backend.acquire(root, io))));
	assert.equal(first, held);
	assert.equal(second, held);
	assert.equal(backend.opened, 1);
	for (const engine of [held, first, second]) {
		assert.deepEqual(
			(await engine.tasks.list()).map((task) => task.title),
			['written elsewhere'],
		);
		backend.release(engine, root);
	}
});

test("the engine's warnings during a command go to that command, not to another one running beside it", async (t) => {
	const root = tempDir(t, 'baton-gate-');
	spawnSync('git', ['init', '-q', root]);
	(await Engine.open({ workspaceRoot: root, log: silentLogger, create: true, git: { read: async () => null } })).close();
	const processLog: string[] = [];
	const backend = new DaemonBackend({
		workspaceRoot: root,
		log: { info: () => undefined, warn: (m) => void processLog.push(m), error: (m) => void processLog.push(m) },
		readOnly: false,
		checkpointTimer: false,
		secretsFromProcessEnv: false,
	});
	t.after(() => backend.dispose());
	const heard: Record<string, string[]> = { a: [], b: [] };
	const io = (name: 'a' | 'b') => ({ stderr: (text: string) => void heard[name]?.push(text), env: {} });
	let release: () => void = () => undefined;
	const barrier = new Promise<void>((resolve) => (release = resolve));
	// Both commands hold the engine at once; each warns after the other acquired it.
	const a = backend.asCommand({}, async () => {
		const engine = await backend.acquire(root, io('a'));
		await barrier;
		engine.ctx.log.warn('from a');
		backend.release(engine, root);
	});
	const b = backend.asCommand({}, async () => {
		const engine = await backend.acquire(root, io('b'));
		release();
		engine.ctx.log.warn('from b');
		backend.release(engine, root);
	});
	await Promise.all([a, b]);
	// Outside any command: the process's own log.
	backend.host.log.warn('from the process');
	assert.deepEqual(heard, { a: ['baton: warning: from a\n'], b: ['baton: warning: from b\n'] });
	assert.deepEqual(processLog, ['from the process']);
});

/** A workspace whose snapshot spans several 4 MB pieces, one byte of its last piece flipped (a bad disk; Baton never writes it in place). */
async function damagedWorkspace(t: TestContext): Promise<string> {
	const root = tempDir(t, 'baton-gate-');
	spawnSync('git', ['init', '-q', root]);
	(await Engine.open({ workspaceRoot: root, log: silentLogger, create: true, git: { read: async () => null } })).close();
	const seeded = await Engine.open({ workspaceRoot: root, log: silentLogger, git: { read: async () => null } });
	await seeded.store.write((db) => {
		for (let n = 1; n <= 3_000; n++)
			db.insert(tasks)
				.values({ ...taskRow(n), title: `task ${n} ${'x'.repeat(3_000)}` })
				.run();
	});
	await seeded.store.compact();
	seeded.close();
	const dbFile = path.join(root, '.baton', 'baton.db');
	const size = fs.statSync(dbFile).size;
	assert.ok(size > 8 * 1024 * 1024, `${size} bytes: more than two pieces`);
	const fd = fs.openSync(dbFile, 'r+');
	const byte = Buffer.alloc(1);
	fs.readSync(fd, byte, 0, 1, size - 2_000);
	fs.writeSync(fd, Buffer.from([(byte[0] as number) ^ 0xff]), 0, 1, size - 2_000);
	fs.closeSync(fd);
	return root;
}

test('a command that meets damage in the snapshot fails with it, and the next command gets a newly opened engine', async (t) => {
	const root = await damagedWorkspace(t);
	const backend = new DaemonBackend({ workspaceRoot: root, log: silentLogger, readOnly: false, checkpointTimer: false, secretsFromProcessEnv: false });
	t.after(() => backend.dispose());
	const damaged = await backend.asCommand({}, () => backend.acquire(root, io));
	await assert.rejects(
		damaged.tasks.list(),
		(e: unknown) => BatonError.is(e, 'corruptDatabase') && e.message.includes('does not match its recorded checksum'),
	);
	assert.ok(damaged.store.damage, 'the store says what it met');
	backend.release(damaged, root);
	const next = await backend.asCommand({}, () => backend.acquire(root, io));
	assert.notEqual(next, damaged, 'the damaged engine is not lent again');
	assert.equal(backend.opened, 2);
	assert.equal(next.store.damage, undefined, 'the new one has met nothing yet');
	assert.equal(next.store.sqlite.exec('SELECT count(*) FROM sessions')[0]?.values[0]?.[0], 0, 'what lies clear of the damage still answers');
	await assert.rejects(next.tasks.list(), (e: unknown) => BatonError.is(e, 'corruptDatabase'), 'and what reaches it fails the same way');
	backend.release(next, root);
});

test('a window’s request after one met damage gets a newly opened engine, once no command holds the damaged one', async (t) => {
	const root = await damagedWorkspace(t);
	const backend = new DaemonBackend({ workspaceRoot: root, log: silentLogger, readOnly: false, checkpointTimer: false, secretsFromProcessEnv: false });
	t.after(() => backend.dispose());
	// A command holds the engine; a window's requests take the host's engine directly (handlers.ts), not through the gate.
	const held = await backend.asCommand({}, () => backend.acquire(root, io));
	const first = await backend.host.get();
	assert.equal(first, held);
	await assert.rejects(first.tasks.list(), (e: unknown) => BatonError.is(e, 'corruptDatabase'));
	assert.ok(first.store.damage, 'the store says what it met');
	assert.equal(await backend.host.get(), held, 'not closed under the command that holds it');
	backend.release(held, root);

	const next = await backend.host.get();
	assert.notEqual(next, held, 'the damaged engine is not used again once nobody holds it');
	assert.equal(next.store.damage, undefined);
	assert.equal(next.store.sqlite.exec('SELECT count(*) FROM sessions')[0]?.values[0]?.[0], 0, 'what lies clear of the damage answers');
	await assert.rejects(next.tasks.list(), (e: unknown) => BatonError.is(e, 'corruptDatabase'), 'and what reaches it fails the same way');
	const [a, b] = await Promise.all([backend.host.get(), backend.host.get()]);
	assert.ok(a === b && a !== next, 'two requests that find it damaged at once open it once');
});

/** Every engine `Engine.open` opens while `run` runs, in order. */
async function recordingOpens<T>(run: () => Promise<T>): Promise<{ result: T; opened: Engine[] }> {
	const original = Engine.open.bind(Engine);
	const opened: Engine[] = [];
	Engine.open = async (options) => {
		const engine = await original(options);
		opened.push(engine);
		return engine;
	};
	try {
		return { result: await run(), opened };
	} finally {
		Engine.open = original;
	}
}

const isClosed = async (engine: Engine): Promise<boolean> => engine.store.read(() => false).catch((error: unknown) => BatonError.is(error, 'storageFailure'));

test('two reopens at once, or a dispose while the engine opens, leave no engine open behind', async (t) => {
	const root = tempDir(t, 'baton-reopen-');
	(await Engine.open({ workspaceRoot: root, log: silentLogger, create: true, git: { read: async () => null } })).close();
	const hostOf = () => {
		const host = new EngineHost({ workspaceRoot: root, config: {}, log: silentLogger, readOnly: false, onDidChange: () => undefined });
		t.after(() => host.dispose());
		return host;
	};
	const host = hostOf();
	const { result, opened } = await recordingOpens(async () => {
		const first = await host.get();
		return { first, both: await Promise.all([host.reopen(), host.reopen()]) };
	});
	const [a, b] = result.both;
	assert.equal(a, b, 'both reopens answer with the same engine');
	assert.equal(host.current, a);
	assert.ok(opened.includes(result.first) && opened.includes(a));
	for (const engine of opened) {
		assert.equal(await isClosed(engine), engine !== a, 'every engine but the current one is closed');
	}
	// A reopen asked while an opening is under way, and a dispose while one is.
	const other = hostOf();
	const during = await recordingOpens(async () => {
		const opening = other.get();
		const reopened = await other.reopen();
		return { first: await opening, reopened };
	});
	assert.notEqual(during.result.reopened, during.result.first);
	for (const engine of during.opened) {
		assert.equal(await isClosed(engine), engine !== during.result.reopened);
	}
	const disposed = hostOf();
	const late = await recordingOpens(async () => {
		const opening = disposed.get();
		disposed.dispose();
		return opening.then(
			() => 'opened',
			(error: unknown) => (BatonError.is(error, 'storageFailure') ? 'refused' : String(error)),
		);
	});
	assert.equal(late.result, 'refused', 'a caller waiting on an opening the dispose overtook is told so');
	assert.equal(late.opened.length, 1);
	assert.equal(await isClosed(late.opened[0] as Engine), true, 'the engine opened after the dispose is closed');
});

test('an engine the host closes while a window’s requests run is closed once they end, not under them', async (t) => {
	const root = await damagedWorkspace(t);
	const host = new EngineHost({ workspaceRoot: root, config: {}, log: silentLogger, readOnly: false, onDidChange: () => undefined });
	t.after(() => host.dispose());
	let release = (): void => undefined;
	const held = new Promise<void>((resolve) => (release = resolve));
	// A long request (a search, an export) has the engine and is still working.
	const first = await host.get();
	const long = host.serve(async () => {
		const engine = await host.get();
		await held;
		return engine.store.read(() => 'answered');
	});
	// Another request meets the damage; the next one gets a newly opened engine.
	await host.serve(async () => assert.rejects((await host.get()).tasks.list(), (e: unknown) => BatonError.is(e, 'corruptDatabase')));
	const next = await host.serve(() => host.get());
	assert.notEqual(next, first, 'reopened after the damage');
	assert.equal(await isClosed(first), false, 'not closed while the long request still runs');
	release();
	assert.equal(await long, 'answered', 'the long request finished on the engine it had');
	assert.equal(await isClosed(first), true, 'closed once no request runs');
	assert.equal(await isClosed(next), false);
});

test('the engine’s own compaction between commands (a background push, the idle maintenance) is no reason to reopen it; another process’s is', async (t) => {
	const { root, backend, replace } = await staleBackend(t);
	const warm = await backend.asCommand({}, () => backend.acquire(root, io));
	backend.release(warm, root);
	// Between commands, the engine writes and compacts by itself: a new snapshot and journal, its own.
	await warm.tasks.add({ title: 'written by the background', actor: 'test' });
	await warm.store.compact();
	await warm.tasks.add({ title: 'and after it', actor: 'test' });
	const next = await backend.asCommand({}, () => backend.acquire(root, io));
	assert.equal(next, warm, 'the same engine: its own files');
	assert.equal(backend.opened, 1);
	backend.release(next, root);
	// Another process's compaction after it: opened again on the replaced files.
	await replace();
	const after = await backend.asCommand({}, () => backend.acquire(root, io));
	assert.notEqual(after, warm);
	assert.equal(backend.opened, 2);
	assert.deepEqual((await after.tasks.list()).map((task) => task.title).sort(), ['and after it', 'written by the background', 'written elsewhere']);
	backend.release(after, root);
});
