/**
 * Transcripts through sync, with two clones and a bare remote (real git): a remote enabled with
 * `--transcripts` receives this machine's archived transcripts, redacted, on a ref of their own, and
 * a teammate's pull imports them into its archive; a remote enabled without it receives no transcript
 * object, and enabling again without it stops the shipping.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { ShadowRepo } from '../../../../src/engine/shadow/shadowRepo';
import { machineIdentity } from '../../../../src/engine/shared/machineIdentity';
import { readTranscripts } from '../../../../src/engine/sync/transcriptRefs';
import { batonDir } from '../../../../src/engine/workspace';
import { claudeProjectDir } from '../../../../src/engine/transcripts/claudeProjects';
import { TranscriptArchive } from '../../../../src/engine/transcripts/transcriptArchive';
import { TranscriptWriter } from '../transcripts/transcriptWriter';
import { actor, MemoryLogger, tempDir, type TestEngine } from '../../helpers';
import { allObjects, git, remoteRefs, syncWorld } from './syncWorld';

const agentId = '7a2c3b9e-1d4f-4e21-8b8a-5d4f0b7a1c44';
const secret = `ghp_${'Tr4'.repeat(12)}`;
const titleSecret = `sk-ant-${'Ti7'.repeat(8)}`;

/** A Claude Code transcript of a session on `engine`, archived in its workspace (as the hooks do). */
async function archivedTranscript(
	t: test.TestContext,
	engine: TestEngine,
	sessionId: string,
): Promise<{ file: string; writer: TranscriptWriter; archive: TranscriptArchive }> {
	const claudeHome = tempDir(t, 'baton-claude-');
	const file = path.join(claudeProjectDir(claudeHome, engine.root), `${agentId}.jsonl`);
	const writer = new TranscriptWriter(agentId, engine.root);
	writer.user(`Rotate the mirror credentials; the old token is ${secret}`);
	writer.assistant([{ text: 'Rotating the mirror credentials now.' }], { input_tokens: 100, output_tokens: 20 });
	writer.summary(`Credential rotation ${titleSecret}`);
	writer.flush(file);
	const archive = new TranscriptArchive({ workspaceRoot: engine.root, claudeHome, log: new MemoryLogger() });
	const report = await archive.sync({ link: async (_agent, id) => (id === agentId ? sessionId : null) });
	assert.equal(report.synced.length, 1, 'the transcript is archived on its machine');
	return { file, writer, archive };
}

function transcriptRefs(bare: string): string[] {
	return remoteRefs(bare).filter((r) => r.startsWith('refs/baton/transcripts/'));
}

test('with --transcripts a session transcript ships redacted on its own ref and the teammate’s pull imports it', async (t) => {
	const w = await syncWorld(t);
	const enabled = await w.a.engine.sync.enable('origin', { transcripts: true });
	assert.equal(enabled.transcripts, true);
	const started = await w.a.engine.sessions.start({ name: 'rotation', actor });
	await w.a.engine.sessions.end({ id: started.session.id, note: 'rotated', actor });
	const { file } = await archivedTranscript(t, w.a, started.session.id);

	const status = (await w.a.engine.sync.status()).remotes[0];
	assert.ok(status && status.queued >= 1, 'something is queued before the push');
	const [pushed] = await w.a.engine.sync.push();
	const refs = transcriptRefs(w.bare);
	assert.equal(refs.length, 1, 'one transcripts ref on the remote');
	assert.ok(
		pushed?.pushed.some((p) => p.ref === refs[0]),
		'the push reports the transcripts ref by oid',
	);
	const objects = allObjects(w.bare);
	assert.ok(objects.includes('Rotating the mirror credentials now.'), 'the transcript reached the remote');
	assert.ok(objects.includes('[REDACTED:github-token]'), 'the secret was replaced by its redaction');
	assert.ok(!objects.includes(secret), 'the secret in the request reached the remote');
	assert.ok(!objects.includes(titleSecret), 'the secret in the title reached the remote');
	assert.ok(!objects.includes(file) && !objects.includes(w.a.root), 'an absolute path of this machine reached the remote');
	assert.equal((await w.a.engine.sync.status()).remotes[0]?.queued, 0, 'nothing queued after the push');

	// B did not enable transcripts itself: it still receives A's, and ships none of its own.
	await w.b.engine.sync.enable('origin');
	const pulled = await w.b.engine.sync.pull();
	assert.equal(pulled.transcripts, 1);
	const bArchive = new TranscriptArchive({ workspaceRoot: w.b.root, claudeHome: tempDir(t, 'baton-claude-b-'), log: new MemoryLogger() });
	const listed = bArchive.list({ sessionId: started.session.id });
	assert.equal(listed.length, 1, 'B’s archive lists the teammate’s transcript under the shared session');
	assert.equal(listed[0]?.sharedFrom?.machine, (await w.a.engine.sync.status()).machine);
	assert.equal(listed[0]?.sharedFrom?.machineName, machineIdentity(w.a.root).name, 'who ran it travels with it');
	assert.equal(listed[0]?.sourcePath, '', 'no path of the other machine');
	const read = bArchive.read(agentId);
	assert.ok(read);
	const texts = read.excerpts.map((e) => ('text' in e ? e.text : ''));
	assert.ok(texts.some((x) => x.includes('Rotating the mirror credentials now.')));
	assert.ok(texts.some((x) => x.includes('[REDACTED:github-token]')) && !texts.some((x) => x.includes(secret)));
	// A later local sync of B's archive keeps the imported copy (its source is elsewhere).
	await bArchive.sync({ link: async () => null });
	assert.equal(bArchive.read(agentId)?.excerpts.length, read.excerpts.length);

	// Growing on A: the next push sends the change, the next pull replaces the copy on B.
	fs.appendFileSync(
		file,
		`${JSON.stringify({ type: 'user', sessionId: agentId, timestamp: '2026-03-01T10:00:00.000Z', message: { role: 'user', content: 'One more thing: document it.' } })}\n`,
	);
	await new TranscriptArchive({ workspaceRoot: w.a.root, claudeHome: path.dirname(path.dirname(path.dirname(file))), log: new MemoryLogger() }).sync({
		link: async () => started.session.id,
	});
	await w.a.engine.sync.push();
	assert.equal((await w.b.engine.sync.pull()).transcripts, 1);
	assert.ok(bArchive.read(agentId)?.excerpts.some((e) => e.type === 'user' && e.text === 'One more thing: document it.'));
	// Pushing from B never ships the imported copy back.
	await w.b.engine.sync.push();
	assert.equal(transcriptRefs(w.bare).length, 1);

	// A transcript above the bound a pull holds is left unread, by path and size (the pull warns and skips it).
	const shadowB = new ShadowRepo(w.b.root, batonDir(w.b.root));
	const fetched = (await shadowB.gitText(['for-each-ref', '--format=%(objectname)', 'refs/baton-remotes/origin/transcripts/'])).split('\n')[0] as string;
	const whole = await readTranscripts(shadowB, null, fetched);
	assert.deepEqual([whole.files.length, whole.tooLarge.length], [1, 0]);
	const size = Buffer.byteLength(whole.files[0]?.content ?? '');
	const bounded = await readTranscripts(shadowB, null, fetched, size - 1);
	assert.deepEqual([bounded.files, bounded.tooLarge, bounded.refused], [[], [{ path: whole.files[0]?.path, bytes: size }], []]);
});

test('a remote enabled without --transcripts receives no transcript object; enabling again without it stops shipping', async (t) => {
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin');
	const started = await w.a.engine.sessions.start({ name: 'rotation', actor });
	const { file } = await archivedTranscript(t, w.a, started.session.id);
	await w.a.engine.sync.push();
	assert.deepEqual(transcriptRefs(w.bare), []);
	assert.ok(!allObjects(w.bare).includes('Rotating the mirror credentials now.'), 'a transcript object reached a remote without --transcripts');
	assert.ok(
		remoteRefs(w.bare).some((r) => r.startsWith('refs/baton/events/')),
		'the events themselves were pushed',
	);

	// A second remote with --transcripts gets them; origin still does not.
	const mirror = path.join(w.dir, 'mirror.git');
	git(w.dir, ['init', '-q', '--bare', mirror]);
	git(w.a.root, ['remote', 'add', 'mirror', `file://${mirror}`]);
	await w.a.engine.sync.enable('mirror', { transcripts: true });
	await w.a.engine.sync.push();
	assert.equal(transcriptRefs(mirror).length, 1);
	assert.ok(allObjects(mirror).includes('Rotating the mirror credentials now.'));
	assert.deepEqual(transcriptRefs(w.bare), [], 'origin was not sent the transcripts ref');
	assert.ok(!allObjects(w.bare).includes('Rotating the mirror credentials now.'));

	// disable + enable without --transcripts: the mirror gets no more transcript content.
	const before = git(mirror, ['for-each-ref', '--format=%(objectname)', 'refs/baton/transcripts/'], { GIT_DIR: mirror });
	await w.a.engine.sync.disable('mirror');
	await w.a.engine.sync.enable('mirror');
	fs.appendFileSync(
		file,
		`${JSON.stringify({ type: 'user', sessionId: agentId, timestamp: '2026-03-01T10:00:00.000Z', message: { role: 'user', content: 'A later request that stays here.' } })}\n`,
	);
	await new TranscriptArchive({ workspaceRoot: w.a.root, claudeHome: path.dirname(path.dirname(path.dirname(file))), log: new MemoryLogger() }).sync({
		link: async () => started.session.id,
	});
	await w.a.engine.sessions.end({ id: started.session.id, note: 'done', actor });
	await w.a.engine.sync.push();
	assert.equal(
		git(mirror, ['for-each-ref', '--format=%(objectname)', 'refs/baton/transcripts/'], { GIT_DIR: mirror }),
		before,
		'the transcripts ref did not move',
	);
	assert.ok(!allObjects(mirror).includes('A later request that stays here.'));
	assert.ok(!allObjects(w.bare).includes('A later request that stays here.'));
	assert.equal((await w.a.engine.sync.status()).remotes.find((r) => r.name === 'mirror')?.transcripts, false);
});

test('a session taken back takes its transcript with it: off the ref and the remote, out of the teammate’s archive, never shipped again', async (t) => {
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin', { transcripts: true });
	await w.b.engine.sync.enable('origin');
	const started = await w.a.engine.sessions.start({ name: 'rotation', actor });
	await w.a.engine.sessions.end({ id: started.session.id, note: 'rotated', actor });
	const { archive } = await archivedTranscript(t, w.a, started.session.id);
	await w.a.engine.sync.push();
	assert.ok(allObjects(w.bare).includes('Rotating the mirror credentials now.'), 'shared before it is taken back');
	await w.b.engine.sync.pull();
	const teammatesArchive = new TranscriptArchive({ workspaceRoot: w.b.root, claudeHome: tempDir(t, 'baton-claude-b-'), log: new MemoryLogger() });
	assert.equal(teammatesArchive.list({ sessionId: started.session.id }).length, 1, 'B imported the transcript');

	const result = await w.a.engine.sync.retract({ session: started.session.id }, actor);
	assert.deepEqual(result.sessions, [started.session.id]);
	git(w.bare, ['reflog', 'expire', '--expire=now', '--all'], { GIT_DIR: w.bare });
	git(w.bare, ['gc', '-q', '--prune=now'], { GIT_DIR: w.bare });
	assert.ok(!allObjects(w.bare).includes('Rotating the mirror credentials now.'), 'no object on the remote holds the transcript');
	await w.b.engine.sync.pull();
	assert.equal(teammatesArchive.list({ sessionId: started.session.id }).filter((x) => x.archivePath).length, 0, 'B’s copy is gone');
	assert.equal(archive.list({ sessionId: started.session.id }).length, 1, 'A keeps its own');

	// Later exports do not ship it again.
	w.a.clock.advance(60_000);
	await w.a.engine.sessions.start({ name: 'next', actor });
	await w.a.engine.sync.push();
	git(w.bare, ['gc', '-q', '--prune=now'], { GIT_DIR: w.bare });
	assert.ok(!allObjects(w.bare).includes('Rotating the mirror credentials now.'));
});
