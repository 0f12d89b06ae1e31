/** What both agent-history suites check after a first import: a second run finds every session unchanged and writes nothing. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { AgentHistoryReport } from '../../../../src/engine/agentHistory/historyShapes';

export async function assertSecondRunChangesNothing(root: string, run: () => Promise<AgentHistoryReport>): Promise<void> {
	const journal = fs.statSync(path.join(root, '.baton', 'baton.db.journal')).size;
	const index = fs.readFileSync(path.join(root, '.baton', 'transcripts', 'index.json'), 'utf8');
	const second = await run();
	assert.deepEqual(
		second.sessions.map((s) => s.outcome),
		second.sessions.map(() => 'unchanged'),
	);
	assert.equal(fs.statSync(path.join(root, '.baton', 'baton.db.journal')).size, journal, 'a second run writes nothing');
	assert.equal(fs.readFileSync(path.join(root, '.baton', 'transcripts', 'index.json'), 'utf8'), index, 'nor reads a file again');
}
