/**
 * *Baton: Search Sessions…* asks the backend (src/server/searchHandlers.ts): the engine's hits over
 * JSON-RPC, a transcript hit with the line its excerpt starts at in the transcript the editor opens,
 * and a malformed request refused with a clear error.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ResponseError } from 'vscode-jsonrpc/node';
import { transcriptShow } from '../../../../src/protocol/rpc';
import { searchSessions, type SearchQueryDto } from '../../../../src/protocol/searchRpc';
import { startServer } from '../../server/serverProcess';
import { agentId, world } from './searchWorld';

test('the editor searches through the backend and gets each transcript hit’s line in the transcript it opens', async (t) => {
	const { engine, root } = await world(t);
	engine.close();
	const { connection } = startServer(t, root);

	const result = await connection.sendRequest(searchSessions, { text: 'ledger' });
	assert.deepEqual(result.hits.map((h) => h.kind).sort(), ['decision', 'handoff', 'memory', 'memory', 'transcript', 'transcript']);
	const { markdown } = await connection.sendRequest(transcriptShow, { id: agentId });
	const lines = markdown.split('\n');
	for (const hit of result.hits.filter((h) => h.kind === 'transcript')) {
		assert.equal(hit.transcriptId, agentId);
		assert.equal(typeof hit.line, 'number', 'a transcript hit knows its line');
		const at = lines.slice(hit.line, (hit.line ?? 0) + 4).join('\n');
		assert.match(
			at,
			hit.excerptIndex === 0 ? /^## .* User\n\n> Why does the invoice total differ from the ledger\?/ : /^### .* Assistant\n\nThe ledger truncates/,
			`excerpt ${hit.excerptIndex} at line ${hit.line}`,
		);
	}
	assert.equal(result.hits.find((h) => h.kind === 'decision')?.line, undefined);

	await assert.rejects(
		connection.sendRequest(searchSessions, { text: '"*"' }),
		(e: unknown) => e instanceof ResponseError && /nothing to search for/.test(e.message) && (e.data as { code: string }).code === 'invalidInput',
	);
	await assert.rejects(
		connection.sendRequest(searchSessions, { query: 'ledger' } as unknown as SearchQueryDto),
		(e: unknown) => e instanceof ResponseError && /needs the text/.test(e.message),
	);
});
