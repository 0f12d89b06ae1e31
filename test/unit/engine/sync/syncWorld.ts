/**
 * Two clones of one repository and a bare remote in temp folders, each clone with a real Baton
 * workspace (its own `.baton`, so its own machine id): the set-up every sync test starts from.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { actor, FakeClock, openTestEngine, tempDir, type TestEngine } from '../../helpers';

export interface SyncWorld {
	dir: string;
	bare: string;
	url: string;
	a: TestEngine;
	b: TestEngine;
}

/** git for the test's own set-up, with a fixed identity and no user/system config. */
export function git(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): string {
	return execFileSync('git', [...args], {
		cwd,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
		env: {
			PATH: process.env['PATH'],
			HOME: cwd,
			GIT_CONFIG_NOSYSTEM: '1',
			GIT_AUTHOR_NAME: 't',
			GIT_AUTHOR_EMAIL: 't@t',
			GIT_COMMITTER_NAME: 't',
			GIT_COMMITTER_EMAIL: 't@t',
			...env,
		},
	}).trim();
}

export async function syncWorld(
	t: TestContext,
	options: { url?: (bare: string) => string; syncPageEvents?: number; syncGroupBytes?: number } = {},
): Promise<SyncWorld> {
	const dir = tempDir(t, 'baton-sync-');
	const bare = path.join(dir, 'remote.git');
	git(dir, ['init', '-q', '--bare', bare]);
	const url = options.url ? options.url(bare) : `file://${bare}`;
	const aRoot = path.join(dir, 'a');
	fs.mkdirSync(aRoot);
	git(aRoot, ['init', '-q', '-b', 'main']);
	fs.writeFileSync(path.join(aRoot, 'app.ts'), 'export const x = 1;\n');
	git(aRoot, ['add', '.']);
	git(aRoot, ['commit', '-qm', 'init']);
	git(aRoot, ['remote', 'add', 'origin', `file://${bare}`]);
	git(aRoot, ['push', '-q', 'origin', 'main']);
	if (url !== `file://${bare}`) {
		git(aRoot, ['remote', 'set-url', 'origin', url]);
	}
	const bRoot = path.join(dir, 'b');
	git(dir, ['clone', '-q', `file://${bare}`, bRoot]);
	if (url !== `file://${bare}`) {
		git(bRoot, ['remote', 'set-url', 'origin', url]);
	}
	// Baton's own folder is the user's business to ignore; these clones ignore it locally.
	for (const root of [aRoot, bRoot]) {
		fs.appendFileSync(path.join(root, '.git', 'info', 'exclude'), '.baton/\n');
	}
	const paged = {
		...(options.syncPageEvents ? { syncPageEvents: options.syncPageEvents } : {}),
		...(options.syncGroupBytes ? { syncGroupBytes: options.syncGroupBytes } : {}),
	};
	const a = await openTestEngine(t, { root: aRoot, clock: new FakeClock(Date.parse('2026-03-01T09:00:00.000Z')), ...paged });
	const b = await openTestEngine(t, { root: bRoot, clock: new FakeClock(Date.parse('2026-03-01T09:00:00.500Z')), ...paged });
	return { dir, bare, url, a, b };
}

/** A hash of every file (path and bytes) under a `.git` folder: proof that nothing there changed. */
export function hashTree(dir: string): string {
	const hash = createHash('sha256');
	const walk = (d: string): void => {
		for (const entry of fs.readdirSync(d, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : 1))) {
			const full = path.join(d, entry.name);
			if (entry.isDirectory()) {
				walk(full);
			} else {
				hash.update(path.relative(dir, full)).update('\0').update(fs.readFileSync(full)).update('\0');
			}
		}
	};
	walk(dir);
	return hash.digest('hex');
}

/** Every object's content in a bare repository, as one string (to scan for a planted secret). */
export function allObjects(bare: string): string {
	const out = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
		cwd: bare,
		env: { PATH: process.env['PATH'], GIT_DIR: bare },
		maxBuffer: 512 * 1024 * 1024,
	});
	return out.toString('latin1');
}

export function remoteRefs(bare: string): string[] {
	return git(bare, ['for-each-ref', '--format=%(refname)'], { GIT_DIR: bare }).split('\n').filter(Boolean);
}

export async function startEnd(
	engine: TestEngine,
	name: string,
	note: string,
	options: { scope?: string; checkpoint?: boolean } = {},
): Promise<{ id: string; handoffFrom: string | null }> {
	const started = await engine.engine.sessions.start({ name, actor, ...(options.scope ? { scope: options.scope } : {}) });
	engine.clock.advance(1000);
	if (options.checkpoint) {
		fs.writeFileSync(path.join(engine.root, `${started.session.id}.txt`), `work of ${name}\n`);
		// Added to the user's index: a shared checkpoint carries the files git tracks (sharedTrees.ts).
		git(engine.root, ['add', `${started.session.id}.txt`]);
		await engine.engine.checkpoints.create({ sessionId: started.session.id, message: name, tags: ['shared'], actor });
	}
	await engine.engine.sessions.end({ id: started.session.id, note, actor });
	engine.clock.advance(1000);
	return { id: started.session.id, handoffFrom: started.session.previousSessionId };
}

/** Two clones with sharing enabled on origin on both. */
export async function enabledWorld(t: TestContext): ReturnType<typeof syncWorld> {
	const w = await syncWorld(t);
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');
	return w;
}
