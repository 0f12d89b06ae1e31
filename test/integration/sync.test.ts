/**
 * Sync in the editor, against a real bare remote (workspace prepared by scripts/runEditorTests.mjs:
 * this folder is clone B with sync enabled for origin; clone A, another Baton machine named
 * `ci-runner` whose author is `ci-bot`, already pushed an ended session and one still running there).
 * Sync Now pulls them into Session Chains with who and where they ran (the running one holds nothing
 * here: this machine starts and ends its own sessions in the same scope), the session status bar item carries the sync state, and
 * a remote that refuses the push is said plainly, with Retry.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { BatonApi } from '../../src/extension/extension';
import { activateBaton } from './activateBaton';
import { CommandIds } from '../../src/extension/ids';
import type { SyncNowResultDto } from '../../src/protocol/syncRpc';
import type { ScopeNode, SessionNode } from '../../src/extension/views/sessionChainsProvider';

let api: BatonApi;
let extensionPath: string;
const root = (): string => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath as string;
const remoteName = 'nightly fix on the CI runner';

async function row(name: string): Promise<SessionNode | undefined> {
	for (const group of (await api.chains.getChildren()) as ScopeNode[]) {
		for (const node of (await api.chains.getChildren(group)) as SessionNode[]) {
			if (node.session.name === name) return node;
		}
	}
	return undefined;
}

function cli(...args: string[]): string {
	const run = spawnSync(process.execPath, [path.join(extensionPath, 'dist', 'cli.js'), ...args], {
		cwd: root(),
		encoding: 'utf8',
		env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', BATON_NO_DAEMON: '1' },
	});
	assert.equal(run.status, 0, run.stderr);
	return run.stdout;
}

/** The bare remote behind origin (file:// URL in the clone's config, read with git itself). */
function bareRemote(): string {
	const url = spawnSync('git', ['remote', 'get-url', 'origin'], { cwd: root(), encoding: 'utf8' }).stdout.trim();
	return url.replace(/^file:\/\//, '');
}

suite('Sync in the editor', () => {
	suiteSetup(async () => {
		({ api, extensionPath } = await activateBaton());
	});

	test('Sync Now pulls the other machine’s session into Session Chains, with its author and machine', async () => {
		assert.equal(await row(remoteName), undefined, 'not here before the pull');
		const result = (await vscode.commands.executeCommand(CommandIds.syncNow)) as SyncNowResultDto | undefined;
		assert.ok(result, 'Sync Now failed');
		assert.equal(result.sessions.added, 2);
		const node = await row(remoteName);
		assert.ok(node, 'the pulled session is in the tree');
		assert.equal(node.session.status, 'ended');
		const item = api.chains.getTreeItem(node);
		assert.match(String(item.description), /ci-bot@ci-runner/);
		// A teammate's session offers what opens it, not the lifecycle actions (resume, end) of one of this machine's.
		assert.equal(item.contextValue, 'session.remote.ended');
		const running = await row('review on the CI runner');
		assert.ok(running, 'the session still running on the runner is in the tree');
		assert.equal(running.session.status, 'active');
		assert.equal(api.chains.getTreeItem(running).contextValue, 'session.remote.active');
		assert.deepEqual(
			api.workspace.status?.active.map((s) => s.name),
			[],
			'it is not active on this machine',
		);
		const hover = (await api.chains.resolveTreeItem(item, node, new vscode.CancellationTokenSource().token)).tooltip as vscode.MarkdownString;
		assert.match(hover.value, /Ran on \*\*ci\\?-runner\*\* by \*\*ci\\?-bot\*\*/);
		assert.match(hover.value, /fixed the flaky test/, 'its handoff came with it');
		// A session of this machine shows no origin.
		cli('session', 'start', '--name', 'local work');
		await api.workspace.refresh();
		const local = await row('local work');
		assert.ok(local);
		assert.doesNotMatch(String(api.chains.getTreeItem(local).description), /ci-runner|@/);
		assert.equal(api.chains.getTreeItem(local).contextValue, 'session.active');
		assert.deepEqual(
			api.workspace.status?.active.map((s) => s.name),
			['local work'],
		);
	});

	test('the session status bar item carries the sync state in its tooltip and menu', async () => {
		await vscode.commands.executeCommand(CommandIds.syncNow);
		const shown = api.statusBar.shown;
		assert.match(shown.tooltip, /\*\*Sync\*\*/);
		assert.match(shown.tooltip, /origin: 0 ahead, 0 behind — pushed .*, pulled /);
		assert.match(shown.tooltip, /\[Sync Now\]\(command:baton\.sync\.now\)/);
		assert.deepEqual(
			api.syncMenu().map((i) => i.label),
			['$(sync) Sync Now'],
		);
	});

	test('a remote that refuses the push is said plainly, the item warns, and Retry sends it once the remote accepts', async () => {
		const hook = path.join(bareRemote(), 'hooks', 'pre-receive');
		fs.writeFileSync(hook, '#!/bin/sh\necho "this mirror is read-only" >&2\nexit 1\n', { mode: 0o755 });
		try {
			cli('session', 'end', '--note', 'local work done');
			const refused = (await vscode.commands.executeCommand(CommandIds.syncNow)) as SyncNowResultDto | undefined;
			assert.equal(refused, undefined, 'the refused push is reported as a failure');
			const shown = api.statusBar.shown;
			assert.match(shown.text, /\$\(warning\) sync/);
			assert.match(shown.tooltip, /remote "origin" refused refs\/baton\/events\/\w+ \\\[remote rejected\\\]/);
			assert.match(shown.tooltip, /it said: this mirror is read\\?-only/, 'the remote’s own words are shown');
			assert.match(shown.tooltip, /\[Retry\]\(command:baton\.sync\.now\)/);
			assert.deepEqual(
				api.syncMenu().map((i) => i.label),
				['$(refresh) Retry Sync'],
			);
		} finally {
			fs.rmSync(hook, { force: true });
		}
		const retried = (await vscode.commands.executeCommand(CommandIds.syncNow)) as SyncNowResultDto | undefined;
		assert.ok(retried, 'Retry succeeds once the remote accepts');
		assert.ok(retried.pushed.some((p) => p.ref.startsWith('refs/baton/events/')));
		assert.doesNotMatch(api.statusBar.shown.tooltip, /\$\(error\)/);
		assert.deepEqual(
			api.syncMenu().map((i) => i.label),
			['$(sync) Sync Now'],
		);
	});

	test('records pulled that are no valid event are left out and said; the rest of the pull comes in', async () => {
		// A batch on the CI runner's events ref in the remote, written by something that is not Baton.
		const bare = bareRemote();
		const git = (args: string[], input?: string): string =>
			spawnSync('git', args, {
				input,
				encoding: 'utf8',
				env: {
					PATH: process.env['PATH'],
					GIT_DIR: bare,
					GIT_INDEX_FILE: path.join(bare, 'forge.index'),
					GIT_AUTHOR_NAME: 't',
					GIT_AUTHOR_EMAIL: 't@t',
					GIT_COMMITTER_NAME: 't',
					GIT_COMMITTER_EMAIL: 't@t',
				},
			}).stdout.trim();
		const ours = JSON.parse(fs.readFileSync(path.join(root(), '.baton', 'machine.json'), 'utf8')) as { id: string };
		const ref = git(['for-each-ref', '--format=%(refname)', 'refs/baton/events/'])
			.split('\n')
			.find((r) => r && !r.endsWith(`/${ours.id}`));
		assert.ok(ref, 'the CI runner’s events ref');
		const tip = git(['rev-parse', ref]);
		const blob = git(['hash-object', '-w', '--stdin'], '{"id":"evt_01KZZ","kind":"session.sta\n');
		git(['read-tree', tip]);
		git(['update-index', '--add', '--cacheinfo', `100644,${blob},batches/zz-not-baton.jsonl`]);
		git(['update-ref', ref, git(['commit-tree', git(['write-tree']), '-p', tip, '-m', 'baton events: 1']), tip]);
		fs.rmSync(path.join(bare, 'forge.index'), { force: true });

		const result = (await vscode.commands.executeCommand(CommandIds.syncNow)) as SyncNowResultDto | undefined;
		assert.ok(result, 'the sync is not stopped by it');
		assert.equal(result.refusedCount, 1);
		assert.equal(result.refused[0]?.id, `${blob.slice(0, 12)}:1`);
		assert.match(result.refused[0]?.reason ?? '', /^not JSON/);
		const again = (await vscode.commands.executeCommand(CommandIds.syncNow)) as SyncNowResultDto | undefined;
		assert.equal(again?.refusedCount, 0, 'each is refused once');
	});

	test('Stop Sharing turns the remote off (no sync state in the status bar, Sync Now sends nothing); Share turns it on again, transcripts as chosen', async () => {
		const stateFile = path.join(root(), '.baton', 'sync', 'state.json');
		const state = (): { enabled: boolean; transcripts: boolean } =>
			(JSON.parse(fs.readFileSync(stateFile, 'utf8')) as { remotes: Record<string, { enabled: boolean; transcripts: boolean }> }).remotes['origin'] as {
				enabled: boolean;
				transcripts: boolean;
			};
		assert.equal(await vscode.commands.executeCommand(CommandIds.syncDisable, { remote: 'origin' }), 'origin');
		assert.equal(state().enabled, false);
		assert.doesNotMatch(api.statusBar.shown.tooltip, /\*\*Sync\*\*/);
		cli('session', 'start', '--name', 'unshared work');
		const before = spawnSync('git', ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/baton/'], {
			cwd: bareRemote(),
			encoding: 'utf8',
			env: { PATH: process.env['PATH'], GIT_DIR: bareRemote() },
		}).stdout;
		// Nothing is shared: Sync Now says so (with the way to share) instead of syncing nothing.
		assert.equal(await vscode.commands.executeCommand(CommandIds.syncNow), undefined, 'a remote that is off is sent nothing');
		assert.equal(
			spawnSync('git', ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/baton/'], {
				cwd: bareRemote(),
				encoding: 'utf8',
				env: { PATH: process.env['PATH'], GIT_DIR: bareRemote() },
			}).stdout,
			before,
		);

		const on = (await vscode.commands.executeCommand(CommandIds.syncEnable, { remote: 'origin', transcripts: true })) as
			{ name: string; transcripts: boolean } | undefined;
		assert.deepEqual([on?.name, on?.transcripts], ['origin', true]);
		assert.deepEqual(state(), { ...state(), enabled: true, transcripts: true });
		assert.match(api.statusBar.shown.tooltip, /\*\*Sync\*\*/);
		const sent = (await vscode.commands.executeCommand(CommandIds.syncNow)) as SyncNowResultDto | undefined;
		assert.ok(
			sent?.pushed.some((p) => p.ref.startsWith('refs/baton/events/')),
			'the queued session goes once it is on again',
		);
		cli('session', 'end', '--note', 'shared after all');
	});
});
