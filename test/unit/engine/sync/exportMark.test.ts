/**
 * An export reads only the local events above the durable "exported up to" mark. The mark is
 * trusted only while it names the ref's tip and its row: a mark left behind by a crash (an older
 * tip), a mark naming another row, a file of the earlier format or no file at all fall back to the
 * ids the ref holds. In every case each local event reaches the ref exactly once.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { ShadowRepo } from '../../../../src/engine/shadow/shadowRepo';
import { silentLogger } from '../../../../src/engine/ports';
import { machineIdentity } from '../../../../src/engine/shared/machineIdentity';
import { appendSharedEvent } from '../../../../src/engine/shared/sharedEvents';
import { sharedEvents } from '../../../../src/engine/storage/schema';
import { EventRefs } from '../../../../src/engine/sync/eventRefs';
import { localCheckpointCommits, localCheckpointCommitsSql, readExportMark, writeExportMark } from '../../../../src/engine/sync/exportMark';
import { batonDir } from '../../../../src/engine/workspace';
import { EngineHost } from '../../../../src/server/engineHost';
import { openTestEngine, tempDir, type TestEngine } from '../../helpers';
import { startEnd, syncWorld } from './syncWorld';

async function writeEvents(side: TestEngine, count: number, tag: string): Promise<void> {
	const machine = machineIdentity(side.root);
	await side.engine.store.write((db) => {
		for (let i = 0; i < count; i++) {
			side.clock.advance(1);
			appendSharedEvent(db, machine, side.clock.now(), {
				kind: 'decision.recorded',
				subject: `dec_${tag}_${i}`,
				actor: 'test',
				body: { text: `${tag} ${i}` },
			});
		}
	});
}

/** Every event id in the side's events ref, in ref order (duplicates kept), and the local ids. */
async function refAndLocal(side: TestEngine): Promise<{ inRef: string[]; local: string[] }> {
	const refs = new EventRefs(new ShadowRepo(side.root, batonDir(side.root)), machineIdentity(side.root).id);
	const tip = await refs.tip(refs.eventsRef);
	const inRef = tip ? (await refs.readEvents(null, tip)).map((e) => e.id) : [];
	const local = await side.engine.store.read((db) =>
		db
			.select({ id: sharedEvents.id })
			.from(sharedEvents)
			.where(eq(sharedEvents.source, 'local'))
			.all()
			.map((e) => e.id),
	);
	return { inRef, local };
}

async function assertExactlyOnce(side: TestEngine, step: string): Promise<void> {
	const { inRef, local } = await refAndLocal(side);
	assert.equal(new Set(inRef).size, inRef.length, `${step}: an event was exported twice`);
	assert.deepEqual([...inRef].sort(), [...local].sort(), `${step}: the ref holds exactly the local events`);
}

test('each local event reaches the events ref once, whatever state the export mark is in', async (t) => {
	const w = await syncWorld(t);
	const markFile = path.join(w.a.root, '.baton', 'sync', 'exported.json');
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');

	await writeEvents(w.a, 40, 'first');
	await w.a.engine.sync.export();
	await assertExactlyOnce(w.a, 'first export');
	const first = JSON.parse(fs.readFileSync(markFile, 'utf8')) as { tip: string; rowid: number; id: string };
	assert.equal(typeof first.rowid, 'number');

	// Nothing new: nothing written, the mark stays.
	assert.equal((await w.a.engine.sync.export()).events, 0);
	assert.deepEqual(JSON.parse(fs.readFileSync(markFile, 'utf8')), { version: 2, ...first });

	// A crash after fast-import, before the mark was written: the mark names the older tip.
	await writeEvents(w.a, 25, 'second');
	assert.equal((await w.a.engine.sync.export()).events, 25);
	fs.writeFileSync(markFile, JSON.stringify(first));
	await writeEvents(w.a, 5, 'third');
	assert.equal((await w.a.engine.sync.export()).events, 5, 'only the events the ref does not hold');
	await assertExactlyOnce(w.a, 'after a stale mark');
	assert.equal((await w.a.engine.sync.status()).remotes[0]?.ahead, 70);

	// A mark whose row is another event (a database numbered afresh).
	const current = JSON.parse(fs.readFileSync(markFile, 'utf8')) as { tip: string; rowid: number; id: string };
	fs.writeFileSync(markFile, JSON.stringify({ ...current, rowid: current.rowid - 3 }));
	await writeEvents(w.a, 4, 'fourth');
	assert.equal((await w.a.engine.sync.status()).remotes[0]?.ahead, 74, 'status counts the unexported events through the fallback too');
	assert.equal((await w.a.engine.sync.export()).events, 4);
	await assertExactlyOnce(w.a, 'after a mark naming another row');

	// The earlier format (every exported id), and no file at all.
	fs.writeFileSync(markFile, JSON.stringify({ tip: current.tip, ids: [] }));
	await writeEvents(w.a, 3, 'fifth');
	assert.equal((await w.a.engine.sync.export()).events, 3);
	fs.rmSync(markFile);
	await writeEvents(w.a, 2, 'sixth');
	assert.equal((await w.a.engine.sync.export()).events, 2);
	await assertExactlyOnce(w.a, 'after an old-format file and no file');

	// And the other clone receives each of them once.
	await w.a.engine.sync.push();
	const pulled = await w.b.engine.sync.pull();
	assert.equal(pulled.newEvents, 79);
	assert.equal((await w.a.engine.sync.status()).remotes[0]?.ahead, 0);
});

test('a long history goes out a page at a time, each event once, and a crash between pages loses none', async (t) => {
	const w = await syncWorld(t, { syncPageEvents: 7 });
	const shadow = new ShadowRepo(w.a.root, batonDir(w.a.root));
	const refs = new EventRefs(shadow, machineIdentity(w.a.root).id);
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');
	await writeEvents(w.a, 40, 'first');
	const first = await w.a.engine.sync.export();
	await assertExactlyOnce(w.a, 'a paged export');
	const counts = async (): Promise<number[]> =>
		(await shadow.gitText(['log', '--format=%s', refs.eventsRef]))
			.split('\n')
			.filter((l) => l.startsWith('baton events: '))
			.map((l) => Number(l.slice('baton events: '.length)));
	// Every local event so far (the 40 and whatever enabling wrote), seven to a commit.
	assert.equal(first.events, (await refAndLocal(w.a)).local.length);
	assert.ok(first.events >= 40);
	assert.deepEqual(
		(await counts()).reverse(),
		[...Array.from({ length: Math.floor(first.events / 7) }, () => 7), first.events % 7].filter((n) => n > 0),
	);
	// Each batch file is sorted by id.
	for (const file of (await shadow.gitText(['ls-tree', '-r', '--name-only', refs.eventsRef])).split('\n').filter(Boolean)) {
		const ids = (await shadow.gitText(['show', `${refs.eventsRef}:${file}`]))
			.split('\n')
			.filter(Boolean)
			.map((l) => (JSON.parse(l) as { id: string }).id);
		assert.deepEqual(ids, [...ids].sort(), file);
	}

	// The third page's fast-import dies: the ref holds two pages, the mark still names the older tip.
	await writeEvents(w.a, 30, 'second');
	const append = EventRefs.prototype.append;
	let calls = 0;
	EventRefs.prototype.append = async function (this: EventRefs, ...args: Parameters<EventRefs['append']>) {
		if (++calls === 3) throw new Error('killed mid-export');
		return append.apply(this, args);
	};
	try {
		await assert.rejects(w.a.engine.sync.export(), /killed mid-export/);
	} finally {
		EventRefs.prototype.append = append;
	}
	const { inRef, local } = await refAndLocal(w.a);
	assert.equal(inRef.length, first.events + 14, 'two pages of the second export reached the ref');
	assert.equal(local.length, first.events + 30);
	assert.equal((await w.a.engine.sync.export()).events, 16, 'the next export sends only the rest');
	await assertExactlyOnce(w.a, 'after a crash between pages');

	await w.a.engine.sync.push();
	assert.equal((await w.b.engine.sync.pull()).newEvents, first.events + 30);
});

test('an idle backend exports the waiting events ahead of the push, and only while a remote is enabled', async (t) => {
	const w = await syncWorld(t);
	const refs = new EventRefs(new ShadowRepo(w.a.root, batonDir(w.a.root)), machineIdentity(w.a.root).id);
	assert.equal(await w.a.engine.sync.exportAhead(), 0);
	const host = new EngineHost({
		workspaceRoot: w.a.root,
		config: {},
		log: silentLogger,
		readOnly: false,
		onDidChange: () => {},
		pollMs: 50,
		idleCompactMs: 100,
	});
	t.after(() => host.dispose());
	await host.get();
	await writeEvents(w.a, 12, 'off');
	await sleep(1_000);
	assert.equal(await refs.tip(refs.eventsRef), null, 'nothing is exported while sync is off');

	await w.a.engine.sync.enable('origin');
	await writeEvents(w.a, 8, 'on');
	for (let waited = 0; (await refs.tip(refs.eventsRef)) === null && waited < 20_000; waited += 100) {
		await sleep(100);
	}
	await assertExactlyOnce(w.a, 'idle export');
	assert.equal((await w.a.engine.sync.status()).remotes[0]?.ahead, 20, 'exported, not pushed: still ahead');
	const pushed = await w.a.engine.sync.push();
	assert.equal(pushed[0]?.pushed.length, 1);
	await w.b.engine.sync.enable('origin');
	assert.equal((await w.b.engine.sync.pull()).newEvents, 20);
});

test('the export finds this machine’s checkpoint commits through the kind index, not by reading every local event', async (t) => {
	const side = await openTestEngine(t);
	const machine = machineIdentity(side.root);
	const commit = (n: number): string => n.toString(16).padStart(40, '0');
	await side.engine.store.write((db) => {
		for (let i = 0; i < 300; i++) {
			side.clock.advance(1);
			appendSharedEvent(db, machine, side.clock.now(), {
				kind: 'timeline.step',
				subject: `ses_t_${i}`,
				sessionId: 'ses_t',
				actor: 'test',
				body: { step: i },
			});
		}
		for (let i = 1; i <= 3; i++) {
			side.clock.advance(1);
			appendSharedEvent(db, machine, side.clock.now(), {
				kind: 'checkpoint.recorded',
				subject: `cp_${i}`,
				actor: 'test',
				body: { commitOid: commit(i) },
			});
		}
		// A teammate's checkpoint, pulled: not this machine's to export.
		side.clock.advance(1);
		const pulled = appendSharedEvent(db, machine, side.clock.now(), {
			kind: 'checkpoint.recorded',
			subject: 'cp_9',
			actor: 'test',
			body: { commitOid: commit(9) },
		});
		db.update(sharedEvents).set({ source: 'origin' }).where(eq(sharedEvents.id, pulled.id)).run();
	});
	const { commits, plan } = await side.engine.store.read((db) => ({
		commits: localCheckpointCommits(db),
		plan: db.all<{ detail: string }>(sql`EXPLAIN QUERY PLAN ${localCheckpointCommitsSql}`).map((r) => r.detail),
	}));
	assert.deepEqual([...commits].sort(), [commit(1), commit(2), commit(3)]);
	assert.ok(
		plan.some((d) => d.includes('shared_events_kind_subject_idx')),
		plan.join('; '),
	);
	assert.ok(!plan.some((d) => d.includes('shared_events_source_idx')), plan.join('; '));
});

test('an export above the split bound is several batch files in one commit, read back whole and in order', async (t) => {
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin');
	await startEnd(w.a, 'parser', 'parser done');
	await w.a.engine.sync.push();
	const machine = machineIdentity(w.a.root).id;
	const shadow = new ShadowRepo(w.a.root, batonDir(w.a.root));
	const refs = new EventRefs(shadow, machine, 2_000);
	const before = await refs.tip(refs.eventsRef);
	const wire = Array.from({ length: 60 }, (_, i) => ({
		id: `evt_01KZ${String(i).padStart(22, '0')}_${machine}`,
		kind: 'decision.recorded',
		subject: `dec_${i}`,
		sessionId: null,
		actor: 'test',
		machine,
		at: '2026-03-01T10:00:00.000Z',
		body: { text: `decision ${i} ${'·'.repeat(i % 7 === 0 ? 2_500 : 20)}` },
	}));
	const text = wire.map((e) => JSON.stringify(e)).join('\n');
	await shadow.withLock(() => refs.append({ count: wire.length, text, lastId: wire[wire.length - 1]!.id }, [], Date.now()));
	const tip = await refs.tip(refs.eventsRef);
	assert.ok(tip && tip !== before);
	const files = (await shadow.gitText(['diff-tree', '-r', '--name-only', '--no-commit-id', before as string, tip])).split('\n');
	assert.ok(files.length > 10, `${files.length} files`);
	assert.ok(files.includes(`batches/${wire[wire.length - 1]!.id}.jsonl`));
	const sizes = (await shadow.gitText(['ls-tree', '-r', '-l', tip, 'batches/'])).split('\n').map((l) => Number(l.split(/\s+/)[3]));
	assert.ok(
		sizes.every((n) => n <= 2_000 + 1 || n > 2_500),
		`every file under the bound but those of one long line: ${sizes.join(', ')}`,
	);
	assert.deepEqual(await refs.readEvents(before, tip), wire, 'every event once, in order, as written');
});

test('writing the mark removes the temp files a crashed writer of it left (a dead pid’s), as atomicWriteFile does, and keeps a live writer’s', (t) => {
	const dir = path.join(tempDir(t, 'baton-export-mark-'), 'sync');
	fs.mkdirSync(dir);
	const file = path.join(dir, 'exported.json');
	const dead = spawnSync(process.execPath, ['-e', '']).pid;
	assert.ok(dead);
	fs.writeFileSync(`${file}.tmp-${dead}`, 'half a mark');
	fs.writeFileSync(`${file}.tmp-${process.ppid}`, 'a live writer’s');
	writeExportMark(file, { tip: 'a'.repeat(40), rowid: 7, id: 'evt_7' });
	assert.deepEqual(readExportMark(file, 'a'.repeat(40)), { tip: 'a'.repeat(40), rowid: 7, id: 'evt_7' });
	assert.deepEqual(fs.readdirSync(dir).sort(), ['exported.json', `exported.json.tmp-${process.ppid}`]);
	if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'the mark stays private');
});
