/**
 * A teammate's transcripts are input, not authority (docs/sync.md "Transcripts"): what anyone who can
 * push writes on a transcripts ref or in a tombstone, with git plumbing, never replaces or removes a
 * transcript this machine archived itself, and one broken file stops nothing else of the pull.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { inArray } from 'drizzle-orm';
import { sessions } from '../../../../src/engine/storage/schema';
import { ulid } from '../../../../src/engine/shared/eventId';
import { machineIdentity } from '../../../../src/engine/shared/machineIdentity';
import { claudeProjectDir } from '../../../../src/engine/transcripts/claudeProjects';
import { TranscriptArchive } from '../../../../src/engine/transcripts/transcriptArchive';
import { TranscriptWriter } from '../transcripts/transcriptWriter';
import { actor, MemoryLogger, tempDir, type TestEngine } from '../../helpers';
import { forgeBatch, inBare } from './forgeRemote';
import { syncWorld, type SyncWorld } from './syncWorld';

/** A Claude Code transcript `agentId` of `sessionId`, archived on `engine`'s machine (as its hooks do); returns that archive. */
async function ownTranscript(t: test.TestContext, engine: TestEngine, sessionId: string, agentId: string, text: string): Promise<TranscriptArchive> {
	const claudeHome = tempDir(t, 'baton-claude-');
	const writer = new TranscriptWriter(agentId, engine.root);
	writer.user(text);
	writer.assistant([{ text: `On it: ${text}` }], { input_tokens: 10, output_tokens: 5 });
	writer.flush(path.join(claudeProjectDir(claudeHome, engine.root), `${agentId}.jsonl`));
	const archive = new TranscriptArchive({ workspaceRoot: engine.root, claudeHome, log: new MemoryLogger() });
	const report = await archive.sync({ link: async (_agent, id) => (id === agentId ? sessionId : null) });
	assert.equal(report.synced.length, 1, 'archived on its machine');
	return archive;
}

/** The names of the sessions `ids` in B's store. */
async function sessionNames(w: SyncWorld, ids: readonly string[]): Promise<string[]> {
	return w.b.engine.store.read((db) =>
		db
			.select({ name: sessions.name })
			.from(sessions)
			.where(inArray(sessions.id, [...ids]))
			.all()
			.map((r) => r.name),
	);
}

/** Two clones sharing transcripts; A's own session with an archived transcript, pushed and pulled by B. */
async function world(t: test.TestContext): Promise<{ w: SyncWorld; teammate: string; theirs: string; mine: string; archive: TranscriptArchive }> {
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin', { transcripts: true });
	await w.b.engine.sync.enable('origin', { transcripts: true });
	const a = await w.a.engine.sessions.start({ name: 'teammate work', actor });
	await w.a.engine.sessions.end({ id: a.session.id, note: 'done', actor });
	await ownTranscript(t, w.a, a.session.id, '11111111-1111-4111-8111-111111111111', 'The teammate asked this.');
	await w.a.engine.sync.push();
	const b = await w.b.engine.sessions.start({ name: 'my work', actor });
	await w.b.engine.sessions.end({ id: b.session.id, note: 'done', actor });
	const archive = await ownTranscript(t, w.b, b.session.id, '22222222-2222-4222-8222-222222222222', 'I asked this myself.');
	await w.b.engine.sync.pull();
	assert.equal(archive.list({ sessionId: a.session.id }).length, 1, "B imported A's transcript");
	return { w, teammate: machineIdentity(w.a.root).id, theirs: a.session.id, mine: b.session.id, archive };
}

test("a teammate's tombstone naming this machine's own session takes only the copies that teammate shipped: this machine's transcript and archive switch stay", async (t) => {
	const { w, teammate, theirs, mine, archive } = await world(t);
	const own = archive.list({ sessionId: mine })[0];
	assert.ok(own?.archivePath);
	const ownFile = path.join(archive.dir, own.archivePath);
	const ownBytes = fs.readFileSync(ownFile, 'utf8');

	// Written with plumbing on A's events ref: a tombstone of A's that names A's session and B's.
	const at = w.b.clock.now() + 1_000;
	const id = `evt_${ulid(at)}_${teammate}`;
	forgeBatch(w, `refs/baton/events/${teammate}`, [
		JSON.stringify({
			id,
			kind: 'sync.retracted',
			subject: teammate,
			sessionId: null,
			actor: 'user:mallory',
			machine: teammate,
			machineName: 'mallorys-laptop',
			author: 'mallory',
			at: new Date(at).toISOString(),
			body: { checkpoints: [], sessions: [theirs, mine], since: null },
		}),
	]);
	await w.b.engine.sync.pull();

	assert.deepEqual(archive.list({ sessionId: theirs }), [], "the copy of A's transcript went (A took its session back)");
	const after = archive.list({ sessionId: mine });
	assert.deepEqual(
		after.map((e) => [e.archivePath, e.archiving, e.archiveBytes]),
		[[own.archivePath, true, own.archiveBytes]],
		"B's own transcript is archived as before, archiving on",
	);
	assert.equal(fs.readFileSync(ownFile, 'utf8'), ownBytes);
	assert.deepEqual(await sessionNames(w, [mine]), ['my work'], "and B's session is there as it was");
});

/** A commit on `ref` in the remote whose tree holds `transcripts/<path>` → content, for each file given. */
function forgeTranscripts(w: SyncWorld, ref: string, files: Record<string, string>): void {
	inBare(w, ['read-tree', '--empty']);
	for (const [name, content] of Object.entries(files)) {
		const blob = inBare(w, ['hash-object', '-w', '--stdin'], content);
		inBare(w, ['update-index', '--add', '--cacheinfo', `100644,${blob},transcripts/${name}`]);
	}
	inBare(w, ['update-ref', ref, inBare(w, ['commit-tree', inBare(w, ['write-tree']), '-m', 'baton transcripts'])]);
}

test('a shared transcript that is no object, named like the archive’s own files, or lying where this machine’s own lies is skipped with a warning; the pull goes on', async (t) => {
	const { w, mine, archive } = await world(t);
	const own = archive.list({ sessionId: mine })[0];
	assert.ok(own?.archivePath);
	const ownBytes = fs.readFileSync(path.join(archive.dir, own.archivePath), 'utf8');
	const meta = (id: string): string =>
		JSON.stringify({ origin: { machine: 'cafebabe', machineName: 'x', author: null }, id, agent: 'claude-code', agentSessionId: id });
	const excerpt = JSON.stringify({ type: 'user', at: '2026-03-01T10:00:00.000Z', text: 'MALLORY OVERWROTE THIS' });
	forgeTranscripts(w, 'refs/baton/transcripts/cafebabe', {
		'ses_20260301100000_aaaaaa/a.jsonl': `null\n${excerpt}\n`,
		'index.json/b.jsonl': `${meta('forged-b')}\n${excerpt}\n`,
		[own.archivePath]: `${meta('forged-other-id')}\n${excerpt}\n`,
		'ses_20260301100000_bbbbbb/c.jsonl': `${meta('fine-c')}\n${excerpt}\n`,
	});
	// The teammate's next session must still arrive.
	const next = await w.a.engine.sessions.start({ name: 'arrives anyway', actor });
	await w.a.engine.sync.push();

	await w.b.engine.sync.pull();
	assert.deepEqual(await sessionNames(w, [next.session.id]), ['arrives anyway'], 'the events were merged');
	assert.equal(fs.readFileSync(path.join(archive.dir, own.archivePath), 'utf8'), ownBytes, "B's own archive was not written over");
	assert.deepEqual(
		archive.list({ sessionId: mine }).map((e) => e.id),
		[own.id],
		'and its session holds no forged entry',
	);
	assert.ok(fs.statSync(path.join(archive.dir, 'index.json')).isFile(), "the archive's index is a file still");
	assert.deepEqual(
		archive.list({ sessionId: 'ses_20260301100000_bbbbbb' }).map((e) => [e.id, e.sharedFrom?.machine]),
		[['fine-c', 'cafebabe']],
		'the good file of the same ref was imported',
	);
	const warnings = w.b.log.warnings().join('\n');
	assert.match(warnings, /ses_20260301100000_aaaaaa\/a\.jsonl does not start with its description/);
	assert.match(warnings, /"index\.json\/b\.jsonl" is not a name Baton writes/);
	assert.match(warnings, /would replace the archive of claude-code:22222222-2222-4222-8222-222222222222, a transcript of this machine's own/);
});

test('a shared transcript claiming another machine as its origin is kept as the ref’s machine’s, and never replaces the copy another machine shipped first', async (t) => {
	const { w, teammate, theirs, archive } = await world(t);
	const first = archive.list({ sessionId: theirs })[0];
	assert.ok(first?.archivePath);
	const bytes = fs.readFileSync(path.join(archive.dir, first.archivePath), 'utf8');
	const claim = JSON.stringify({
		origin: { machine: teammate, machineName: 'the teammate', author: null },
		id: first.id,
		agent: 'claude-code',
		agentSessionId: first.id,
	});
	forgeTranscripts(w, 'refs/baton/transcripts/0badf00d', {
		[first.archivePath]: `${claim}\n${JSON.stringify({ type: 'user', at: '2026-03-01T10:00:00.000Z', text: 'not what the teammate said' })}\n`,
		'ses_20260301100000_cccccc/d.jsonl': `${claim.replace(first.id, 'claims-d').replace(first.id, 'claims-d')}\n`,
	});
	await w.b.engine.sync.pull();
	assert.equal(fs.readFileSync(path.join(archive.dir, first.archivePath), 'utf8'), bytes, 'the first copy stays');
	assert.equal(archive.list({ sessionId: theirs })[0]?.sharedFrom?.machine, teammate);
	assert.equal(archive.list({ sessionId: 'ses_20260301100000_cccccc' })[0]?.sharedFrom?.machine, '0badf00d', 'the machine is the ref’s, not the claim');
	assert.match(w.b.log.warnings().join('\n'), new RegExp(`which machine ${teammate} shared first`));
});
