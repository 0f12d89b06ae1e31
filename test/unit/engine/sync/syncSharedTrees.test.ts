/**
 * What a shared checkpoint carries (sharedTrees.ts, docs/sync.md "What travels"): the files the user's
 * git would commit, read with the user's own ignore rules (a global `core.excludesFile`, git's default
 * `~/.config/git/ignore`, `.gitignore`), untracked files only when the remote allows them, and of
 * those only files that pass the credential scan; every object on the remote is scanned after each
 * step for the planted secrets. A teammate reads the checkpoint's shared files; this machine keeps
 * its whole snapshot.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { actor } from '../../helpers';
import { allObjects, git, syncWorld } from './syncWorld';

/** HOME and XDG_CONFIG_HOME pointed at a folder of the test's own for its duration (the user's global git config lives there). */
function fakeHome(t: TestContext, home: string): void {
	const saved = { HOME: process.env['HOME'], XDG_CONFIG_HOME: process.env['XDG_CONFIG_HOME'] };
	process.env['HOME'] = home;
	delete process.env['XDG_CONFIG_HOME'];
	t.after(() => {
		for (const [key, value] of Object.entries(saved)) {
			if (value === undefined) {
				delete process.env[key];
			} else {
				process.env[key] = value;
			}
		}
	});
}

const planted = {
	env: 'sk-live-4f9c2b7e1d8a6f3c5b2e9d7a',
	slack: 'xoxb-118279232-9981726354-abcdefghijkl',
	key: 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj',
	log: 'debug log body 8a1f',
	todo: 'untracked todo body 3c7e',
	notes: 'private note body 5d2b',
};

test('a shared checkpoint carries only what the user’s git would commit, each file scanned for credentials; a teammate reads it, this machine keeps everything', async (t) => {
	const w = await syncWorld(t);
	const home = path.join(w.dir, 'home');
	fs.mkdirSync(home);
	fakeHome(t, home);
	// The user's global git config names an excludes file that ignores .env.
	fs.writeFileSync(path.join(home, '.gitconfig'), '[core]\n\texcludesFile = ~/global-ignore\n');
	fs.writeFileSync(path.join(home, 'global-ignore'), '.env\n');
	const a = w.a.root;
	// Tracked: app.ts (changed), and a deploy script someone committed with a private key in it.
	fs.mkdirSync(path.join(a, 'config'));
	fs.writeFileSync(
		path.join(a, 'config', 'deploy.sh'),
		`#!/bin/sh\ncat > key.pem <<K\n-----BEGIN PRIVATE KEY-----\n${planted.key}\n-----END PRIVATE KEY-----\nK\n`,
	);
	fs.writeFileSync(path.join(a, '.gitignore'), '*.log\n');
	git(a, ['add', '.']);
	git(a, ['commit', '-qm', 'deploy']);
	fs.writeFileSync(path.join(a, 'app.ts'), 'export const x = 2; // changed on A\n');
	// Untracked: ignored by the global excludes, by .gitignore, and not ignored at all.
	fs.writeFileSync(path.join(a, '.env'), `OPENAI_API_KEY=${planted.env}\n`);
	fs.writeFileSync(path.join(a, 'debug.log'), `${planted.log}\n`);
	fs.writeFileSync(path.join(a, 'todo.md'), `${planted.todo}\n`);
	fs.writeFileSync(path.join(a, 'scratch.txt'), `slack: ${planted.slack}\n`);

	await w.a.engine.sync.enable('origin');
	const first = await w.a.engine.checkpoints.create({ message: 'tracked only', actor });
	const [pushed] = await w.a.engine.sync.push();
	assert.deepEqual(
		pushed?.leftOut?.map((f) => [f.path, f.reason.replace(/, line \d+/, '')]),
		[['config/deploy.sh', 'looks like it holds a credential (private-key)']],
		'the tracked file holding a key is left out and named; untracked and ignored files are simply not shared',
	);
	let objects = allObjects(w.bare);
	for (const secret of Object.values(planted)) {
		assert.ok(!objects.includes(secret), `the remote holds ${secret}`);
	}
	assert.ok(objects.includes('changed on A'), 'the tracked change travels');

	// This machine's checkpoint is still the whole workspace.
	assert.equal((await w.a.engine.checkpoints.fileAt(first.id, '.env'))?.toString(), `OPENAI_API_KEY=${planted.env}\n`);
	assert.equal((await w.a.engine.checkpoints.fileAt(first.id, 'config/deploy.sh'))?.toString().includes(planted.key), true);

	// The teammate reads A's checkpoint from its shared tree: the tracked files, nothing else.
	await w.b.engine.sync.enable('origin');
	await w.b.engine.sync.pull();
	assert.equal((await w.b.engine.checkpoints.fileAt(first.id, 'app.ts'))?.toString(), 'export const x = 2; // changed on A\n');
	assert.equal(await w.b.engine.checkpoints.fileAt(first.id, 'todo.md'), null);
	assert.equal(await w.b.engine.checkpoints.fileAt(first.id, '.env'), null);
	assert.ok(await w.b.engine.checkpoints.diff(first.id), 'B can diff A’s checkpoint');

	// Untracked files allowed for this remote: those git would add travel, once scanned.
	await w.a.engine.sync.enable('origin', { untracked: true });
	assert.deepEqual(
		(await w.a.engine.sync.status()).remotes.map((r) => [r.name, r.untracked]),
		[['origin', true]],
	);
	fs.appendFileSync(path.join(a, 'todo.md'), 'second line\n');
	const second = await w.a.engine.checkpoints.create({ message: 'untracked too', actor });
	const [again] = await w.a.engine.sync.push();
	assert.deepEqual(again?.leftOut?.map((f) => f.path).sort(), ['config/deploy.sh', 'scratch.txt']);
	assert.match(again?.leftOut?.find((f) => f.path === 'scratch.txt')?.reason ?? '', /slack-token/);
	objects = allObjects(w.bare);
	assert.ok(objects.includes(planted.todo), 'an untracked file git would add travels when allowed');
	for (const secret of [planted.env, planted.slack, planted.key, planted.log]) {
		assert.ok(!objects.includes(secret), `the remote holds ${secret}`);
	}
	await w.b.engine.sync.pull();
	assert.equal((await w.b.engine.checkpoints.fileAt(second.id, 'todo.md'))?.toString(), `${planted.todo}\nsecond line\n`);
	assert.equal(await w.b.engine.checkpoints.fileAt(second.id, 'debug.log'), null);

	// No core.excludesFile: git's default ~/.config/git/ignore is the one read.
	fs.rmSync(path.join(home, '.gitconfig'));
	fs.mkdirSync(path.join(home, '.config', 'git'), { recursive: true });
	fs.writeFileSync(path.join(home, '.config', 'git', 'ignore'), 'notes.private\n.env\n');
	fs.writeFileSync(path.join(a, 'notes.private'), `${planted.notes}\n`);
	await w.a.engine.checkpoints.create({ message: 'default excludes', actor });
	await w.a.engine.sync.push();
	objects = allObjects(w.bare);
	for (const secret of Object.values(planted).filter((s) => s !== planted.todo)) {
		assert.ok(!objects.includes(secret), `the remote holds ${secret}`);
	}
});

test('a later checkpoint sends the remote only what changed: its shared tree’s parent is the one shared before', async (t) => {
	const w = await syncWorld(t);
	const a = w.a.root;
	for (let i = 0; i < 300; i++) {
		fs.mkdirSync(path.join(a, 'src', `m${i % 10}`), { recursive: true });
		fs.writeFileSync(path.join(a, 'src', `m${i % 10}`, `f${i}.ts`), `export const v${i} = ${i};\n`);
	}
	git(a, ['add', '.']);
	git(a, ['commit', '-qm', 'three hundred files']);
	await w.a.engine.sync.enable('origin');
	await w.a.engine.checkpoints.create({ message: 'first', actor });
	await w.a.engine.sync.push();
	// Objects received, counted as git stored them (loose ones, and every object of every pack kept, duplicates included): what each push carried.
	const objects = (): number => {
		const counts = Object.fromEntries(
			git(w.bare, ['count-objects', '-v'], { GIT_DIR: w.bare })
				.split('\n')
				.map((l) => l.split(': ')),
		);
		return Number(counts['count']) + Number(counts['in-pack']);
	};
	const before = objects();
	assert.ok(before > 300, `the first push carries the tree (${before} objects)`);

	fs.writeFileSync(path.join(a, 'src', 'm3', 'f3.ts'), 'export const v3 = 33;\n');
	const second = await w.a.engine.checkpoints.create({ message: 'one file changed', actor });
	await w.a.engine.sync.push();
	// The changed blob, the trees on its path, the shared tree's commit, the checkpoints and events refs' commits and their trees and batch.
	assert.ok(objects() - before <= 15, `the second push carried ${objects() - before} objects`);

	// Built from the changes (the index did not move): the teammate reads the whole tree all the same.
	await w.b.engine.sync.enable('origin');
	await w.b.engine.sync.pull();
	assert.equal((await w.b.engine.checkpoints.fileAt(second.id, 'src/m3/f3.ts'))?.toString(), 'export const v3 = 33;\n');
	assert.equal((await w.b.engine.checkpoints.fileAt(second.id, 'src/m9/f299.ts'))?.toString(), 'export const v299 = 299;\n');

	// A tracked file that now holds a token is taken out of the next shared tree, and named.
	fs.writeFileSync(path.join(a, 'src', 'm4', 'f4.ts'), `export const hook = '${planted.slack}';\n`);
	const third = await w.a.engine.checkpoints.create({ message: 'a token pasted in', actor });
	const [withToken] = await w.a.engine.sync.push();
	assert.deepEqual(
		withToken?.leftOut?.map((f) => f.path),
		['src/m4/f4.ts'],
	);
	assert.ok(!allObjects(w.bare).includes(planted.slack));
	await w.b.engine.sync.pull();
	assert.equal(await w.b.engine.checkpoints.fileAt(third.id, 'src/m4/f4.ts'), null);
	assert.equal((await w.b.engine.checkpoints.fileAt(third.id, 'src/m3/f3.ts'))?.toString(), 'export const v3 = 33;\n');

	// A file added to the index without changing since (the index moved): the next shared tree has it.
	fs.writeFileSync(path.join(a, 'src', 'm4', 'f4.ts'), 'export const v4 = 4;\n');
	fs.writeFileSync(path.join(a, 'later.ts'), 'export const later = 1;\n');
	await w.a.engine.checkpoints.create({ message: 'later.ts written', actor });
	await w.a.engine.sync.push();
	git(a, ['add', 'later.ts']);
	const fourth = await w.a.engine.checkpoints.create({ message: 'later.ts tracked', actor });
	await w.a.engine.sync.push();
	await w.b.engine.sync.pull();
	assert.equal((await w.b.engine.checkpoints.fileAt(fourth.id, 'later.ts'))?.toString(), 'export const later = 1;\n');
	assert.equal((await w.b.engine.checkpoints.fileAt(fourth.id, 'src/m4/f4.ts'))?.toString(), 'export const v4 = 4;\n');
});
