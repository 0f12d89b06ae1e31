import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { actorName } from '../../../src/protocol/people';
import { agentKinds, agentLabel } from '../../../src/engine/agentKinds';
import { agentNames } from '../../../src/engine/text/actorNames';

void describe('actor names', () => {
	void it('calls this machine’s user “you” and names everyone else as people know them', () => {
		assert.equal(actorName('vscode:alice', 'alice'), 'you');
		assert.equal(actorName('cli:alice', 'alice'), 'you');
		assert.equal(actorName('vscode:user', 'user'), 'you');
		assert.equal(actorName('vscode:bob', 'alice'), 'bob');
		assert.equal(actorName('hook:claude-code', 'alice'), 'Claude Code');
		assert.equal(actorName('hook:newagent', 'alice'), 'newagent');
		assert.equal(actorName('mcp:cursor', null), 'cursor (MCP)');
		assert.equal(actorName('baton', 'alice'), 'Baton’s policy');
		assert.equal(actorName('alice', 'alice'), 'alice', 'a sync author or an imported name stays as it is');
		assert.equal(actorName('hook:constructor', null), 'constructor');
	});

	void it('names every agent as agentKinds.ts does (one table kept by this test, not by memory)', () => {
		assert.deepEqual(agentNames, Object.fromEntries(agentKinds.map((k) => [k, agentLabel(k)])));
	});
});
