/**
 * Retention of the replay's trees: a session past `checkpoints.timelineKeep` (and not among the
 * `timelineKeepSessions` most recent) loses its trees from Baton's store on `baton timeline prune`;
 * its steps keep their records and say the trees are gone; show and revert explain instead of
 * failing; `baton doctor` reports what the timeline takes. All through real hook payloads, the real
 * CLI and the real shadow store.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, it, type TestContext } from 'node:test';
import { tempDir } from '../../helpers';
import { agentCli, hookFixture, runBaton, type Run } from '../../cli/agentCli';

let cli = '';
before(async () => {
	cli = await agentCli();
});

function workspace(t: TestContext, config: Record<string, unknown>) {
	const root = path.join(tempDir(t, 'baton-retention-'), 'project');
	fs.mkdirSync(root);
	const baton = (args: string[], input?: string): Run => runBaton(cli, root, args, input !== undefined ? { input } : {});
	assert.equal(baton(['init']).code, 0);
	fs.writeFileSync(path.join(root, '.baton', 'config.json'), JSON.stringify({ checkpoints: config }));
	const claudeHome = path.join(root, '..', 'claude');
	const hook = (name: string, overrides: Record<string, unknown>) => {
		const run = baton(['hook'], JSON.stringify(hookFixture('claude', name, { root, claudeHome }, overrides)));
		assert.equal(run.code, 0, run.stderr);
	};
	/** One Claude session (its own session id) with one Bash step that writes `file`. */
	const session = (id: string, file: string) => {
		hook('session-start-startup', { session_id: id });
		const call = { session_id: id, tool_name: 'Bash', tool_input: { command: `echo ${id} > ${file}` }, tool_use_id: `toolu_${id}` };
		hook('pre-tool-use', call);
		fs.writeFileSync(path.join(root, file), `${id}\n`);
		hook('pre-tool-use', { ...call, hook_event_name: 'PostToolUse' });
		hook('session-end', { session_id: id });
	};
	const gitDir = path.join(root, '.baton', 'shadow.git');
	const has = (sha: string) => {
		try {
			execFileSync('git', ['--git-dir', gitDir, 'cat-file', '-e', sha], { stdio: 'ignore' });
			return true;
		} catch {
			return false;
		}
	};
	return { root, baton, session, has, gitDir };
}

const sessionIds = ['11111111-aaaa-4bbb-8ccc-000000000001', '11111111-aaaa-4bbb-8ccc-000000000002'];

void it('prunes the trees of ended sessions past the retention; their steps keep their records and explain', (t) => {
	// Keep nothing by age, and only the most recently active session whatever its age.
	// No `complete` checkpoint at the end: it would share (and keep) the last step's tree.
	const w = workspace(t, { timelineKeep: 0, timelineKeepSessions: 1, completeOnEnd: false });
	// Not an empty workspace: git holds the empty tree whatever is pruned.
	fs.writeFileSync(path.join(w.root, 'README.md'), 'a project\n');
	w.session(sessionIds[0] as string, 'first.txt');
	// Maintenance while the first session is the only one (kept by count): its step's blobs go into a kept pack of its own.
	assert.equal((w.baton(['timeline', 'prune', '--pack', '--json']).json as any).packed, true);
	const packDir = path.join(w.gitDir, 'objects', 'pack');
	const keptPacks = (id: string) =>
		fs.readdirSync(packDir).filter((f) => f.endsWith('.keep') && fs.readFileSync(path.join(packDir, f), 'utf8').startsWith(`baton timeline ${id}\n`));
	const firstPacks = fs.readdirSync(packDir).filter((f) => f.endsWith('.keep'));
	assert.equal(firstPacks.length, 1, 'one kept pack after the first session');
	w.session(sessionIds[1] as string, 'second.txt');
	const sessions = (w.baton(['session', 'list', '--json']).json as any).sessions as any[];
	const [older, newer] = [sessions.find((s) => s.agentIdentifier === sessionIds[0]), sessions.find((s) => s.agentIdentifier === sessionIds[1])];
	assert.ok(older && newer, 'both sessions exist');
	const step = (id: string) => (w.baton(['timeline', '--session', id, '--json']).json as any).steps[0];
	const kept = step(older.id);
	assert.ok(w.has(kept.treeAfter) && w.has(kept.treeBefore));
	assert.deepEqual(keptPacks(older.id), firstPacks, 'the kept pack is the first session’s');
	assert.equal(kept.treesGone, undefined);

	const dry = w.baton(['timeline', 'prune', '--dry-run', '--json']).json as any;
	assert.deepEqual(
		dry.pruned.map((p: any) => p.sessionId),
		[older.id],
	);
	assert.equal(dry.packed, false);
	assert.ok(w.has(kept.treeAfter), 'a dry run prunes nothing');

	const doctorBefore = w.baton(['doctor', '--json']).json as any;
	assert.equal(doctorBefore.storage.timeline.sessions, 2);
	assert.equal(doctorBefore.storage.timeline.steps, 2);
	assert.ok(doctorBefore.storage.timeline.bytes > 0, 'the timeline has bytes of its own');

	const run = w.baton(['timeline', 'prune', '--json']);
	assert.equal(run.code, 0, run.stderr);
	const result = run.json as any;
	assert.deepEqual(
		result.pruned.map((p: any) => p.sessionId),
		[older.id],
	);
	assert.equal(result.kept, 1);
	assert.equal(result.packed, true);
	const refs = execFileSync('git', ['--git-dir', w.gitDir, 'for-each-ref', '--format=%(refname)', 'refs/baton/timeline/'], { encoding: 'utf8' }).trim();
	assert.equal(refs, `refs/baton/timeline/${newer.id}`);
	const reachable = execFileSync('git', ['--git-dir', w.gitDir, 'rev-list', '--objects', '--all'], { encoding: 'utf8' });
	// The step's tree before is the first session's alone; its tree after is where the second session started, and stays.
	assert.ok(!reachable.includes(kept.treeBefore), 'nothing in the store keeps the pruned step’s tree any more');
	assert.ok(reachable.includes(kept.treeAfter), 'a tree another session shares is kept');
	assert.ok(!w.has(kept.treeBefore), 'the pruned step’s tree is gone from the store');
	const packed = execFileSync('sh', ['-c', `for p in "${w.gitDir}"/objects/pack/*.idx; do git show-index < "$p"; done`], { encoding: 'utf8' });
	assert.ok(!packed.includes(kept.treeBefore), 'the repack left it out of the pack');
	// The pruned session's kept pack is gone, files and all; the other session's steps still read, and nothing is missing.
	assert.deepEqual(keptPacks(older.id), []);
	const firstBase = (firstPacks[0] as string).slice(0, -'.keep'.length);
	assert.deepEqual(
		fs.readdirSync(packDir).filter((f) => f.startsWith(firstBase)),
		[],
	);
	assert.equal(keptPacks(newer.id).length, 1, 'the kept session has its pack');
	const newerDiff = w.baton(['timeline', 'show', '1', '--session', newer.id, '--diff', '--json']);
	assert.equal(newerDiff.code, 0, newerDiff.stderr);
	assert.match((newerDiff.json as any).diff, new RegExp(`^\\+${sessionIds[1]}$`, 'm'));
	const fsck = execFileSync('git', ['--git-dir', w.gitDir, 'fsck', '--full', '--no-dangling', '--no-progress'], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	assert.doesNotMatch(fsck, /missing/);

	// The record stays: same files, counts and summary, and it says why there is no diff.
	const pruned = step(older.id);
	assert.deepEqual(pruned.files, kept.files);
	assert.equal(pruned.summary, kept.summary);
	assert.equal(pruned.captured, true);
	assert.match(pruned.treesGone, /pruned on \d{4}-\d\d-\d\d by the timeline retention/);
	assert.equal(step(newer.id).treesGone, undefined, 'the session kept by count keeps its trees');

	const show = w.baton(['timeline', 'show', '1', '--session', older.id, '--diff', '--json']);
	assert.equal(show.code, 0, show.stderr);
	assert.equal((show.json as any).diff, '');
	assert.deepEqual((show.json as any).filesNow, []);
	assert.match(w.baton(['timeline', 'show', '1', '--session', older.id]).stdout, /gone {7}its trees were pruned/);
	const revert = w.baton(['timeline', 'revert', '1', '--session', older.id, '--json']);
	assert.equal(revert.code, 1);
	assert.match((revert.json as any).error.message, /cannot be reverted: its trees were pruned/);
	assert.equal(fs.readFileSync(path.join(w.root, 'first.txt'), 'utf8'), `${sessionIds[0]}\n`, 'nothing was touched');

	const doctor = w.baton(['doctor', '--json']).json as any;
	assert.equal(doctor.storage.timeline.sessions, 1);
	assert.equal(doctor.storage.timeline.prunedSessions, 1);
	assert.equal(doctor.storage.timeline.steps, 2, 'the records stay');
	assert.match(
		w.baton(['doctor']).stdout,
		/^info {2}timeline {3}[\d.]+ (KB|MB|bytes) of its own \(2 step\(s\), \d+ kept tree\(s\), 1 session\(s\), 1 session\(s\) pruned\)$/m,
	);
});

void it('keeps every timeline under the default retention, and a session not ended whatever its age', (t) => {
	const w = workspace(t, { timelineKeepSessions: 0 });
	w.session(sessionIds[0] as string, 'first.txt');
	const result = w.baton(['timeline', 'prune', '--json']).json as any;
	assert.deepEqual(result.pruned, [], 'ended a moment ago: within 30 days');
	const open = workspace(t, { timelineKeep: 0, timelineKeepSessions: 0 });
	const root = open.root;
	const claudeHome = path.join(root, '..', 'claude');
	assert.equal(open.baton(['hook'], JSON.stringify(hookFixture('claude', 'session-start-startup', { root, claudeHome }))).code, 0);
	const call = { tool_name: 'Bash', tool_input: { command: 'touch a' }, tool_use_id: 'toolu_open1' };
	assert.equal(open.baton(['hook'], JSON.stringify(hookFixture('claude', 'pre-tool-use', { root, claudeHome }, call))).code, 0);
	fs.writeFileSync(path.join(root, 'a'), '');
	assert.equal(
		open.baton(['hook'], JSON.stringify(hookFixture('claude', 'pre-tool-use', { root, claudeHome }, { ...call, hook_event_name: 'PostToolUse' }))).code,
		0,
	);
	assert.deepEqual((open.baton(['timeline', 'prune', '--json']).json as any).pruned, [], 'an active session keeps its trees');
});
