/**
 * The Agents board's rules (src/engine/board/boardRules.ts): which state each agent's hook event puts
 * its session in — read from the payloads the agents send (test/fixtures/hooks/board, the real
 * Copilot CLI and Claude Code samples) through the one normaliser — and how a session's signal, its
 * pending checkpoint, its imported file and its status make its place on the board.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { boardVerdict, boardWindows, compareEntries, nextSignal, signalOf, waitKindOf, type BoardInput } from '../../../../src/engine/board/boardRules';
import { normaliseHookPayload, type NormaliseOptions } from '../../../../src/engine/hooks/normaliseHookPayload';
import type { HookEvent } from '../../../../src/engine/hookEvent';

const fixtures = path.resolve(__dirname, '../../../fixtures');

function event(file: string, options: NormaliseOptions = {}): HookEvent {
	const result = normaliseHookPayload(JSON.parse(fs.readFileSync(path.join(fixtures, file), 'utf8')), options);
	assert.ok(result.ok, file);
	return result.event;
}

const now = Date.parse('2026-11-28T12:00:00.000Z');
const iso = (msAgo: number): string => new Date(now - msAgo).toISOString();

function input(over: Partial<BoardInput> & { status?: string; endedAt?: string | null; imported?: boolean } = {}): BoardInput {
	return {
		session: { status: over.status ?? 'active', lastActivity: iso(60_000), endedAt: over.endedAt ?? null, imported: over.imported ?? false },
		signal: over.signal ?? null,
		approval: over.approval ?? null,
		fileModifiedAt: over.fileModifiedAt ?? null,
		now,
	};
}

void describe('board rules: what a hook event says', () => {
	void it('a permission request or prompt waits for a permission, with the agent’s words', () => {
		const claude = signalOf(event('hooks/board/claude-permission-request.json'));
		assert.deepEqual(claude, { state: 'waiting', reason: 'asks permission to use Bash', event: 'PermissionRequest' });
		assert.equal(waitKindOf(claude), 'permission');
		const codex = signalOf(event('hooks/board/codex-permission-request.json', { event: 'permission-request', agent: 'codex' }));
		assert.equal(codex?.state, 'waiting');
		assert.equal(codex?.reason, 'asks permission to use Bash');
		const prompt = signalOf(event('hooks/board/claude-notification-permission.json'));
		assert.deepEqual(prompt, { state: 'waiting', reason: 'Claude needs your permission to use Bash', event: 'Notification/permission_prompt' });
		assert.equal(waitKindOf(prompt), 'permission');
		const gemini = signalOf(event('hooks/board/gemini-notification.json', { event: 'notification', agent: 'gemini' }));
		assert.equal(gemini?.state, 'waiting');
		assert.equal(gemini?.reason, 'Tool execution for "Shell" requires confirmation');
		assert.equal(gemini && waitKindOf(gemini), 'permission');
	});

	void it('the idle prompt waits for your input, a question', () => {
		const idle = signalOf(event('hooks/board/claude-notification-idle.json'));
		assert.deepEqual(idle, { state: 'waiting', reason: 'Claude is waiting for your input', event: 'Notification/idle_prompt' });
		assert.equal(waitKindOf(idle), 'question');
	});

	void it('a turn ended by an error, or Copilot CLI’s errorOccurred, failed; a failed tool does not fail the session', () => {
		assert.deepEqual(signalOf(event('hooks/board/claude-stop-failure.json')), {
			state: 'failed',
			reason: 'stopped by an error: rate_limit',
			event: 'StopFailure',
		});
		const copilot = event('real/copilot/cli/errorOccurred.json', { event: 'errorOccurred', agent: 'copilot' });
		assert.equal(copilot.kind, 'error');
		assert.deepEqual(signalOf(copilot), { state: 'failed', reason: 'error: Network timeout', event: 'errorOccurred' });
		const tool = signalOf(event('real/claude-code-2.1.197/post-tool-use-failure.json'));
		assert.deepEqual(tool, { state: 'working', reason: 'Bash failed; the agent carries on', event: 'PostToolUseFailure' });
	});

	void it('prompts and tools are work; a Stop finishes a turn; a session end is done; unknown events and notices of no consequence change nothing', () => {
		assert.equal(signalOf(event('real/claude-code-2.1.197/user-prompt-submit.json'))?.state, 'working');
		assert.equal(signalOf(event('real/claude-code-2.1.197/pre-tool-use.json'))?.state, 'working');
		assert.deepEqual(signalOf(event('real/claude-code-2.1.197/stop.json')), { state: 'done', reason: 'finished its turn', event: 'Stop' });
		assert.deepEqual(signalOf(event('real/claude-code-2.1.197/session-end.json')), { state: 'done', reason: 'session ended (other)', event: 'SessionEnd' });
		const base = JSON.parse(fs.readFileSync(path.join(fixtures, 'hooks/board/claude-notification-idle.json'), 'utf8')) as Record<string, unknown>;
		const auth = normaliseHookPayload({ ...base, notification_type: 'auth_success', message: 'Signed in' });
		assert.ok(auth.ok);
		assert.equal(signalOf(auth.event), null, 'auth_success says nothing about needing you');
		const future = normaliseHookPayload({ ...base, hook_event_name: 'TeammateIdle' });
		assert.ok(future.ok);
		assert.equal(future.event.kind, 'unknown');
		assert.equal(signalOf(future.event), null);
	});

	void it('another dialect’s `message` or `error` of another type never makes a payload malformed', () => {
		const odd = normaliseHookPayload({ session_id: 's', hook_event_name: 'Stop', message: { text: 'x' }, error: 42, notification_type: 7 });
		assert.ok(odd.ok);
		const notice = normaliseHookPayload({ session_id: 's', hook_event_name: 'Notification', message: { text: 'x' }, notification_type: 7 });
		assert.ok(notice.ok);
		assert.deepEqual(notice.event.notice, { type: null, message: null });
	});
});

void describe('board rules: recording a signal', () => {
	const t0 = iso(10_000);
	const t1 = iso(0);
	void it('writes only what changed, and keeps the time a state began', () => {
		const waiting = { state: 'waiting' as const, reason: 'asks permission to use Bash', event: 'PermissionRequest' };
		const first = nextSignal(null, waiting, t0);
		assert.deepEqual(first, { ...waiting, since: t0 });
		assert.equal(nextSignal(first, waiting, t1), null, 'the same word again writes nothing');
		const prompt = { state: 'waiting' as const, reason: 'Claude needs your permission to use Bash', event: 'Notification/permission_prompt' };
		assert.equal(nextSignal(first, prompt, t1)?.since, t0, 'still waiting since the request');
		const working = nextSignal(first, { state: 'working', reason: 'working', event: 'PostToolUse' }, t1);
		assert.equal(working?.since, t1);
		assert.equal(
			nextSignal(working, { state: 'working', reason: 'working', event: 'PreToolUse' }, iso(-5_000)),
			null,
			'each tool call of a working session writes nothing',
		);
	});
});

void describe('board rules: a session’s place on the board', () => {
	void it('a checkpoint awaiting approval makes its session wait, whatever its hooks said', () => {
		const v = boardVerdict(
			input({
				signal: { state: 'working', reason: 'working', event: 'PostToolUse', since: iso(5_000) },
				approval: { id: 'cp_1', seq: 3, label: 'Retries work', createdAt: iso(30_000) },
			}),
		);
		assert.equal(v?.state, 'waiting');
		assert.equal(v?.waitingOn, 'approval');
		assert.equal(v?.reason, 'checkpoint #3 “Retries work” awaits your approval');
		assert.deepEqual(v?.checkpoint, { id: 'cp_1', seq: 3, label: 'Retries work' });
		assert.equal(v?.source, 'checkpoint');
		const ended = boardVerdict(
			input({ status: 'ended', endedAt: iso(5 * 24 * 3600_000), approval: { id: 'cp_2', seq: 4, label: null, createdAt: iso(60_000) } }),
		);
		assert.equal(ended?.state, 'waiting', 'however long ago its session ended');
	});

	void it('an active session shows its last signal, or working when its hooks said nothing', () => {
		const waiting = boardVerdict(
			input({ signal: { state: 'waiting', reason: 'Claude is waiting for your input', event: 'Notification/idle_prompt', since: iso(20_000) } }),
		);
		assert.deepEqual([waiting?.state, waiting?.waitingOn, waiting?.since, waiting?.source], ['waiting', 'question', iso(20_000), 'hook']);
		const quiet = boardVerdict(input());
		assert.deepEqual([quiet?.state, quiet?.reason, quiet?.source], ['working', 'active', 'session']);
	});

	void it('a stopped session stays as done or failed for the recent window, then leaves; a suspended one is not running', () => {
		const done = boardVerdict(
			input({
				status: 'ended',
				endedAt: iso(60_000),
				signal: { state: 'done', reason: 'session ended (other)', event: 'SessionEnd', since: iso(60_000) },
			}),
		);
		assert.deepEqual([done?.state, done?.reason], ['done', 'session ended (other)']);
		const failed = boardVerdict(
			input({
				status: 'ended',
				endedAt: iso(60_000),
				signal: { state: 'failed', reason: 'stopped by an error: rate_limit', event: 'StopFailure', since: iso(90_000) },
			}),
		);
		assert.equal(failed?.state, 'failed');
		assert.equal(boardVerdict(input({ status: 'orphaned', endedAt: iso(60_000) }))?.reason, 'abandoned without a handoff');
		assert.equal(boardVerdict(input({ status: 'ended', endedAt: iso(boardWindows.recentMs + 1_000) })), null);
		assert.equal(boardVerdict(input({ status: 'suspended', endedAt: null })), null);
	});

	void it('an imported session runs while its file grows, and is history otherwise', () => {
		const growing = boardVerdict(input({ status: 'ended', imported: true, fileModifiedAt: iso(10_000) }));
		assert.deepEqual([growing?.state, growing?.source], ['working', 'import']);
		assert.equal(boardVerdict(input({ status: 'ended', imported: true, fileModifiedAt: iso(boardWindows.growingMs + 1_000) })), null);
		assert.equal(boardVerdict(input({ status: 'ended', imported: true })), null);
	});

	void it('orders waiting first, the longest wait first, then failed, working and done, the most recent first', () => {
		const rows = [
			{ id: 'a', state: 'done' as const, since: iso(1_000) },
			{ id: 'b', state: 'waiting' as const, since: iso(1_000) },
			{ id: 'c', state: 'working' as const, since: iso(2_000) },
			{ id: 'd', state: 'waiting' as const, since: iso(9_000) },
			{ id: 'e', state: 'failed' as const, since: iso(3_000) },
			{ id: 'f', state: 'working' as const, since: iso(1_000) },
		];
		assert.deepEqual(
			rows.sort(compareEntries).map((r) => r.id),
			['d', 'b', 'e', 'f', 'c', 'a'],
		);
	});
});
