/**
 * The engine's markdown views (a handoff, a briefing, a session summary, a tracker note) show stored
 * control characters escaped, whoever prints them: the CLI, the editor's documents, a tracker comment.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderCheckpointNote } from '../../../../src/engine/trackers/checkpointNote';
import { actor, openTestEngine, rawControl } from '../../helpers';

const hostile = 'A\u001b[2J\u001b]0;title\u0007B\rC\u009b31mD\u202eE';

void describe('markdown views of stored text', () => {
	void it('escape control characters in handoffs, briefings and session summaries', async (t) => {
		const { engine } = await openTestEngine(t);
		await engine.tasks.add({ title: `task ${hostile}`, actor });
		const { session } = await engine.sessions.start({ name: `name ${hostile}`, actor });
		await engine.sessions.recordDecision({ text: `decision ${hostile}`, sessionId: session.id, actor });
		await engine.memory.record({ kind: 'gotcha', text: `memory ${hostile}`, actor });
		await engine.sessions.end({ id: session.id, note: `note ${hostile}`, nextAction: `next ${hostile}`, blockers: [`blocker ${hostile}`], actor });
		const views = {
			handoff: (await engine.exports.markdown({ sessionId: session.id, kind: 'handoff' })).markdown,
			briefing: (await engine.exports.markdown({ sessionId: session.id, kind: 'briefing' })).markdown,
			summary: (await engine.memory.sessionSummary(session.id)).markdown,
		};
		for (const [name, markdown] of Object.entries(views)) {
			assert.doesNotMatch(markdown, rawControl, `${name}: ${JSON.stringify(markdown)}`);
			assert.ok(
				markdown.includes('\\x1b[2J') && markdown.includes('\\x9b31m') && markdown.includes('\\u202e'),
				`${name} shows the escapes:\n${markdown}`,
			);
		}
	});

	void it('escape them in the note a tracker receives', () => {
		const note = renderCheckpointNote({
			checkpointId: 'cp_1',
			sessionId: 'ses_1',
			sessionName: `name ${hostile}`,
			trigger: 'manual',
			approvalStatus: 'pending',
			message: `message ${hostile}`,
			createdAt: '2026-01-01T00:00:00.000Z',
			files: { added: 1, modified: 0, deleted: 0 },
			escalationReasons: [`reason ${hostile}`],
		});
		assert.doesNotMatch(note, rawControl, note);
		assert.ok(note.includes('\\u202e'), note);
	});
});
