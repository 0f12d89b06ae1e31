import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { asc } from 'drizzle-orm';
import type { Engine } from '../../../../src/engine/engine';
import { decisions, handoffs, sessionAliases, sessions } from '../../../../src/engine/storage/schema';
import { actor, type FakeClock, openTestEngine, snapshotFiles, tempDir } from '../../helpers';
import { writeJson, writeSeedSessionsFolder, type Json } from './interopFixtures';

const hour = 3_600_000;

/** A chain of three sessions (handoffs, decisions, aliases), a worker forked from the last, and an unrelated session. */
async function history(engine: Engine, clock: FakeClock): Promise<{ ids: string[]; worker: string; other: string }> {
	await engine.tasks.add({ title: 'Checkout', type: 'epic', actor });
	await engine.tasks.add({ title: 'Cart totals', parentId: 'T1', actor });
	const one = await engine.sessions.start({
		name: 'Checkout: part 1 / totals',
		scope: 'epic:T1',
		agent: 'claude-code',
		agentIdentifier: 'claude-aaa',
		actor,
	});
	await engine.tasks.focus({ id: 'T2', actor });
	await engine.sessions.recordDecision({ text: 'Integer cents', rationale: 'floats drift', actor });
	await engine.sessions.addAlias({ sessionId: one.session.id, agent: 'claude-code', alias: 'claude-bbb', actor });
	clock.advance(hour);
	await engine.sessions.end({ note: 'Totals done', nextAction: 'Payment form', blockers: ['sandbox down'], actor });
	clock.advance(hour);
	const two = await engine.sessions.start({ name: 'Checkout: part 2', scope: 'epic:T1', agent: 'copilot', actor });
	await engine.sessions.recordDecision({ text: 'Assume EUR only', kind: 'assumption', actor });
	clock.advance(hour);
	await engine.sessions.end({ note: 'Form done', actor });
	clock.advance(hour);
	const three = await engine.sessions.start({ name: 'Checkout: part 3 (CON)', scope: 'epic:T1', actor });
	clock.advance(60_000);
	const worker = await engine.sessions.start({ name: 'worker', scope: 'global', parentSessionId: three.session.id, actor });
	const other = await engine.sessions.start({ name: 'other work', scope: 'task:T2', actor });
	return { ids: [one.session.id, two.session.id, three.session.id], worker: worker.session.id, other: other.session.id };
}

function dump(engine: Engine) {
	return engine.store.read((db) => ({
		sessions: db.select().from(sessions).orderBy(asc(sessions.id)).all(),
		handoffs: db.select().from(handoffs).orderBy(asc(handoffs.sessionId)).all(),
		decisions: db.select().from(decisions).orderBy(asc(decisions.id)).all(),
		aliases: db.select().from(sessionAliases).orderBy(asc(sessionAliases.alias)).all(),
	}));
}

void describe('export → json-sessions import', () => {
	void it('exports a whole chain as readable JSON files and imports it into a fresh workspace unchanged', async (t) => {
		const a = await openTestEngine(t, { config: { maxConcurrentSessions: 10, allowScopeOverlap: true } });
		const { ids } = await history(a.engine, a.clock);
		const out = path.join(tempDir(t), 'export');
		const result = await a.engine.exports.export({ chainId: ids[1] as string, out });
		assert.equal(result.out, out);
		assert.deepEqual(result.files, ['index.json', '01-Checkout-part-1-totals.json', '02-Checkout-part-2.json', '03-Checkout-part-3-CON.json']);
		assert.deepEqual(fs.readdirSync(out).sort(), [...result.files].sort());
		const index = JSON.parse(fs.readFileSync(path.join(out, 'index.json'), 'utf8')) as Json;
		assert.equal(index['format'], 'baton.sessions');
		assert.deepEqual(
			index['sessions'].map((e: Json) => e['id']),
			ids,
		);
		const file = fs.readFileSync(path.join(out, '01-Checkout-part-1-totals.json'), 'utf8');
		assert.match(
			file,
			/^\{\n {2}"name": "01-Checkout-part-1-totals",\n {2}"description": "Checkout: part 1 \/ totals",\n {2}"created_at": /,
			'pretty, seed 004’s fields first',
		);

		const b = await openTestEngine(t);
		const before = snapshotFiles(path.join(b.root, '.baton'));
		const preview = await b.engine.imports.run({ format: 'json-sessions', path: out, dryRun: true, actor });
		assert.deepEqual(preview.errors, []);
		assert.deepEqual(preview.added, { sessions: 3, tasks: 0, decisions: 2, handoffs: 2, settings: 0 });
		assert.deepEqual(snapshotFiles(path.join(b.root, '.baton')), before);
		await b.engine.imports.run({ format: 'json-sessions', path: out, dryRun: false, actor });

		const original = await dump(a.engine);
		const copy = await dump(b.engine);
		assert.deepEqual(
			copy.sessions,
			original.sessions.filter((s) => ids.includes(s.id)),
		);
		assert.deepEqual(copy.handoffs, original.handoffs);
		assert.deepEqual(copy.decisions, original.decisions);
		assert.deepEqual(copy.aliases, original.aliases);

		// Importing its own export back into the workspace it came from adds nothing.
		const home = await a.engine.imports.run({ format: 'json-sessions', path: out, dryRun: false, actor });
		assert.deepEqual(home.added, { sessions: 0, tasks: 0, decisions: 0, handoffs: 0, settings: 0 });
		assert.deepEqual(home.warnings, []);
	});

	void it('exports one session; replaces a previous export in place; refuses folders it did not write', async (t) => {
		const { engine, clock } = await openTestEngine(t, { config: { maxConcurrentSessions: 10, allowScopeOverlap: true } });
		const { ids, worker } = await history(engine, clock);
		const out = path.join(tempDir(t), 'x');
		await engine.exports.export({ chainId: ids[0] as string, out });
		const single = await engine.exports.export({ sessionId: worker, out });
		assert.deepEqual(single.files, ['index.json', '01-worker.json']);
		assert.deepEqual(fs.readdirSync(out).sort(), ['01-worker.json', 'index.json'], 'the previous export’s files went away');

		const foreign = tempDir(t);
		fs.writeFileSync(path.join(foreign, 'notes.txt'), 'mine');
		const untouched = snapshotFiles(foreign);
		await assert.rejects(engine.exports.export({ sessionId: worker, out: foreign }), /is not empty.*never overwrites/);
		fs.writeFileSync(path.join(foreign, 'index.json'), '{"sessions": []}');
		await assert.rejects(engine.exports.export({ sessionId: worker, out: foreign }), /index\.json that Baton did not write/);
		fs.rmSync(path.join(foreign, 'index.json'));
		assert.deepEqual(snapshotFiles(foreign), untouched);
		fs.appendFileSync(path.join(out, '01-worker.json'), '');
		fs.writeFileSync(path.join(out, 'extra.md'), 'added by a person');
		await assert.rejects(engine.exports.export({ sessionId: worker, out }), /not part of a Baton export \(extra\.md\)/);
		await assert.rejects(engine.exports.export({ out }), /one session \(--session ID\) or one chain/);
		await assert.rejects(engine.exports.export({ sessionId: 'ses_20990101000000_000000', out: tempDir(t) }), /does not exist/);
	});

	void it('refuses hostile index entries by name — traversal, reserved and over-long names, mismatched files — and reads nothing outside the folder', async (t) => {
		const { engine, clock } = await openTestEngine(t, { config: { maxConcurrentSessions: 10, allowScopeOverlap: true } });
		const { worker } = await history(engine, clock);
		const parent = tempDir(t);
		const out = path.join(parent, 'export');
		await engine.exports.export({ sessionId: worker, out });
		const good = JSON.parse(fs.readFileSync(path.join(out, '01-worker.json'), 'utf8')) as Json;
		// A perfectly valid session file outside the folder: it must never be read.
		writeJson(path.join(parent, 'outside.json'), { ...good, name: 'outside' });
		const fresh = await openTestEngine(t);
		const before = snapshotFiles(path.join(fresh.root, '.baton'));
		writeJson(path.join(out, 'index.json'), {
			format: 'baton.sessions',
			sessions: [
				{ name: '01-worker' },
				{ name: '../../etc/passwd' },
				{ name: 'outside', file: '../outside.json' },
				{ name: 'CON' },
				{ name: 'index' },
				{ name: 'a'.repeat(65) },
				{ name: 'mismatch', file: '01-worker.json' },
				{ name: 'missing' },
				{ name: 'Com1.json' },
			],
		});
		const result = await fresh.engine.imports.run({ format: 'json-sessions', path: out, dryRun: false, actor });
		assert.deepEqual(
			result.errors.map((e) => `${e.record}: ${e.field}: ${e.message}`),
			[
				'index.json sessions[1] (../../etc/passwd): name: "../../etc/passwd" would leave the folder (path separators and ".." are refused)',
				'index.json sessions[2] (outside): file: "../outside" would leave the folder (path separators and ".." are refused)',
				'index.json sessions[3] (CON): name: "CON" is a reserved name',
				'index.json sessions[4] (index): name: "index" is a reserved name',
				`index.json sessions[5] (${'a'.repeat(65)}): name: must be 1 to 64 characters (got 65)`,
				'index.json sessions[6] (mismatch): file: duplicate of sessions[0]',
				`sessions[7] (missing.json): file: ${path.join(out, 'missing.json')} does not exist`,
				'index.json sessions[8] (Com1.json): name: "Com1.json" is a reserved name',
			],
		);
		assert.equal(result.added.sessions, 0, 'a refused import adds nothing, and says so');
		assert.deepEqual(snapshotFiles(path.join(fresh.root, '.baton')), before, 'nothing written');
	});

	void it('names the file and field of a malformed session file', async (t) => {
		const { engine, clock } = await openTestEngine(t, { config: { maxConcurrentSessions: 10, allowScopeOverlap: true } });
		const { ids } = await history(engine, clock);
		const out = path.join(tempDir(t), 'export');
		await engine.exports.export({ chainId: ids[0] as string, out });
		const edit = (file: string, change: (j: Json) => void): void => {
			const json = JSON.parse(fs.readFileSync(path.join(out, file), 'utf8')) as Json;
			change(json);
			writeJson(path.join(out, file), json);
		};
		edit('01-Checkout-part-1-totals.json', (j) => {
			j['baton'].session.status = 'paused';
			j['baton'].decisions[0].sessionId = 'ses_20000101000000_000000';
		});
		edit('02-Checkout-part-2.json', (j) => {
			j['name'] = 'renamed';
		});
		fs.writeFileSync(path.join(out, '03-Checkout-part-3-CON.json'), '{ not json');
		const fresh = await openTestEngine(t);
		const result = await fresh.engine.imports.run({ format: 'json-sessions', path: out, dryRun: false, actor });
		assert.deepEqual(
			result.errors.map((e) => `${e.record}: ${e.field}`),
			[
				'sessions[0] (01-Checkout-part-1-totals.json): baton.session.status',
				'sessions[1] (02-Checkout-part-2.json): name',
				'sessions[2] (03-Checkout-part-3-CON.json): null',
			],
		);
		assert.match(result.errors[0]?.message ?? '', /expected one of active, suspended, ended, orphaned, archived, closed \(got "paused"\)/);
		assert.equal((await fresh.engine.briefings.list()).length, 0);

		edit('01-Checkout-part-1-totals.json', (j) => {
			j['baton'].session.status = 'ended';
		});
		const noIndex = tempDir(t);
		const missing = await fresh.engine.imports.run({ format: 'json-sessions', path: noIndex, dryRun: true, actor });
		assert.match(missing.errors[0]?.message ?? '', /index\.json does not exist/);
	});

	void it('reads a folder written by the tool seed 004 describes, as ended conversations, idempotently', async (t) => {
		const { engine } = await openTestEngine(t);
		const dir = writeSeedSessionsFolder(tempDir(t));
		const result = await engine.imports.run({ format: 'json-sessions', path: path.join(dir, 'index.json'), dryRun: false, actor });
		assert.deepEqual(result.errors, []);
		assert.deepEqual(result.added, { sessions: 2, tasks: 0, decisions: 0, handoffs: 2, settings: 0 });
		const list = await engine.briefings.list();
		assert.deepEqual(list.map((s) => [s.name, s.status, s.startedAt]).sort(), [
			['Set up the project', 'ended', '2025-01-15T10:30:00.000Z'],
			['bug-hunt', 'ended', '2025-01-16T08:00:00.000Z'],
		]);
		const setup = list.find((s) => s.name === 'Set up the project');
		assert.match(setup?.id ?? '', /^ses_20250115103000_[0-9a-f]{6}$/);
		const handoff = await engine.briefings.handoff(setup?.id as string);
		assert.equal(
			handoff.kind === 'valid' && handoff.data.note,
			'Imported conversation "session-1" (12 messages). First request: Hello, I need help with the build',
		);
		const again = await engine.imports.run({ format: 'json-sessions', path: dir, dryRun: false, actor });
		assert.equal(again.added.sessions, 0);
		assert.equal(again.unchanged.sessions, 2);
	});
});
