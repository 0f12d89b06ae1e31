/**
 * The model of a step, read from the end of the agent's transcript when its hook payload names none
 * (transcripts/transcriptModel.ts): Claude Code's assistant lines, a `/model` switch mid-session,
 * Codex's rollout `turn_context`; what is not a model (`<synthetic>`, a cut line) is passed over;
 * a missing file, a folder or a FIFO give null at once.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { modelFromTranscript } from '../../../../src/engine/transcripts/transcriptModel';
import { tempDir } from '../../helpers';

const claudeLine = (model: string, text: string): string =>
	JSON.stringify({
		type: 'assistant',
		sessionId: 's1',
		timestamp: '2026-11-28T07:00:00.000Z',
		message: { model, role: 'assistant', type: 'message', content: [{ type: 'text', text }] },
	});
const userLine = (text: string): string => JSON.stringify({ type: 'user', sessionId: 's1', message: { role: 'user', content: text } });

test('the latest model a transcript names: Claude Code’s assistant lines, a /model switch, Codex’s turn context', (t) => {
	const dir = tempDir(t, 'baton-transcript-model-');
	const claude = path.join(dir, 'claude.jsonl');
	fs.writeFileSync(
		claude,
		[
			userLine('hello'),
			claudeLine('claude-opus-4-1-20250805', 'first'),
			userLine('/model sonnet'),
			claudeLine('claude-sonnet-4-5-20250929', 'second'),
			'',
		].join('\n'),
	);
	assert.equal(modelFromTranscript(claude), 'claude-sonnet-4-5-20250929');
	// A synthetic message (Claude Code writes one for an interruption) and a line still being written are passed over.
	fs.appendFileSync(claude, `${claudeLine('<synthetic>', 'No response requested.')}\n{"type":"assistant","message":{"model":"claude-hai`);
	assert.equal(modelFromTranscript(claude), 'claude-sonnet-4-5-20250929');

	const codex = path.join(dir, 'rollout.jsonl');
	fs.writeFileSync(
		codex,
		[
			JSON.stringify({ timestamp: '2026-11-28T07:00:00Z', type: 'session_meta', payload: { id: 'x', cwd: dir } }),
			JSON.stringify({ timestamp: '2026-11-28T07:00:01Z', type: 'turn_context', payload: { cwd: dir, model: 'gpt-5-codex', approval_policy: 'never' } }),
			JSON.stringify({ type: 'response_item', payload: { type: 'message', role: 'assistant', content: [] } }),
			'',
		].join('\n'),
	);
	assert.equal(modelFromTranscript(codex), 'gpt-5-codex');

	// Only the tail is read: a model named 300 KiB before the end is not found.
	const long = path.join(dir, 'long.jsonl');
	fs.writeFileSync(long, `${claudeLine('claude-opus-4-1-20250805', 'old')}\n${userLine('x'.repeat(300 * 1024))}\n`);
	assert.equal(modelFromTranscript(long), null);
});

test('no transcript, a folder or a FIFO: null, at once', (t) => {
	const dir = tempDir(t, 'baton-transcript-model-');
	assert.equal(modelFromTranscript(null), null);
	assert.equal(modelFromTranscript(path.join(dir, 'missing.jsonl')), null);
	assert.equal(modelFromTranscript(dir), null);
	const fifo = path.join(dir, 'fifo.jsonl');
	execFileSync('mkfifo', [fifo]);
	assert.equal(modelFromTranscript(fifo), null, 'a FIFO is neither waited on nor read');
});
