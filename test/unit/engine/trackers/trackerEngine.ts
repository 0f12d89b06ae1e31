/**
 * An Engine wired to loopback tracker peers: a real workspace (a git repository with an `origin` on
 * GitHub), a real database, secrets from a fake environment, time from a FakeClock.
 */
import type { TestContext } from 'node:test';
import type { BatonConfigInput } from '../../../../src/engine/config';
import { Engine } from '../../../../src/engine/engine';
import { envSecretSource } from '../../../../src/engine/secrets';
import { userGit, write } from '../checkpoints/gitFixtures';
import { closeBeforeRemoval, FakeClock, MemoryLogger, noGit, tempDir, type TestEngine } from '../../helpers';

export const secrets = {
	BATON_GITHUB_TOKEN: 'ghp_E2Esecret_github_0123456789',
	BATON_LINEAR_API_KEY: 'lin_api_E2Esecret_linear_abcdef',
	BATON_TRACKER_WEBHOOK_URL: '',
	BATON_TRACKER_WEBHOOK_TOKEN: 'whk_E2Esecret_webhook_987654',
};

export interface TrackerTestEngine extends TestEngine {
	env: Record<string, string>;
}

/** A git repository on `branch` whose origin is github.com/acme/shop, with one file to snapshot. */
export function makeRepo(root: string, branch = 'main'): void {
	userGit(root, 'init', '-q', '-b', branch);
	userGit(root, 'remote', 'add', 'origin', 'git@github.com:acme/shop.git');
	write(root, 'src/login.ts', 'export const login = 1;\n');
}

export async function openTrackerEngine(
	t: TestContext,
	options: { config: BatonConfigInput; root?: string; branch?: string; env?: Record<string, string> },
): Promise<TrackerTestEngine> {
	const root = options.root ?? tempDir(t, 'baton-trackers-');
	if (!options.root) {
		makeRepo(root, options.branch);
	}
	const clock = new FakeClock();
	const log = new MemoryLogger();
	const env = { ...secrets, ...options.env };
	const engine = await Engine.open({ workspaceRoot: root, log, clock, create: true, git: noGit, config: options.config, secrets: envSecretSource(env) });
	engine.trackers.faults.searchPath = '';
	closeBeforeRemoval(t, engine);
	return { engine, clock, log, root, env };
}
