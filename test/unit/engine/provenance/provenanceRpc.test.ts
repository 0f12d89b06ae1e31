import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ResponseError } from 'vscode-jsonrpc/node';
import { provenanceBlame } from '../../../../src/protocol/provenanceRpc';
import { startServer } from '../../server/serverProcess';
import { provenanceWorld } from './recordSteps';

// A Cline-shaped step (agent `cline`, tool `write_to_file`) written by recordSteps: the hook driver
// speaks Claude Code only, and this test is about the backend's request, not the capture.
test('the editor asks the backend for a file blame (hover, annotations, share); an untrusted workspace gets a refusal, not git', async (t) => {
	const { root, repo, engine, recorder, session } = await provenanceWorld(t, 'baton-prov-rpc-', { name: 'rpc', agent: 'cline' });
	repo.tick();
	await recorder.agentStep({ id: session.id, agent: 'cline' }, 'a', 'Write total()', 'write_to_file', () =>
		repo.addFunction('src/app.ts', 'total', 3, { origin: 'human' }),
	);
	repo.commit('total');
	engine.close();

	const { connection } = startServer(t, root);
	const blame = await connection.sendRequest(provenanceBlame, { file: 'src/app.ts' });
	assert.equal(blame.file, 'src/app.ts');
	assert.deepEqual(
		blame.lines.map((l) => l.origin),
		['unknown', 'unknown', 'unknown', 'unknown', 'unknown', 'agent', 'agent', 'agent', 'agent', 'agent'],
	);
	assert.equal(blame.lines[5]?.agent, 'cline');
	assert.equal(blame.lines[5]?.prompt, 'Write total()');
	assert.equal(blame.lines[5]?.session, session.id);
	const warmStarted = performance.now();
	await connection.sendRequest(provenanceBlame, { file: 'src/app.ts' });
	t.diagnostic(`warm blame over RPC: ${(performance.now() - warmStarted).toFixed(1)} ms`);

	const untrusted = startServer(t, root, ['--read-only']);
	await assert.rejects(
		untrusted.connection.sendRequest(provenanceBlame, { file: 'src/app.ts' }),
		(error: unknown) => error instanceof ResponseError && /not trusted/.test(error.message),
	);
});
