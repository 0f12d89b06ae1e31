/**
 * The cloud/CI flow of docs/sync.md with the CLI alone: a throw-away clone (a CI runner) runs a
 * session and ends by pushing its records; the developer's clone pulls and the next local session
 * starts with the runner's handoff, its sessions showing who and where they ran.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { tempDir } from '../../helpers';
import { git } from './syncWorld';

const cli = path.resolve(__dirname, '../../../../dist/cli.js');

function baton(cwd: string, args: string[], env: Record<string, string> = {}): Record<string, unknown> {
	return JSON.parse(
		execFileSync(process.execPath, [cli, ...args, '--no-daemon', '--json'], { cwd, encoding: 'utf8', env: { ...process.env, ...env } }),
	) as Record<string, unknown>;
}

test('a CI runner’s session, pushed from a throw-away clone, continues in the developer’s clone', async (t) => {
	const dir = tempDir(t, 'baton-cloud-');
	const bare = path.join(dir, 'remote.git');
	git(dir, ['init', '-q', '--bare', bare]);
	const dev = path.join(dir, 'dev');
	fs.mkdirSync(dev);
	git(dev, ['init', '-q', '-b', 'main']);
	fs.writeFileSync(path.join(dev, 'README.md'), '# app\n');
	fs.writeFileSync(path.join(dev, '.gitignore'), '.baton/\n');
	git(dev, ['add', '.']);
	git(dev, ['commit', '-qm', 'init']);
	git(dev, ['remote', 'add', 'origin', `file://${bare}`]);
	git(dev, ['push', '-q', 'origin', 'main']);
	baton(dev, ['init']);
	baton(dev, ['sync', 'enable', 'origin']);

	// The runner: a fresh clone that lives for one job.
	const runner = path.join(dir, 'runner');
	git(dir, ['clone', '-q', `file://${bare}`, runner]);
	const ci = { BATON_MACHINE_NAME: 'ci-runner-42', BATON_AUTHOR: 'ci-bot' };
	baton(runner, ['init'], ci);
	baton(runner, ['sync', 'enable', 'origin'], ci);
	const started = baton(runner, ['session', 'start', '--name', 'nightly fix', '--agent', 'cloud-agent'], ci) as { session: { id: string } };
	fs.writeFileSync(path.join(runner, 'fix.ts'), 'export const fixed = true;\n');
	baton(runner, ['session', 'end', '--note', 'fixed the flaky parser test', '--next-action', 'review fix.ts'], ci);
	const pushed = baton(runner, ['sync', 'push'], ci) as { pushed: { ref: string; oid: string }[]; remote: string };
	assert.equal(pushed.remote, 'origin');
	assert.ok(pushed.pushed.some((p) => p.ref.startsWith('refs/baton/events/')));
	fs.rmSync(runner, { recursive: true, force: true });

	// The developer's editor (or CLI) pulls; the next session starts with the runner's handoff.
	const pulled = baton(dev, ['sync', 'pull']) as { fetched: number; newEvents: number; sessions: { added: number; updated: number } };
	assert.equal(pulled.fetched, 1);
	assert.equal(pulled.sessions.added, 1);
	const next = baton(dev, ['session', 'start', '--name', 'review']) as {
		session: { previousSessionId: string };
		handoff: { note: string; nextAction: string };
	};
	assert.equal(next.session.previousSessionId, started.session.id);
	assert.equal(next.handoff.note, 'fixed the flaky parser test');
	assert.equal(next.handoff.nextAction, 'review fix.ts');
	const origin = baton(dev, ['sync', 'origin', started.session.id]) as { machineName: string; author: string };
	assert.deepEqual([origin.machineName, origin.author], ['ci-runner-42', 'ci-bot']);
});
