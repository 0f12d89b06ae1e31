/**
 * The webview → host contract: a webview is an untrusted page, so the host accepts exactly the
 * messages `webviewToHost` describes and nothing else. The preview fixture must also match the wire
 * shapes, or the screenshots would prove things about data the backend never sends.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { briefingDto, sessionDetailsDto, sessionDto } from '../../../src/protocol/dto';
import { webviewToHost } from '../../../src/protocol/webview';

const sessionId = 'ses_20250311093000_0a1b2c';

void describe('webview → host messages', () => {
	void it('accepts every valid message', () => {
		const valid = [
			{ type: 'ready' },
			{ type: 'refresh' },
			{ type: 'openSession', sessionId },
			{ type: 'openBriefing', sessionId },
			{ type: 'focusTask', taskId: 'T12' },
			{ type: 'startSession', scope: 'epicPhase:T1:core' },
			{ type: 'transition', action: 'end', sessionId },
			{ type: 'transition', action: 'suspend', sessionId },
			{ type: 'transition', action: 'resume', sessionId },
		];
		for (const message of valid) {
			const parsed = webviewToHost.safeParse(message);
			assert.ok(parsed.success, `${JSON.stringify(message)}: ${parsed.success ? '' : parsed.error.message}`);
			assert.deepEqual(parsed.data, message);
		}
	});

	void it('accepts ids and scopes right up to their limits', () => {
		assert.ok(webviewToHost.safeParse({ type: 'openSession', sessionId: 's'.repeat(100) }).success);
		assert.ok(webviewToHost.safeParse({ type: 'startSession', scope: `custom:${'T1,'.repeat(64)}T2`.slice(0, 200) }).success);
	});

	void it('rejects malformed messages', () => {
		const malformed: unknown[] = [
			null,
			undefined,
			'ready',
			42,
			[],
			[{ type: 'ready' }],
			{},
			{ type: 'READY' },
			{ type: 'runCommand', command: 'workbench.action.terminal.new' },
			{ type: 'openSession' },
			{ type: 'openSession', sessionId: '' },
			{ type: 'openSession', sessionId: 7 },
			{ type: 'openSession', sessionId: null },
			{ type: 'openBriefing', id: sessionId },
			{ type: 'focusTask', taskId: '' },
			{ type: 'focusTask', taskId: ['T1'] },
			{ type: 'startSession' },
			{ type: 'startSession', scope: '' },
			{ type: 'transition', action: 'delete', sessionId },
			{ type: 'transition', action: 'end' },
			{ type: 'transition', sessionId },
			{ type: ['ready'] },
		];
		for (const message of malformed) {
			assert.equal(webviewToHost.safeParse(message).success, false, `accepted ${JSON.stringify(message)}`);
		}
	});

	void it('rejects oversized fields', () => {
		const long = 'x'.repeat(101);
		for (const message of [
			{ type: 'openSession', sessionId: long },
			{ type: 'openBriefing', sessionId: long },
			{ type: 'focusTask', taskId: long },
			{ type: 'transition', action: 'resume', sessionId: long },
			{ type: 'startSession', scope: 's'.repeat(201) },
			{ type: 'openSession', sessionId: 'x'.repeat(1_000_000) },
		]) {
			assert.equal(webviewToHost.safeParse(message).success, false, `accepted a ${JSON.stringify(message).length}-character message`);
		}
	});

	void it('drops fields it does not know, so nothing extra reaches a handler', () => {
		const parsed = webviewToHost.safeParse({ type: 'focusTask', taskId: 'T3', sessionId: sessionId, command: 'rm -rf' });
		assert.ok(parsed.success);
		assert.deepEqual(parsed.data, { type: 'focusTask', taskId: 'T3' });
	});
});

void describe('the webview preview fixture', () => {
	const fixture = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../fixtures/webviewData.json'), 'utf8')) as Record<string, { [key: string]: unknown }>;

	void it('matches the wire shapes the host sends', () => {
		for (const key of ['briefing', 'briefingEmpty'] as const) {
			const message = fixture[key] ?? {};
			assert.equal(message['type'], 'briefing');
			briefingDto.parse(message['briefing']);
			if (message['session'] !== null) {
				sessionDto.parse(message['session']);
			}
		}
		assert.equal(fixture['details']?.['type'], 'details');
		sessionDetailsDto.parse(fixture['details']?.['details']);
		const graph = fixture['graph'] ?? {};
		assert.equal(graph['type'], 'graph');
		const sessions = sessionDto.array().parse(graph['sessions']);
		assert.ok(sessions.some((s) => s.id === graph['focusId']), 'the focus is one of the sessions');
	});

	void it('covers what the views must show', () => {
		const sessions = sessionDto.array().parse(fixture['graph']?.['sessions']);
		const statuses = new Set(sessions.map((s) => s.status));
		for (const status of ['active', 'suspended', 'ended', 'orphaned'] as const) {
			assert.ok(statuses.has(status), `a ${status} session`);
		}
		const byId = new Map(sessions.map((s) => [s.id, s]));
		const forks = sessions.filter((s) => s.parentSessionId !== null);
		assert.ok(forks.filter((s) => s.parentSessionId === forks[0]?.parentSessionId).length >= 2 || forks.length >= 2, 'an orchestrator with workers');
		assert.ok(sessions.filter((s) => s.previousSessionId && byId.has(s.previousSessionId)).length >= 2, 'a chain of at least three');
		const briefing = briefingDto.parse(fixture['briefing']?.['briefing']);
		assert.ok(briefing.suggestions.some((s) => s.stale), 'a stale suggestion');
		assert.ok(briefing.nextTasks.length > 0 && briefing.openBugs.length > 0 && briefing.blockedTasks.length > 0 && briefing.activeEpics.length > 0);
	});
});
