import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { ResponseError } from 'vscode-jsonrpc/node';
import * as rpc from '../../../src/protocol/rpc';
import { snapshotFiles, tempDir } from '../helpers';
import { beadsIssues, cleoSessionsData, writeJson, writeJsonl } from '../engine/interop/interopFixtures';
import { startServer } from './serverProcess';
import { startServer as startServerWith } from './serverHarness';

/** A CODEX_HOME holding the rollout the real Codex CLI 0.171.0 wrote, its recorded folder made `workspace`. */
function codexHomeWithRollout(t: TestContext, workspace: string): string {
	const codexHome = tempDir(t, 'baton-rpc-codex-');
	const day = path.join(codexHome, 'sessions', '2026', '11', '28');
	fs.mkdirSync(day, { recursive: true });
	const rollout = fs.readFileSync(path.join(__dirname, '../../fixtures/real/codex-rollout/rollout-0.171.0-apply-patch.jsonl'), 'utf8');
	fs.writeFileSync(path.join(day, 'rollout-2026-11-28T09-58-50-01a22197.jsonl'), rollout.replaceAll('/home/dev/project', workspace));
	return codexHome;
}

void describe('imports and exports over JSON-RPC', () => {
	void it('previews (writing nothing), imports, exports and renders markdown through the backend', async (t) => {
		const workspace = tempDir(t);
		const { connection, changes } = startServer(t, workspace);
		await connection.sendRequest(rpc.workspaceInit, undefined);
		const file = writeJsonl(path.join(tempDir(t), 'issues.jsonl'), beadsIssues());
		const before = snapshotFiles(path.join(workspace, '.baton'));
		const preview = await connection.sendRequest(rpc.importPreview, { format: 'beads', path: file });
		assert.equal(preview.dryRun, true);
		assert.equal(preview.added.tasks, 5);
		assert.deepEqual(snapshotFiles(path.join(workspace, '.baton')), before);
		const seen = changes.length;
		const run = await connection.sendRequest(rpc.importRun, { format: 'beads', path: file });
		assert.equal(run.dryRun, false);
		assert.deepEqual(run.errors, []);
		assert.ok(changes.length > seen, 'views are told the data changed');
		assert.equal((await connection.sendRequest(rpc.taskList, undefined)).tasks.length, 5);

		const bad = cleoSessionsData();
		bad['sessions'][0].status = 'paused';
		const refused = await connection.sendRequest(rpc.importRun, { format: 'cleo-sessions', path: writeJson(path.join(tempDir(t), 's.json'), bad) });
		assert.deepEqual(
			refused.errors.map((e) => `${e.record}: ${e.field}`),
			['sessions[0] (session_20251230_161248_81c3ce): status'],
		);
		assert.equal((await connection.sendRequest(rpc.sessionList, {})).sessions.length, 0);

		const started = await connection.sendRequest(rpc.sessionStart, { name: 'rpc session' });
		await connection.sendRequest(rpc.sessionEnd, { id: started.session.id, note: 'done over rpc' });
		const out = path.join(tempDir(t), 'out');
		const exported = await connection.sendRequest(rpc.exportRun, { sessionId: started.session.id, out });
		assert.deepEqual(exported, { out, files: ['index.json', '01-rpc-session.json'] });
		assert.ok(fs.existsSync(path.join(out, '01-rpc-session.json')));
		const view = await connection.sendRequest(rpc.sessionMarkdown, { id: started.session.id, kind: 'handoff' });
		assert.match(view.markdown, /## Note\n\ndone over rpc\n/);
		const missing = await connection.sendRequest(rpc.exportRun, { chainId: 'ses_20990101000000_000000', out: tempDir(t) }).catch((e: unknown) => e);
		assert.ok(missing instanceof ResponseError);
		assert.equal((missing.data as rpc.RpcErrorData).code, 'notFound');
	});

	void it('refuses to import in an untrusted (read-only) workspace but still previews', async (t) => {
		const workspace = tempDir(t);
		fs.mkdirSync(path.join(workspace, '.baton'));
		const { connection } = startServer(t, workspace, ['--read-only']);
		const file = writeJsonl(path.join(tempDir(t), 'issues.jsonl'), beadsIssues());
		assert.equal((await connection.sendRequest(rpc.importPreview, { format: 'beads', path: file })).added.tasks, 5);
		const refused = await connection.sendRequest(rpc.importRun, { format: 'beads', path: file }).catch((e: unknown) => e);
		assert.ok(refused instanceof ResponseError);
		assert.match(refused.message, /not trusted/);
	});

	void it('reads an agent’s own history over agentHistory/import: a dry run writes nothing, the run imports, a second run finds it unchanged', async (t) => {
		const workspace = tempDir(t);
		const codexHome = codexHomeWithRollout(t, workspace);
		const { connection, changes } = startServerWith(t, workspace, {
			env: { ...process.env, CODEX_HOME: codexHome, BATON_CLAUDE_HOME: tempDir(t), GEMINI_CLI_HOME: tempDir(t) },
		});
		await connection.sendRequest(rpc.workspaceInit, undefined);
		const before = snapshotFiles(path.join(workspace, '.baton'));
		const dry = await connection.sendRequest(rpc.agentHistoryImport, { agents: ['codex'], dryRun: true });
		assert.equal(dry.agents['codex']?.imported, 1);
		assert.deepEqual(snapshotFiles(path.join(workspace, '.baton')), before, 'a dry run writes nothing');
		const seen = changes.length;
		const run = await connection.sendRequest(rpc.agentHistoryImport, { agents: ['codex'], dryRun: false });
		assert.equal(run.agents['codex']?.imported, 1);
		assert.ok(changes.length > seen, 'views are told the data changed');
		assert.deepEqual(
			(await connection.sendRequest(rpc.sessionList, {})).sessions.map((s) => [s.name, s.agent]),
			[['patch the files', 'codex']],
		);
		const again = await connection.sendRequest(rpc.agentHistoryImport, { dryRun: false });
		assert.equal(again.agents['codex']?.unchanged, 1);
		const refused = await connection.sendRequest(rpc.agentHistoryImport, { agents: ['cursor'], dryRun: true }).catch((e: unknown) => e);
		assert.ok(refused instanceof ResponseError);
		assert.equal((refused.data as rpc.RpcErrorData).code, 'invalidInput');
	});

	void it('a backend started elsewhere reads the asking editor’s agents: their homes come with the request, over its own environment', async (t) => {
		const workspace = tempDir(t);
		const codexHome = codexHomeWithRollout(t, workspace);
		// The backend's own environment names another Codex home, empty (a daemon a terminal started).
		const { connection } = startServerWith(t, workspace, {
			env: { ...process.env, CODEX_HOME: tempDir(t, 'baton-rpc-other-codex-'), BATON_CLAUDE_HOME: tempDir(t), GEMINI_CLI_HOME: tempDir(t) },
		});
		await connection.sendRequest(rpc.workspaceInit, undefined);
		assert.equal(
			(await connection.sendRequest(rpc.agentHistoryImport, { agents: ['codex'], dryRun: true })).agents['codex']?.found,
			0,
			'its own Codex home holds nothing',
		);
		const asked = await connection.sendRequest(rpc.agentHistoryImport, {
			agents: ['codex'],
			dryRun: false,
			env: { CODEX_HOME: codexHome, GITHUB_TOKEN: 'not for the backend' },
		});
		assert.equal(asked.agents['codex']?.imported, 1);
	});
});
