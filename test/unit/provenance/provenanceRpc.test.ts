import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ResponseError } from 'vscode-jsonrpc/node';
import { provenanceBlame } from '../../../src/protocol/provenanceRpc';
import { startServer } from '../server/serverProcess';
import { actor, openTestEngine, tempDir } from '../helpers';
import { StepRecorder } from './recordSteps';
import { ScriptedRepo } from './scriptedRepo';

test('the editor asks the backend for a file blame (hover, annotations, share); an untrusted workspace gets a refusal, not git', async (t) => {
	const root = tempDir(t, 'baton-prov-rpc-');
	const repo = new ScriptedRepo(root);
	repo.git(['init', '-q', '-b', 'main']);
	fs.writeFileSync(path.join(root, '.gitignore'), '.baton/\n');
	repo.addFunction('src/app.ts', 'start', 1, { origin: 'human' });
	repo.commit('init');
	const { engine } = await openTestEngine(t, { root });
	const session = (await engine.sessions.start({ name: 'rpc', agent: 'cline', actor })).session;
	const recorder = new StepRecorder(engine, root, () => repo.ms);
	repo.tick();
	await recorder.agentStep({ id: session.id, agent: 'cline' }, 'a', 'Write total()', 'write_to_file', () => repo.addFunction('src/app.ts', 'total', 3, { origin: 'human' }));
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
	await assert.rejects(untrusted.connection.sendRequest(provenanceBlame, { file: 'src/app.ts' }), (error: unknown) => error instanceof ResponseError && /not trusted/.test(error.message));
});
