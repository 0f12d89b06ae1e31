/**
 * Two commands on one engine at once (the daemon's lanes): each marks its own writes — a CLI
 * command's request id (requestLedger.ts), a hook event's once-only id (hookOnce.ts) — and one that
 * ends first no longer takes the other's marking with it. A real engine on a real SQLite file.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { EventOnce } from '../../../src/hookHost/hookOnce';
import { runAsRequest, tagWrites } from '../../../src/cli/requestLedger';
import { Engine } from '../../../src/engine/engine';
import { silentLogger } from '../../../src/engine/ports';
import { tempDir } from '../helpers';

async function openEngine(t: Parameters<typeof tempDir>[0]): Promise<Engine> {
	const root = tempDir(t, 'baton-wrappers-');
	spawnSync('git', ['init', '-q', root]);
	const engine = await Engine.open({ workspaceRoot: root, log: silentLogger, create: true, git: { read: async () => null } });
	t.after(() => engine.close());
	return engine;
}

function recorded(engine: Engine): string[] {
	return (engine.store.sqlite.exec('SELECT id FROM client_requests ORDER BY id')[0]?.values ?? []).map((row) => String(row[0]));
}

test("a command that ends first leaves the other command's request id on its first write", async (t) => {
	const engine = await openEngine(t);
	let bWrites: () => void = () => undefined;
	const bMayWrite = new Promise<void>((resolve) => (bWrites = resolve));
	let aEnded: () => void = () => undefined;
	const aDone = new Promise<void>((resolve) => (aEnded = resolve));
	let aTaggedResolve: () => void = () => undefined;
	const aTagged = new Promise<void>((resolve) => (aTaggedResolve = resolve));
	const b = runAsRequest('req-b', async () => {
		await aTagged;
		const tag = tagWrites(engine, 'req-b', 'task add');
		bWrites();
		await aDone;
		// A untagged before this first write of B's.
		await engine.tasks.add({ title: 'by b', actor: 'test' });
		tag.untag();
		return tag.wrote();
	});
	const a = runAsRequest('req-a', async () => {
		const tag = tagWrites(engine, 'req-a', 'task add');
		aTaggedResolve();
		await bMayWrite;
		await engine.tasks.add({ title: 'by a', actor: 'test' });
		tag.untag();
		aEnded();
		return tag.wrote();
	});
	assert.deepEqual(await Promise.all([a, b]), [true, true]);
	assert.deepEqual(recorded(engine), ['req-a', 'req-b']);
	// Neither wrapper is left behind: a write outside both is recorded under no id.
	await engine.tasks.add({ title: 'by nobody', actor: 'test' });
	assert.deepEqual(recorded(engine), ['req-a', 'req-b']);
});

test("a hook event that runs while a command is under way keeps its once-only check, and the command's id stays its own", async (t) => {
	const engine = await openEngine(t);
	let hookStarted: () => void = () => undefined;
	const started = new Promise<void>((resolve) => (hookStarted = resolve));
	const command = runAsRequest('req-long', async () => {
		const tag = tagWrites(engine, 'req-long', 'checkpoint create');
		await started;
		// The event is open: its writes are one record (storage/oneWrite.ts), so this write follows it.
		await engine.tasks.add({ title: 'by the command', actor: 'test' });
		tag.untag();
		return tag.wrote();
	});
	const once = new EventOnce('hook:event-1', 'hook UserPromptSubmit');
	const hook = once.run(engine, async () => {
		hookStarted();
		await engine.tasks.add({ title: 'by the hook', actor: 'test' });
	});
	assert.deepEqual(await Promise.all([command, hook]), [true, undefined]);
	assert.equal(once.started, true);
	assert.deepEqual(recorded(engine), ['hook:event-1', 'req-long']);
	// The same event again is refused as already recorded: its check is still in place for a second copy.
	const again = new EventOnce('hook:event-1', 'hook UserPromptSubmit');
	await assert.rejects(
		again.run(engine, () => engine.tasks.add({ title: 'twice', actor: 'test' })),
		/already recorded \(hook:event-1\)/,
	);
	assert.deepEqual((await engine.tasks.list()).map((task) => task.title).sort(), ['by the command', 'by the hook']);
});
