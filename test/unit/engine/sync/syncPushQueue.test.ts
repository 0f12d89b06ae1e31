/**
 * The push queue is durable: a `baton sync push` process killed at random moments (in export, in
 * git push, after it) loses nothing and the next push completes it; an update that arrives while a
 * push is on the wire is pushed next time. Runs the real CLI (dist/cli.js, built by `node esbuild.mjs`).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'node:test';
import { eq } from 'drizzle-orm';
import { machineIdentity } from '../../../../src/engine/shared/machineIdentity';
import { appendSharedEvent } from '../../../../src/engine/shared/sharedEvents';
import { sharedEvents } from '../../../../src/engine/storage/schema';
import type { TestEngine } from '../../helpers';
import { git, syncWorld } from './syncWorld';

const cli = path.resolve(__dirname, '../../../../dist/cli.js');

async function writeEvents(side: TestEngine, count: number, tag: string): Promise<string[]> {
	const machine = machineIdentity(side.root);
	return side.engine.store.write((db) => {
		const ids: string[] = [];
		for (let i = 0; i < count; i++) {
			side.clock.advance(1);
			ids.push(
				appendSharedEvent(db, machine, side.clock.now(), {
					kind: 'decision.recorded',
					subject: `dec_${tag}_${i}`,
					actor: 'test',
					body: { text: `${tag} ${i}` },
				}).id,
			);
		}
		return ids;
	});
}

async function localIds(side: TestEngine): Promise<string[]> {
	return side.engine.store.read((db) =>
		db
			.select({ id: sharedEvents.id })
			.from(sharedEvents)
			.where(eq(sharedEvents.source, 'local'))
			.all()
			.map((e) => e.id)
			.sort(),
	);
}

async function idsFrom(side: TestEngine, source: string): Promise<string[]> {
	return side.engine.store.read((db) =>
		db
			.select({ id: sharedEvents.id })
			.from(sharedEvents)
			.where(eq(sharedEvents.source, source))
			.all()
			.map((e) => e.id)
			.sort(),
	);
}

function forEachLock(dir: string, fn: (file: string) => void): void {
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) {
			forEachLock(full, fn);
		} else if (entry.name.endsWith('.lock')) {
			fn(full);
		}
	}
}

function preReceive(bare: string, script: string): void {
	const file = path.join(bare, 'hooks', 'pre-receive');
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, `#!/bin/sh\n${script}\ncat >/dev/null\nexit 0\n`, { mode: 0o755 });
}

test('a push killed at random moments (30 rounds) loses nothing, and the next push completes it', async (t) => {
	assert.ok(fs.existsSync(cli), 'dist/cli.js is missing: run `node esbuild.mjs` first');
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');
	// A remote that takes its time, so kills land inside git push as well as before and after it.
	preReceive(w.bare, 'sleep 0.2');
	let killed = 0;
	for (let round = 0; round < 30; round++) {
		await writeEvents(w.a, 3, `round${round}`);
		const child = spawn(process.execPath, [cli, 'sync', 'push', '--no-daemon', '--json'], {
			cwd: w.a.root,
			detached: true,
			stdio: 'ignore',
			env: { ...process.env, BATON_MACHINE_NAME: 'a' },
		});
		const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
		const after = Math.floor(Math.random() * 900);
		const winner = await Promise.race([exited.then(() => 'exited' as const), sleep(after).then(() => 'timer' as const)]);
		if (winner === 'timer' && child.pid) {
			// The whole group: the CLI and the git it runs.
			try {
				process.kill(-child.pid, 'SIGKILL');
				killed++;
			} catch {
				// It finished in the same instant.
			}
		}
		await exited;
	}
	assert.ok(killed >= 10, `only ${killed} of 30 pushes were killed`);
	// Over file:// the remote's receive-pack is in the killed process group too, and one killed while
	// updating a ref leaves that ref's lock file in the remote ("failed to update ref"). A real server
	// does not die with its client; the test plays that server and clears what only its own death left.
	forEachLock(path.join(w.bare, 'refs'), (file) => fs.rmSync(file, { force: true }));
	await w.a.engine.sync.push();
	const status = await w.a.engine.sync.status();
	assert.deepEqual(
		status.remotes.map((r) => [r.ahead, r.queued]),
		[[0, 0]],
	);
	const machineA = machineIdentity(w.a.root).id;
	const [localTip] = [git(w.a.root, ['rev-parse', `refs/baton/events/${machineA}`], { GIT_DIR: path.join(w.a.root, '.baton', 'shadow.git') })];
	assert.equal(git(w.bare, ['rev-parse', `refs/baton/events/${machineA}`], { GIT_DIR: w.bare }), localTip);
	await w.b.engine.sync.pull();
	const sent = await localIds(w.a);
	assert.ok(sent.length >= 90);
	assert.deepEqual(await idsFrom(w.b, 'origin'), sent, 'every event A wrote reached B');
});

test('an update that arrives while a push is on the wire is pushed next time', async (t) => {
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');
	const first = await writeEvents(w.a, 5, 'before');
	const marker = path.join(w.dir, 'receiving');
	preReceive(w.bare, `touch '${marker}'\nsleep 1.5`);
	const pushing = w.a.engine.sync.push();
	for (let waited = 0; !fs.existsSync(marker); waited += 20) {
		assert.ok(waited < 30_000, 'the push never reached the remote');
		await sleep(20);
	}
	const during = await writeEvents(w.a, 4, 'during');
	await pushing;
	fs.rmSync(path.join(w.bare, 'hooks', 'pre-receive'));
	await w.b.engine.sync.pull();
	const onB = await idsFrom(w.b, 'origin');
	assert.ok(
		first.every((id) => onB.includes(id)),
		'the events before the push arrived',
	);
	assert.ok(
		during.every((id) => !onB.includes(id)),
		'the events written during the push were not in it',
	);
	const status = await w.a.engine.sync.status();
	assert.ok((status.remotes[0]?.ahead ?? 0) >= during.length, JSON.stringify(status));
	assert.ok((status.remotes[0]?.queued ?? 0) >= 1);
	await w.a.engine.sync.push();
	await w.b.engine.sync.pull();
	const after = await idsFrom(w.b, 'origin');
	assert.ok(
		during.every((id) => after.includes(id)),
		'the next push took them',
	);
});
