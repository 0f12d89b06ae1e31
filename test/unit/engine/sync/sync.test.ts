/**
 * Sync through a real bare remote (file://) between two real clones, each with its own Baton
 * workspace: the chain crosses machines with its handoff, checkpoints and approvals arrive with their
 * trees, the user's `.git` never changes, a remote that is not enabled receives nothing, and a secret
 * never leaves the machine.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { machineIdentity } from '../../../../src/engine/shared/machineIdentity';
import { agentSettingsSchema } from '../../../../src/engine/agentConfig/agentSettings';
import { normaliseHookPayload } from '../../../../src/engine/hooks/normaliseHookPayload';
import { runHook } from '../../../../src/engine/hooks/runHook';
import { TranscriptArchive } from '../../../../src/engine/transcripts/transcriptArchive';
import { hookFixture } from '../../cli/agentCli';
import { actor, tempDir } from '../../helpers';
import { allObjects, enabledWorld, git, hashTree, remoteRefs, startEnd, syncWorld } from './syncWorld';

test('a chain started on A continues on B with A’s handoff, and the user’s .git is byte-identical around every sync operation', async (t) => {
	const w = await syncWorld(t);
	const gitA = path.join(w.a.root, '.git');
	const gitB = path.join(w.b.root, '.git');
	const guarded = async <T>(fn: () => Promise<T>): Promise<T> => {
		const before = [hashTree(gitA), hashTree(gitB)];
		const result = await fn();
		assert.deepEqual([hashTree(gitA), hashTree(gitB)], before, 'a sync operation changed a .git folder');
		return result;
	};
	await guarded(() => w.a.engine.sync.enable('origin'));
	await guarded(() => w.b.engine.sync.enable('origin'));
	const first = await startEnd(w.a, 'parser on A', 'parser done; next: the printer', { checkpoint: true });
	const pushed = await guarded(() => w.a.engine.sync.push());
	const machineA = machineIdentity(w.a.root).id;
	assert.deepEqual(pushed[0]?.pushed.map((p) => p.ref).sort(), [`refs/baton/checkpoints/${machineA}`, `refs/baton/events/${machineA}`]);
	for (const p of pushed[0]?.pushed ?? []) {
		assert.equal(git(w.bare, ['rev-parse', p.ref], { GIT_DIR: w.bare }), p.oid, 'the remote holds exactly the oid push confirmed');
	}
	// Nothing under the user's namespaces: no branch, tag or note of Baton's on the remote.
	assert.deepEqual(
		remoteRefs(w.bare).filter((r) => !r.startsWith('refs/baton/')),
		['refs/heads/main'],
	);

	const pulled = await guarded(() => w.b.engine.sync.pull());
	assert.equal(pulled.fetched, 1);
	assert.ok(pulled.newEvents >= 4, `pulled ${pulled.newEvents} events`);
	assert.deepEqual(pulled.sessions, { added: 1, updated: 0 });
	assert.ok(pulled.checkpoints.added >= 1);
	const onB = await w.b.engine.briefings.get(first.id);
	assert.equal(onB.status, 'ended');
	assert.equal(onB.name, 'parser on A');

	const next = await w.b.engine.sessions.start({ name: 'printer on B', actor });
	assert.equal(next.session.previousSessionId, first.id, 'B continues A’s chain');
	assert.equal(next.handoff?.note, 'parser done; next: the printer');
	// A's checkpoint arrived with its tree: B can diff it.
	const cp = (await w.b.engine.checkpoints.list({})).find((c) => c.tags.includes('shared'));
	assert.ok(cp);
	assert.equal((await w.b.engine.checkpoints.fileAt(cp.id, `${first.id}.txt`))?.toString(), 'work of parser on A\n');
	assert.equal(cp.sessionId, first.id);
	const diff = await w.b.engine.checkpoints.diff(cp.id);
	assert.ok(diff, 'B can diff A’s checkpoint');
	await w.b.engine.checkpoints.approve(cp.id, { actor: 'human', reason: 'looks right' });
	await guarded(() => w.b.engine.sync.push());
	const back = await guarded(() => w.a.engine.sync.pull());
	assert.equal(back.sessions.added, 1);
	const aView = await w.a.engine.briefings.get(first.id);
	assert.equal(aView.nextSessionId, next.session.id, 'A sees its handoff taken by B');
	// A's checkpoint is decided on A: B's approval reaches A as B's opinion, not as A's decision (docs/sync.md, "Who decides").
	assert.equal((await w.a.engine.checkpoints.get(cp.id)).approvalStatus, 'auto_approved', 'B’s approval is not applied to A’s checkpoint');
	assert.deepEqual(
		back.opinions.map((o) => [o.checkpointId, o.status, o.by]),
		[[cp.id, 'approved', 'human']],
	);
	// Pulling again changes nothing: the merge is a union.
	const again = await guarded(() => w.a.engine.sync.pull());
	assert.deepEqual([again.fetched, again.newEvents], [0, 0]);
	const status = await w.a.engine.sync.status();
	assert.deepEqual(
		status.remotes.map((r) => [r.name, r.enabled, r.ahead, r.behind, r.queued]),
		[['origin', true, 0, 0, 0]],
	);
});

test('a remote that is not enabled receives nothing, and disabling stops pushes', async (t) => {
	const w = await syncWorld(t);
	const other = path.join(w.dir, 'other.git');
	git(w.dir, ['init', '-q', '--bare', other]);
	git(w.a.root, ['remote', 'add', 'fork', `file://${other}`]);
	await startEnd(w.a, 'secret work', 'nothing for the fork');
	await assert.rejects(() => w.a.engine.sync.push(), /no remote is enabled/);
	await assert.rejects(() => w.a.engine.sync.push('fork'), /not enabled for remote "fork"/);
	await w.a.engine.sync.enable('origin');
	await assert.rejects(() => w.a.engine.sync.push('fork'), /not enabled for remote "fork"/);
	await w.a.engine.sync.push();
	assert.deepEqual(remoteRefs(other), []);
	assert.equal(allObjects(other), '', 'the fork holds no object at all');
	await w.a.engine.sync.disable('origin');
	await startEnd(w.a, 'after disable', 'stays here');
	const refsBefore = git(w.bare, ['for-each-ref'], { GIT_DIR: w.bare });
	await assert.rejects(() => w.a.engine.sync.push(), /no remote is enabled/);
	assert.equal(git(w.bare, ['for-each-ref'], { GIT_DIR: w.bare }), refsBefore);
	await assert.rejects(() => w.a.engine.sync.enable('nosuch'), /no remote "nosuch"/);
});

test('a secret in a decision or a handoff never appears in any object on the remote', async (t) => {
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin');
	const secret = `ghp_${'Zq9'.repeat(12)}`;
	const started = await w.a.engine.sessions.start({ name: 'keys', actor });
	await w.a.engine.sessions.recordDecision({
		sessionId: started.session.id,
		text: `use token ${secret} for the mirror`,
		rationale: `because ${secret}`,
		actor,
	});
	await w.a.engine.sessions.end({ id: started.session.id, note: `rotated ${secret}`, actor });
	await w.a.engine.sync.push();
	const objects = allObjects(w.bare);
	assert.ok(objects.includes('[REDACTED'), 'the redacted event text is on the remote');
	assert.ok(!objects.includes(secret), 'the secret reached the remote');
	assert.ok(!objects.includes(w.a.root), 'an absolute path of this machine reached the remote');
});

test('a handoff consumed on two machines: the smaller event id wins on both, the loser’s briefing says so', async (t) => {
	const w = await enabledWorld(t);
	const first = await startEnd(w.a, 'one', 'handoff to share');
	await w.a.engine.sync.push();
	await w.b.engine.sync.pull();
	// Both continue the chain before hearing of each other; A's clock is earlier, so A's consumption sorts first.
	const onA = await w.a.engine.sessions.start({ name: 'two on A', actor });
	w.b.clock.advance(60_000);
	const onB = await w.b.engine.sessions.start({ name: 'two on B', actor });
	assert.equal(onA.handoff?.note, 'handoff to share');
	assert.equal(onB.handoff?.note, 'handoff to share');
	await w.a.engine.sync.push();
	await w.b.engine.sync.push();
	await w.a.engine.sync.pull();
	await w.b.engine.sync.pull();
	for (const side of [w.a, w.b]) {
		const s = await side.engine.briefings.get(first.id);
		assert.equal(s.nextSessionId, onA.session.id, 'the chain continues through the smaller id on both machines');
		assert.equal(s.handoffConsumedBy, onA.session.id);
	}
	const loser = await w.b.engine.briefings.briefing({ sessionId: onB.session.id });
	assert.ok(
		loser.warnings.some((x) => x.includes(`the handoff of “one” was also taken by “two on A” (${onA.session.id})`)),
		JSON.stringify(loser.warnings),
	);
	const winner = await w.a.engine.briefings.briefing({ sessionId: onA.session.id });
	assert.ok(!winner.warnings.some((x) => x.includes('also taken')));
});

test('each export is one pack (no loose object), and idle maintenance rolls the packs up with every event still readable', async (t) => {
	const w = await enabledWorld(t);
	const shadow = path.join(w.a.root, '.baton', 'shadow.git');
	const inShadow = (args: string[]): string => git(w.a.root, args, { GIT_DIR: shadow });
	const packs = (): number => Number(/^packs: (\d+)$/m.exec(inShadow(['count-objects', '-v']))?.[1]);
	const loose = (): Set<string> => {
		const objects = path.join(shadow, 'objects');
		return new Set(
			fs
				.readdirSync(objects)
				.filter((d) => /^[0-9a-f]{2}$/.test(d))
				.flatMap((d) => fs.readdirSync(path.join(objects, d)).map((f) => d + f)),
		);
	};
	const eventsRef = `refs/baton/events/${machineIdentity(w.a.root).id}`;
	let last = '';
	for (let i = 0; i < 6; i++) {
		last = (await startEnd(w.a, `part ${i}`, `part ${i} done`)).id;
		assert.ok((await w.a.engine.sync.export()).events > 0);
		// A few objects per export, below fast-import's default unpack limit, which would have written them loose.
		// (The session's complete checkpoint at its end writes loose objects of its own, packed by maintenance.)
		const exported = inShadow(['rev-list', '--objects', eventsRef])
			.split('\n')
			.map((l) => l.split(' ')[0] as string);
		const stray = loose();
		assert.deepEqual(
			exported.filter((o) => stray.has(o)),
			[],
			`export ${i} wrote loose objects`,
		);
		assert.equal(packs(), i + 1, `export ${i} is one pack`);
	}
	assert.equal((await w.a.engine.checkpoints.maintain()).packed, false, 'six packs are below the default limit');
	const rolled = await w.a.engine.checkpoints.maintain({ packLimit: 6 });
	assert.deepEqual([rolled.packs, rolled.packed], [6, true]);
	assert.ok(packs() < 6, `rolled up into ${packs()} pack(s)`);
	assert.equal(loose().size, 0, 'the checkpoints’ loose objects went into the roll-up too');
	await w.a.engine.sync.push();
	const pulled = await w.b.engine.sync.pull();
	assert.equal(pulled.sessions.added, 6);
	assert.equal((await w.b.engine.briefings.get(last)).status, 'ended');
});

test('a teammate’s active session holds nothing here: B starts its own in the same scope (warned), means its own when no session is named, and B’s agent hook never joins A’s', async (t) => {
	const w = await enabledWorld(t);
	const onA = await w.a.engine.sessions.start({ name: 'parser on A', actor });
	await w.a.engine.sync.push();
	await w.b.engine.sync.pull();
	assert.equal((await w.b.engine.briefings.get(onA.session.id)).status, 'active', 'B shows A’s session as active (where it runs)');
	assert.deepEqual(await w.b.engine.briefings.active(), [], 'but it is not active here');

	// Before: B’s start was refused ("already active in scope global"), and B’s agent hook joined A’s session.
	const onB = await w.b.engine.sessions.start({ name: 'lexer on B', actor });
	const nameA = machineIdentity(w.a.root).name;
	assert.ok(
		onB.warnings.some((m) => m.includes(onA.session.id) && m.includes(`also active in scope global on ${nameA}`)),
		onB.warnings.join('\n'),
	);
	const decision = await w.b.engine.sessions.recordDecision({ text: 'tokens as a stream', actor });
	assert.equal(decision.sessionId, onB.session.id, 'a decision that names no session goes to B’s own');
	await w.b.engine.sessions.end({ actor });
	assert.equal((await w.b.engine.briefings.get(onA.session.id)).status, 'active', 'ending "the" session on B did not end A’s');

	const claudeHome = tempDir(t, 'baton-claude-');
	const event = normaliseHookPayload(hookFixture('claude', 'session-start-startup', { root: w.b.root, claudeHome }));
	assert.ok(event.ok);
	const hooked = await runHook(w.b.engine, event.event, {
		actor,
		settings: agentSettingsSchema.parse({}),
		archive: new TranscriptArchive({ workspaceRoot: w.b.root, claudeHome, log: w.b.log }),
		log: w.b.log,
	});
	assert.equal(hooked.action, 'started');
	assert.notEqual(hooked.sessionId, onA.session.id);
	// B never sees A's touches: B's clean-up of idle sessions leaves A's alone (it ended it, and wrote its handoff, before).
	w.b.clock.advance(30 * 24 * 3600_000);
	const cleaned = await w.b.engine.sessions.gc({ actor });
	assert.deepEqual(
		cleaned.ended.map((s) => s.id),
		[hooked.sessionId],
	);
	assert.equal((await w.b.engine.briefings.get(onA.session.id)).status, 'active');

	// A’s end reaches B as before.
	await w.a.engine.sessions.end({ id: onA.session.id, note: 'parser done', actor });
	await w.a.engine.sync.push();
	await w.b.engine.sync.pull();
	assert.equal((await w.b.engine.briefings.get(onA.session.id)).status, 'ended');
});

test('remotes: the repository’s git remotes with which of them share, a remote removed from git but still enabled included', async (t) => {
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin', { transcripts: true });
	git(w.a.root, ['remote', 'add', 'mirror', w.bare]);
	git(w.a.root, ['remote', 'add', 'old', w.bare]);
	await w.a.engine.sync.enable('old');
	git(w.a.root, ['remote', 'remove', 'old']);
	assert.deepEqual(await w.a.engine.sync.remotes(), [
		{ name: 'mirror', enabled: false, transcripts: false, untracked: false, timeline: false, inGit: true },
		{ name: 'old', enabled: true, transcripts: false, untracked: false, timeline: false, inGit: false },
		{ name: 'origin', enabled: true, transcripts: true, untracked: false, timeline: false, inGit: true },
	]);
	await w.a.engine.sync.disable('old');
	assert.equal((await w.a.engine.sync.remotes()).find((r) => r.name === 'old')?.enabled, false);
});

test('remotes named like Object members (git takes __proto__ and constructor) share like any other', async (t) => {
	const w = await syncWorld(t);
	git(w.a.root, ['remote', 'add', '__proto__', w.bare]);
	git(w.a.root, ['remote', 'add', 'constructor', w.bare]);
	// Before: enabling __proto__ answered "enabled" and saved nothing (it set the state's prototype).
	await w.a.engine.sync.enable('__proto__');
	await w.a.engine.sync.enable('constructor', { transcripts: true });
	assert.deepEqual(
		(await w.a.engine.sync.status()).remotes.map((r) => [r.name, r.enabled]),
		[
			['__proto__', true],
			['constructor', true],
		],
	);
	const state = JSON.parse(fs.readFileSync(path.join(w.a.root, '.baton', 'sync', 'state.json'), 'utf8')) as {
		remotes: Record<string, { enabled: boolean; transcripts: boolean }>;
	};
	assert.deepEqual(Object.keys(state.remotes), ['__proto__', 'constructor']);
	await startEnd(w.a, 'parser', 'parser done');
	const [pushed] = await w.a.engine.sync.push('__proto__');
	assert.ok(pushed?.pushed.some((p) => p.ref.startsWith('refs/baton/events/')));
	assert.equal((await w.a.engine.sync.status()).remotes.find((r) => r.name === '__proto__')?.lastPush !== null, true);
	await w.a.engine.sync.disable('constructor');
	assert.deepEqual(
		(await w.a.engine.sync.remotes()).map((r) => [r.name, r.enabled, r.transcripts]),
		[
			['__proto__', true, false],
			['constructor', false, true],
			['origin', false, false],
		],
	);
});

test('a damaged sync state file is an error naming it, and is left as it was (not read as “nothing shared”)', async (t) => {
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin');
	await startEnd(w.a, 'parser', 'parser done');
	const file = path.join(w.a.root, '.baton', 'sync', 'state.json');
	for (const damaged of [
		'{"version":1,"remotes":{"origin":{"enabled":tr',
		'{"version":1,"remotes":{"origin":"on"}}',
		'{"version":1,"remotes":{"origin":{"enabled":true,"pushed":[1]}}}',
	]) {
		fs.writeFileSync(file, damaged);
		for (const run of [() => w.a.engine.sync.status(), () => w.a.engine.sync.push(), () => w.a.engine.sync.pull()]) {
			await assert.rejects(
				run(),
				(error: Error) => error.message.includes(file) && /is damaged \(/.test(error.message) && /move it aside to start over/.test(error.message),
			);
		}
		assert.equal(fs.readFileSync(file, 'utf8'), damaged, 'left as it was');
	}
	// Moved aside: sharing is off until enabled again, and the next push sends everything.
	fs.renameSync(file, `${file}.damaged`);
	assert.deepEqual((await w.a.engine.sync.status()).remotes, []);
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');
	await w.a.engine.sync.push();
	assert.equal((await w.b.engine.sync.pull()).sessions.added, 1);
});
