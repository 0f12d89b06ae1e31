import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { snapshotFiles, tempDir } from '../helpers';
import { baton, cliPath } from './cliRunner';

const cli = cliPath;

function gitRepo(dir: string): void {
	const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });
	git('init', '-q', '-b', 'main');
	fs.writeFileSync(path.join(dir, 'a.txt'), 'one\n');
	git('add', '.');
	git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-qm', 'init');
	fs.writeFileSync(path.join(dir, 'a.txt'), 'two\n');
	fs.writeFileSync(path.join(dir, 'new.txt'), 'untracked\n');
}

void describe('baton CLI (the bundled bin, as agents run it)', () => {
	before(() => {
		assert.ok(fs.existsSync(cli), `${cli} is missing: run \`npm run build\` first (npm test does)`);
	});

	void it('initialises a workspace with a .gitignore and finds it from a subfolder', (t) => {
		const root = tempDir(t);
		const init = baton(root, 'init', '--json');
		assert.equal(init.code, 0, init.stderr);
		assert.equal(init.json['created'], true);
		assert.match(fs.readFileSync(path.join(root, '.baton', '.gitignore'), 'utf8'), /^\*$/m);
		const sub = path.join(root, 'src', 'deep');
		fs.mkdirSync(sub, { recursive: true });
		const started = baton(sub, 'session', 'start', '--name', 'from below', '--json');
		assert.equal(started.code, 0, started.stderr);
		assert.ok(fs.existsSync(path.join(root, '.baton', 'baton.db.journal')));
		assert.equal(fs.existsSync(path.join(sub, '.baton')), false);
		assert.equal(baton(root, 'init', '--json').json['created'], false, 'init is idempotent');
	});

	void it('runs the lifecycle with the documented JSON shapes, and reads git state without writing to .git', (t) => {
		const root = tempDir(t);
		gitRepo(root);
		baton(root, 'init');
		assert.equal(baton(root, 'task', 'add', '--title', 'Auth', '--type', 'epic', '--json').json['task'].id, 'T1');
		baton(root, 'task', 'add', '--title', 'JWT', '--parent', 'T1', '--priority', 'high');
		const refresh = baton(root, 'task', 'add', '--title', 'Refresh', '--parent', 'T1', '--depends-on', 'T2', '--json');
		assert.deepEqual(refresh.json['task'].dependsOn, ['T2']);

		const start = baton(root, 'session', 'start', '--name', 'part 1', '--scope', 'epic:T1', '--agent', 'claude-code', '--agent-id', 'c-1', '--json');
		assert.equal(start.code, 0, start.stderr);
		assert.deepEqual(Object.keys(start.json).sort(), ['briefing', 'handoff', 'session', 'warnings']);
		const session = start.json['session'];
		for (const key of [
			'id',
			'status',
			'name',
			'scope',
			'previousSessionId',
			'nextSessionId',
			'handoffConsumedAt',
			'handoffConsumedBy',
			'agentIdentifier',
			'resumeCount',
			'lastActivity',
		]) {
			assert.ok(key in session, `session has ${key}`);
		}
		assert.equal(start.json['handoff'], null);
		assert.deepEqual(
			start.json['briefing'].nextTasks.map((x: { id: string }) => x.id),
			['T2'],
		);
		assert.equal(start.json['briefing'].nextTasks[0].leverage, 1);

		assert.equal(baton(root, 'focus', 'T2', '--json').code, 0);
		assert.equal(baton(root, 'decision', 'record', '--text', 'RS256', '--rationale', 'rotation', '--json').code, 0);
		assert.equal(baton(root, 'task', 'update', 'T2', '--status', 'done', '--json').json['task'].status, 'done');

		// A commit made during the session counts; the one before it does not.
		execFileSync('git', ['add', 'new.txt'], { cwd: root });
		execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-qm', 'during'], { cwd: root });
		const gitBefore = snapshotFiles(path.join(root, '.git'));
		const end = baton(
			root,
			'session',
			'end',
			'--note',
			'JWT done',
			'--next-action',
			'refresh tokens',
			'--blocker',
			'keys',
			'--blocker',
			'staging',
			'--json',
		);
		assert.equal(end.code, 0, end.stderr);
		assert.deepEqual(Object.keys(end.json).sort(), ['debrief', 'handoff', 'session', 'warnings']);
		assert.deepEqual(end.json['handoff'].openBlockers, ['keys', 'staging']);
		assert.deepEqual(end.json['debrief'].gitState, {
			branch: 'main',
			head: execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim(),
			commitCount: 1,
			uncommittedChanges: 1,
		});
		assert.deepEqual(snapshotFiles(path.join(root, '.git')), gitBefore, 'the user’s .git is byte-identical');

		const next = baton(root, 'session', 'start', '--name', 'part 2', '--scope', 'epic:T1', '--json');
		assert.equal(next.json['handoff'].note, 'JWT done');
		assert.deepEqual(
			next.json['briefing'].nextTasks.map((x: { id: string }) => x.id),
			['T3'],
		);
		const chain = baton(root, 'session', 'chain', next.json['session'].id, '--json');
		assert.deepEqual(
			chain.json['sessions'].map((s: { name: string }) => s.name),
			['part 1', 'part 2'],
		);
		const shown = baton(root, 'session', 'show', session.id, '--json');
		assert.equal(shown.json['session'].handoffConsumedBy, next.json['session'].id);
		assert.equal(shown.json['handoff'].nextAction, 'refresh tokens');
		assert.deepEqual(
			baton(root, 'session', 'list', '--status', 'ended', '--json').json['sessions'].map((s: { id: string }) => s.id),
			[session.id],
		);
		assert.equal(baton(root, 'briefing', '--json').json['briefing'].lastSession.id, session.id);
		const gc = baton(root, 'session', 'gc', '--orphan-after', '0', '--json');
		assert.deepEqual(
			gc.json['orphaned'].map((s: { id: string }) => s.id),
			[next.json['session'].id],
		);
		assert.equal(baton(root, 'session', 'resume', next.json['session'].id, '--json').json['session'].status, 'active');
		assert.equal(baton(root, 'session', 'suspend', '--json').json['session'].status, 'suspended');
		assert.equal(baton(root, 'session', 'switch', session.id, '--json').json['session'].status, 'active');
		assert.equal(baton(root, 'doctor', '--json').json['ok'], true);
	});

	void it('refuses with exit 1 and a coded error, and rejects bad usage with exit 2', (t) => {
		const root = tempDir(t);
		const notInit = baton(root, 'session', 'list', '--json');
		assert.equal(notInit.code, 1);
		assert.equal(notInit.json['error'].code, 'notInitialized');
		baton(root, 'init');
		baton(root, 'session', 'start', '--name', 'a');
		const conflict = baton(root, 'session', 'start', '--name', 'b', '--json');
		assert.equal(conflict.code, 1);
		assert.equal(conflict.json['error'].code, 'scopeConflict');
		assert.match(conflict.json['error'].message, /already active in scope global/);
		const plain = baton(root, 'session', 'start', '--name', 'b');
		assert.equal(plain.code, 1);
		assert.equal(plain.stdout, '');
		assert.equal(plain.stderr.trim().split('\n').length, 1);
		assert.equal(baton(root, 'session', 'resume', 'ses_20200101000000_abcdef', '--json').json['error'].code, 'notFound');
		assert.equal(baton(root, 'session', 'start', '--name', 'x', '--scope', 'epic:../../etc', '--json').json['error'].code, 'invalidScope');

		for (const args of [
			['session', 'start'],
			['session', 'start', '--name', 'x', '--bogus'],
			['sesion', 'list'],
			['session', 'resume'],
			['session', 'gc', '--orphan-after', 'soon'],
			['task', 'add', '--title', 't', '--type', 'story'],
		]) {
			const run = baton(root, ...args, '--json');
			assert.equal(run.code, 2, `${args.join(' ')} → ${run.stdout}${run.stderr}`);
			assert.equal(run.json['error'].code, 'usage');
		}
		assert.equal(baton(root).code, 2);
		assert.equal(baton(root, '--help').code, 0);
	});

	void it('keeps hostile names verbatim and never lets them reach a path', (t) => {
		const root = tempDir(t);
		baton(root, 'init');
		const name = 'x"; DROP TABLE sessions; -- ../../etc/passwd \u202e ✓ 名前';
		const started = baton(root, 'session', 'start', '--name', name, '--json');
		assert.equal(started.code, 0, started.stderr);
		assert.equal(baton(root, 'session', 'show', started.json['session'].id, '--json').json['session'].name, name);
		// Whatever else is there (the daemon's socket, endpoint and log; its file watcher's cache; its HTTP hook port and secret), no file is
		// named after the session; machine.json is the random machine id the session's shared event is named with.
		const daemonFiles = new Set(['daemon.json', 'daemon.lock', 'daemon.sock', 'logs', 'cache', 'hook-http.json', 'hook-secret']);
		assert.deepEqual(
			fs
				.readdirSync(path.join(root, '.baton'))
				.filter((f) => !daemonFiles.has(f) && !f.startsWith('baton.db.lock'))
				.sort(),
			['.gitignore', 'baton.db', 'baton.db.journal', 'baton.db.sum', 'machine.json'],
		);
	});

	void it('tells a damaged database apart with a clear error, and doctor --repair recovers', (t) => {
		const root = tempDir(t);
		baton(root, 'init');
		baton(root, 'session', 'start', '--name', 'a');
		baton(root, 'session', 'end');
		const journal = path.join(root, '.baton', 'baton.db.journal');
		const bytes = fs.readFileSync(journal);
		bytes[100] = (bytes[100] as number) ^ 0xff;
		fs.writeFileSync(journal, bytes);
		const broken = baton(root, 'session', 'list', '--json');
		assert.equal(broken.code, 1);
		assert.equal(broken.json['error'].code, 'corruptJournal');
		assert.ok(broken.json['error'].message.includes(journal));
		const check = baton(root, 'doctor', '--json');
		assert.equal(check.code, 1);
		assert.equal(check.json['ok'], false);
		// The damage costs acknowledged writes: without a terminal to ask, the repair refuses and writes nothing.
		const dataDir = path.join(root, '.baton');
		const storeFiles = () => fs.readdirSync(dataDir).filter((name) => name.startsWith('baton.db') && fs.statSync(path.join(dataDir, name)).isFile());
		const store = () => Object.fromEntries(storeFiles().map((name) => [name, fs.readFileSync(path.join(dataDir, name)).toString('base64')]));
		const before = store();
		const refused = baton(root, 'doctor', '--repair', '--json');
		assert.equal(refused.code, 1, refused.stdout);
		assert.equal(refused.json['repair'], null);
		assert.match(refused.json['declined'].losses.join(), /acknowledged write/);
		assert.match(baton(root, 'doctor', '--repair').stdout, /nothing was changed[\s\S]*--accept-loss/);
		assert.deepEqual(store(), before, 'a refused repair changes no file');
		assert.equal(baton(root, 'doctor', '--accept-loss', '--json').code, 2, '--accept-loss needs --repair');
		const repair = baton(root, 'doctor', '--repair', '--accept-loss', '--json');
		assert.equal(repair.code, 0, repair.stdout);
		assert.ok(repair.json['repair'].losses.length > 0);
		assert.equal(baton(root, 'session', 'list', '--json').code, 0);
	});
});
