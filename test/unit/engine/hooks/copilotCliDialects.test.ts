/**
 * Copilot CLI 1.0.102 as the real binary behaves (test/realAgents/copilotCli.test.ts runs it): every
 * hook file of `.github/hooks/` runs for each event, `baton.json` with Claude-shaped snake_case
 * payloads (an ISO `timestamp`) and `baton-cli.json` with camelCase ones (the same instant in epoch
 * ms), each with the session id; `COPILOT_CLI=1` is in every hook's environment. These payloads are
 * the ones it sent (test/fixtures/real/copilot-cli/).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { eventKey } from '../../../../src/engine/hooks/hookClaims';
import { contextOutput } from '../../../../src/engine/hooks/hookResponses';
import { normaliseHookPayload } from '../../../../src/engine/hooks/normaliseHookPayload';
import { repoRoot } from '../../cli/agentCli';

const dir = path.join(repoRoot, 'test', 'fixtures', 'real', 'copilot-cli');

function sent(file: string): Record<string, unknown> {
	return JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Record<string, unknown>;
}

void describe('Copilot CLI’s two dialects of one event', () => {
	void it('are one event: the same key, whichever file’s hook claims it, and the session labelled Copilot', () => {
		for (const [snake, camel, event] of [
			['baton-json-session-start.json', 'baton-cli-json-session-start.json', 'sessionStart'],
			['baton-json-pre-tool-use.json', 'baton-cli-json-pre-tool-use.json', 'preToolUse'],
			['baton-json-post-tool-use.json', 'baton-cli-json-post-tool-use.json', 'postToolUse'],
		] as const) {
			const a = normaliseHookPayload(sent(snake), {
				event: event === 'sessionStart' ? 'session-start' : event === 'preToolUse' ? 'pre-tool-use' : 'post-tool-use',
				host: 'copilot-cli',
			});
			const b = normaliseHookPayload(sent(camel), { event, agent: 'copilot', host: 'copilot-cli' });
			assert.ok(a.ok && b.ok);
			assert.equal(a.event.agent, 'copilot', `${snake} is Copilot's, though Claude-shaped`);
			assert.equal(a.event.kind, b.event.kind);
			assert.ok(eventKey(a.event, sent(snake)), 'the event is named');
			assert.equal(eventKey(a.event, sent(snake)), eventKey(b.event, sent(camel)), `${snake} and ${camel} are one event`);
		}
		// Two calls of one tool a moment apart are two events.
		const later = { ...sent('baton-cli-json-pre-tool-use.json'), timestamp: (sent('baton-cli-json-pre-tool-use.json')['timestamp'] as number) + 1 };
		const one = normaliseHookPayload(sent('baton-cli-json-pre-tool-use.json'), { event: 'preToolUse', agent: 'copilot' });
		const two = normaliseHookPayload(later, { event: 'preToolUse', agent: 'copilot' });
		assert.ok(one.ok && two.ok);
		assert.notEqual(eventKey(one.event, sent('baton-cli-json-pre-tool-use.json')), eventKey(two.event, later));
	});

	void it('its Stop ends a turn (VS Code’s ends the session), and its briefing answer is the top-level additionalContext it reads', () => {
		const stop = normaliseHookPayload(sent('baton-json-stop.json'), { event: 'stop', host: 'copilot-cli' });
		assert.ok(stop.ok);
		assert.equal(stop.event.kind, 'stop');
		const vsCode = normaliseHookPayload({ sessionId: 's-1', hookEventName: 'Stop', cwd: '/w' }, { event: 'stop' });
		assert.ok(vsCode.ok);
		assert.equal(vsCode.event.kind, 'sessionEnd');
		assert.deepEqual(JSON.parse(contextOutput('copilot', 'Baton briefing', 'copilot-cli')), {
			additionalContext: 'Baton briefing',
			hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'Baton briefing' },
		});
		assert.deepEqual(JSON.parse(contextOutput('copilot', 'Baton briefing')), {
			hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'Baton briefing' },
		});
	});
});

void describe('Copilot CLI’s session file as the binary writes it', () => {
	void it('uses the event types of the published union (github/copilot-sdk), and one the union does not name yet: kept, not refused', () => {
		const union = new Set(
			(
				JSON.parse(fs.readFileSync(path.join(repoRoot, 'test', 'fixtures', 'real', 'copilot-sdk', 'session-event-types.json'), 'utf8')) as {
					events: { type: string }[];
				}
			).events.map((e) => e.type),
		);
		const written = fs
			.readFileSync(path.join(repoRoot, 'test', 'fixtures', 'real', 'copilot-cli-session', 'events.jsonl'), 'utf8')
			.split('\n')
			.filter(Boolean)
			.map((line) => (JSON.parse(line) as { type: string }).type);
		assert.ok(written.includes('session.start') && written.includes('tool.execution_complete') && written.includes('session.shutdown'));
		assert.deepEqual(
			[...new Set(written.filter((t) => !union.has(t)))],
			['session.usage_record'],
			'the binary writes one event type its SDK’s union (at that commit) lacks',
		);
	});
});
