import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ResponseError } from 'vscode-jsonrpc/node';
import { Engine } from '../../../src/engine/engine';
import * as rpc from '../../../src/protocol/rpc';
import { MemoryLogger, tempDir } from '../helpers';
import { startServer, until } from './serverHarness';

void describe('backend server over JSON-RPC', () => {
	void it('serves an uninitialised workspace, sets it up and runs a session', async (t) => {
		const workspace = tempDir(t);
		const { connection, changes } = startServer(t, workspace);
		const before = await connection.sendRequest(rpc.workspaceStatus, undefined);
		assert.equal(before.initialized, false);
		await assert.rejects(
			connection.sendRequest(rpc.sessionOverview, undefined),
			(e: unknown) => e instanceof ResponseError && (e.data as rpc.RpcErrorData).code === 'notInitialized',
		);
		const after = await connection.sendRequest(rpc.workspaceInit, undefined);
		assert.equal(after.initialized, true);
		const started = await connection.sendRequest(rpc.sessionStart, { name: 'over rpc', scope: 'global' });
		assert.equal(started.session.status, 'active');
		await until(() => changes.some((c) => !c.external));
		const refused = await connection.sendRequest(rpc.sessionStart, { name: 'again' }).catch((e: unknown) => e);
		assert.ok(refused instanceof ResponseError);
		assert.equal((refused.data as rpc.RpcErrorData).code, 'scopeConflict');
		const overview = await connection.sendRequest(rpc.sessionOverview, undefined);
		assert.equal(overview.chains[0]?.label, 'Global');
		assert.equal('debrief' in (overview.chains[0]?.sessions[0] ?? {}), false, 'rows carry summaries only');
		const details = await connection.sendRequest(rpc.sessionDetails, { id: started.session.id });
		assert.equal(details.chain.length, 1);
		assert.equal(details.forkTree.session.id, started.session.id);
		assert.deepEqual(details.linkedIssues, []);
		const linked = await connection.sendRequest(rpc.issueLink, { sessionId: started.session.id, ref: 'ABC-12' });
		assert.deepEqual(linked, {
			link: { sessionId: started.session.id, tracker: 'linear', issueId: 'ABC-12', url: null, title: null, state: null, source: 'manual' },
			added: true,
		});
		const withIssue = await connection.sendRequest(rpc.sessionDetails, { id: started.session.id });
		assert.deepEqual(
			withIssue.linkedIssues.map((l) => `${l.tracker}:${l.issueId}`),
			['linear:ABC-12'],
		);
		const bad = await connection.sendRequest(rpc.issueLink, { sessionId: started.session.id, ref: 'not an issue' }).catch((e: unknown) => e);
		assert.ok(bad instanceof ResponseError && (bad.data as rpc.RpcErrorData).code === 'invalidInput');
	});

	void it('serves a session’s summary and the briefing’s project memory', async (t) => {
		const workspace = tempDir(t);
		const setup = await Engine.open({ workspaceRoot: workspace, log: new MemoryLogger(), create: true });
		const { session } = await setup.sessions.start({ name: 'Payments', actor: 'test' });
		await setup.sessions.recordDecision({ text: 'Keep retries in the adapter', actor: 'test' });
		await setup.sessions.end({ id: session.id, nextAction: 'Persist keys', blockers: ['Sandbox refunds fail'], actor: 'test' });
		setup.close();
		const { connection } = startServer(t, workspace);
		const { summary, markdown } = await connection.sendRequest(rpc.sessionSummary, { id: session.id });
		assert.equal(summary.sessionId, session.id);
		assert.deepEqual(summary.blockers, ['Sandbox refunds fail']);
		assert.match(markdown, /^# Session summary: Payments\n/);
		const missing = await connection.sendRequest(rpc.sessionSummary, { id: 'ses_20990101000000_abcdef' }).catch((e: unknown) => e);
		assert.ok(missing instanceof ResponseError);
		assert.equal((missing.data as rpc.RpcErrorData).code, 'notFound');
		const { briefing } = await connection.sendRequest(rpc.briefingGet, { scope: 'global' });
		assert.deepEqual(
			briefing.memory.entries.map((e) => [e.kind, e.text]),
			[
				['gotcha', 'Sandbox refunds fail'],
				['knowledge', 'Keep retries in the adapter'],
			],
		);
	});

	void it('answers where a rejection offers to go back: the session’s last approved checkpoint before it, never a rollback’s safety checkpoint', async (t) => {
		const workspace = tempDir(t);
		fs.writeFileSync(path.join(workspace, 'app.js'), 'one\n');
		const setup = await Engine.open({ workspaceRoot: workspace, log: new MemoryLogger(), create: true });
		const { session } = await setup.sessions.start({ name: 'Retries', actor: 'test' });
		const good = await setup.checkpoints.create({ trigger: 'manual', message: 'works', sessionId: session.id, actor: 'test' });
		await setup.checkpoints.approve(good.id, { actor: 'test' });
		fs.writeFileSync(path.join(workspace, 'app.js'), 'two\n');
		const bad = await setup.checkpoints.create({ trigger: 'complete', message: 'breaks', sessionId: session.id, actor: 'test' });
		await setup.checkpoints.reject(bad.id, { actor: 'test' });
		setup.close();
		const { connection } = startServer(t, workspace);
		const answer = await connection.sendRequest(rpc.checkpointRollbackTarget, { id: bad.id });
		assert.equal(answer.checkpoint.id, bad.id);
		assert.equal(answer.target?.id, good.id);
		const first = await connection.sendRequest(rpc.checkpointRollbackTarget, { id: good.id });
		assert.equal(first.target, null, 'nothing approved comes before the first');
		// After rolling back to it, the safety checkpoint (auto-approved) is no place to go back to.
		await connection.sendRequest(rpc.checkpointRollback, { id: good.id, force: true });
		fs.writeFileSync(path.join(workspace, 'app.js'), 'three\n');
		const third = await connection.sendRequest(rpc.checkpointCreate, { trigger: 'manual', message: 'again', sessionId: session.id });
		await connection.sendRequest(rpc.checkpointReject, { id: third.checkpoint.id });
		assert.equal((await connection.sendRequest(rpc.checkpointRollbackTarget, { id: third.checkpoint.id })).target?.id, good.id);
		const missing = await connection.sendRequest(rpc.checkpointRollbackTarget, { id: 'cp_20990101000000_abcdef' }).catch((e: unknown) => e);
		assert.ok(missing instanceof ResponseError && (missing.data as rpc.RpcErrorData).code === 'notFound');
	});

	void it('notices writes by another process and announces them as external', async (t) => {
		const workspace = tempDir(t);
		const setup = await Engine.open({ workspaceRoot: workspace, log: new MemoryLogger(), create: true });
		setup.close();
		const { connection, changes } = startServer(t, workspace);
		await connection.sendRequest(rpc.sessionOverview, undefined); // opens the engine
		const other = await Engine.open({ workspaceRoot: workspace, log: new MemoryLogger() });
		t.after(() => other.close());
		await other.tasks.add({ title: 'written elsewhere', actor: 'test' });
		await until(() => changes.some((c) => c.external));
		const { tasks } = await connection.sendRequest(rpc.taskList, undefined);
		assert.deepEqual(
			tasks.map((task) => task.title),
			['written elsewhere'],
		);
	});

	void it('announces another process’s write even when a request caught up with it before the poll', async (t) => {
		const workspace = tempDir(t);
		(await Engine.open({ workspaceRoot: workspace, log: new MemoryLogger(), create: true })).close();
		const { connection, changes } = startServer(t, workspace, { extra: ['--poll-ms', '400'] });
		await connection.sendRequest(rpc.sessionOverview, undefined);
		await new Promise((r) => setTimeout(r, 500));
		const other = await Engine.open({ workspaceRoot: workspace, log: new MemoryLogger() });
		t.after(() => other.close());
		const seen = changes.length;
		await other.tasks.add({ title: 'written elsewhere', actor: 'test' });
		// A read right away applies the other process's record before the next poll does.
		assert.deepEqual(
			(await connection.sendRequest(rpc.taskList, undefined)).tasks.map((task) => task.title),
			['written elsewhere'],
		);
		await until(() => changes.slice(seen).some((c) => c.external), 3_000);
	});

	void it('shows but never changes an untrusted workspace', async (t) => {
		const workspace = tempDir(t);
		const setup = await Engine.open({ workspaceRoot: workspace, log: new MemoryLogger(), create: true });
		await setup.sessions.start({ name: 'existing', actor: 'test' });
		await setup.memory.record({ kind: 'gotcha', text: 'about a file that is gone', files: ['gone.ts'], actor: 'test' });
		setup.close();
		const { connection } = startServer(t, workspace, { extra: ['--read-only'] });
		const before = await connection.sendRequest(rpc.workspaceStatus, undefined);
		assert.equal(before.active.length, 1);
		const { briefing } = await connection.sendRequest(rpc.briefingGet, {});
		assert.equal(briefing.memory.entries[0]?.staleSince, null, 'a missing file is not even looked for');
		assert.equal((await connection.sendRequest(rpc.workspaceStatus, undefined)).sequence, before.sequence, 'reading the briefing wrote nothing');
		const refused = await connection.sendRequest(rpc.sessionStart, { name: 'x', scope: 'task:T1' }).catch((e: unknown) => e);
		assert.ok(refused instanceof ResponseError);
		assert.match(refused.message, /not trusted/);
	});
});
