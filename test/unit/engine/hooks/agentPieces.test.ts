/**
 * The pure pieces: the briefing diet and its budget, secret redaction, the JSONL chunk splitter,
 * hook configuration merging, the bounded hook log.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { renderBriefingDiet } from '../../../../src/engine/hooks/briefingDiet';
import { estimateCostUsd } from '../../../../src/engine/transcripts/costEstimate';
import { isBatonHookCommand, mergeClaudeHooks, mergeCopilotHooks } from '../../../../src/engine/agentConfig/hookConfigMerge';
import { HookLog } from '../../../../src/engine/hooks/hookLog';
import { readJsonlFrom } from '../../../../src/engine/transcripts/jsonlReader';
import { containsSecret, redactSecrets } from '../../../../src/engine/text/redactSecrets';
import type { Briefing } from '../../../../src/engine/storage/jsonShapes';
import { tempDir } from '../../helpers';

function bigBriefing(): Briefing {
	const task = (i: number) => ({
		id: `T${i}`,
		title: `Task number ${i} with a rather long title that goes on and on about what must be done ${'x'.repeat(60)}`,
	});
	return {
		sessionId: 'ses_20260301090000_abcdef',
		scope: 'global',
		generatedAt: '2026-03-01T09:00:00.000Z',
		lastSession: {
			id: 'ses_20260228170000_123456',
			name: 'Auth refactor part 1',
			endedAt: '2026-02-28T18:00:00.000Z',
			durationMinutes: 60,
			handoff: {
				lastTask: task(1),
				tasksCompleted: [task(1)],
				tasksCreated: [],
				decisionsRecorded: 5,
				decisions: [1, 2, 3, 4, 5].map((i) => ({ id: `dec_${i}`, text: `Decision ${i}: use RS256 keys rotated weekly`, rationale: null })),
				nextSuggested: [task(2), task(3)],
				openBlockers: ['staging keys missing', 'CI flaky', 'waiting for review', 'fourth blocker'],
				openBugs: [],
				note: 'JWT signing done; refresh tokens next. '.repeat(20),
				nextAction: 'Implement refresh-token rotation',
			},
		},
		focus: null,
		suggestions: [
			{ id: 'T2', title: task(2).title, status: 'done', stale: true },
			{ id: 'T3', title: task(3).title, status: 'pending', stale: false },
			{ id: 'T9', title: 'gone', status: null, stale: true },
			{ id: 'T10', title: 'fourth', status: 'pending', stale: false },
		],
		currentTask: { id: 'T4', title: task(4).title, status: 'active', blockedBy: [] },
		nextTasks: [5, 6, 7, 8, 9].map((i) => ({ ...task(i), type: 'task', priority: 'high', leverage: i, score: i })),
		openBugs: [10, 11, 12, 13].map((i) => ({ ...task(i), priority: 'critical' })),
		blockedTasks: [14, 15, 16, 17].map((i) => ({ ...task(i), blockedBy: ['T5'] })),
		activeEpics: [{ id: 'T20', title: 'Auth', completionPercent: 40, done: 2, total: 5 }],
		recentDecisions: [],
		memory: { entries: [], total: 0 },
		warnings: ['a warning', 'another', 'a third'],
	};
}

void describe('briefing diet', () => {
	void it('stays within the budget, a few items per list, titles cut, stale suggestions marked', () => {
		const briefing = bigBriefing();
		const full = renderBriefingDiet(briefing, 20_000);
		assert.match(full, /T2 .* \[stale: done, skip it\]/);
		assert.match(full, /T9 gone \[stale: missing, skip it\]/);
		assert.doesNotMatch(full, /T10 fourth/, 'three suggestions at most');
		assert.doesNotMatch(full, /T8 /, 'three next tasks at most');
		assert.doesNotMatch(full, /fourth blocker/, 'three blockers at most');
		assert.match(full, /Next action: Implement refresh-token rotation/);
		assert.match(full, /baton briefing --session ses_20260301090000_abcdef --json/);
		for (const line of full.split('\n')) {
			assert.ok(line.length <= 260, `a line stays short: ${line.length}`);
		}
		let previous = Infinity;
		for (const budget of [4_000, 1_500, 800, 300, 120]) {
			const text = renderBriefingDiet(briefing, budget);
			assert.ok(text.length <= budget, `${text.length} ≤ ${budget}`);
			assert.ok(text.length <= previous);
			previous = text.length;
			assert.match(text, /^Baton briefing/);
			assert.ok(
				text.split('\n').every((l) => !l.endsWith('…') || l.length > 20),
				'items are cut whole or clipped with an ellipsis, never mid-way',
			);
		}
		assert.match(renderBriefingDiet(briefing, 1_500), /Previous session:/, 'the previous session comes first');
		assert.doesNotMatch(renderBriefingDiet(briefing, 1_500), /Blocked:/, 'the least important lists go first');
	});

	void it('puts a resumed session’s progress first', () => {
		const text = renderBriefingDiet(bigBriefing(), 600, {
			lead: { title: 'This durable session so far:', lines: ['Last request: "add rotation"', 'Files changed (2): a.ts, b.ts'] },
		});
		assert.match(text.split('\n')[1] ?? '', /This durable session so far:/);
		assert.match(text, /Files changed \(2\)/);
	});
});

void describe('secret redaction', () => {
	const secrets: [string, string][] = [
		['sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdEFGH', 'anthropic-key'],
		['sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', 'api-key'],
		['ghp_0123456789abcdefghijABCDEFGHIJ012345', 'github-token'],
		['github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', 'github-token'],
		['xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', 'slack-token'],
		['AKIAIOSFODNN7EXAMPLE', 'aws-key'],
		['AIzaSyA-0123456789abcdefghijklmnopqrstu', 'google-key'],
		['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'jwt'],
	];
	void it('removes keys and tokens, whatever surrounds them', () => {
		for (const [secret, label] of secrets) {
			assert.equal(redactSecrets(secret), `[REDACTED:${label}]`, `${secret} is a ${label}`);
			for (const text of [`key: ${secret}.`, `export X="${secret}"`, `url?token=${secret}&x=1`, `see(${secret})`]) {
				const out = redactSecrets(text);
				assert.ok(!out.includes(secret), `${secret} in ${text} → ${out}`);
				assert.match(out, /REDACTED/);
			}
		}
	});

	void it('removes bearer headers, private keys, credentials in URLs and secret assignments, keeping the names', () => {
		assert.equal(redactSecrets('Authorization: Bearer abcdef0123456789abcdef'), 'Authorization: Bearer [REDACTED]');
		const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAAbm9uZQ==\n-----END OPENSSH PRIVATE KEY-----';
		assert.equal(redactSecrets(`before\n${key}\nafter`), 'before\n[REDACTED:private-key]\nafter');
		assert.equal(redactSecrets('-----BEGIN RSA PRIVATE KEY-----\nMIIEow (cut off'), '[REDACTED:private-key]');
		assert.equal(redactSecrets('postgres://admin:hunter2@db:5432/x'), 'postgres://admin:[REDACTED]@db:5432/x');
		assert.equal(redactSecrets('password=hunter2 user=bob'), 'password=[REDACTED] user=bob');
		assert.equal(redactSecrets('DB_PASSWORD: "s3cr3t!"'), 'DB_PASSWORD: [REDACTED]');
		assert.equal(redactSecrets('{"api_key": "abc123", "name": "x"}'), '{"api_key": [REDACTED], "name": "x"}');
		assert.equal(redactSecrets("client_secret='zzz'"), 'client_secret=[REDACTED]');
		assert.equal(redactSecrets('--token abc.def'), '--token [REDACTED]', 'an option takes its value as the next word');
		assert.equal(redactSecrets('the token abc.def expired'), 'the token abc.def expired', 'prose naming a token is left alone');
		assert.equal(redactSecrets('token=ghp_0123456789abcdefghijABCDEFGHIJ012345'), 'token=[REDACTED:github-token]', 'redacted once');
	});

	void it('leaves ordinary text alone', () => {
		for (const text of [
			'The token count is 5 and input_tokens: 300',
			'ask the task-management skill',
			'risk-assessment-framework-version-two',
			'Basic understanding of OAuth',
			'see docs/secrets.md',
		]) {
			assert.equal(redactSecrets(text), text);
			assert.equal(containsSecret(text), false, text);
		}
	});
});

void describe('JSONL chunk splitter', () => {
	const records = [{ a: 1 }, { text: 'naïve café 日本語 🚀' }, { big: 'x'.repeat(5_000) }, { type: 'user' }];
	void it('reads whole lines only, across any chunk size, from an offset', (t) => {
		const file = path.join(tempDir(t), 't.jsonl');
		const body = records.map((r) => JSON.stringify(r)).join('\n');
		fs.writeFileSync(file, `${body}\n{"torn": tr`);
		for (const chunkBytes of [3, 7, 64, 1 << 20]) {
			const seen: unknown[] = [];
			const result = readJsonlFrom(file, 0, (r) => seen.push(r), { chunkBytes });
			assert.deepEqual(seen, records, `chunk ${chunkBytes}`);
			assert.equal(result.offset, Buffer.byteLength(body) + 1, 'the torn last line is not consumed');
			assert.equal(result.pendingBytes, Buffer.byteLength('{"torn": tr'));
			assert.equal(result.badLines, 0);
		}
		fs.appendFileSync(file, 'ue}\r\nnot json\n\n');
		const more: unknown[] = [];
		const second = readJsonlFrom(file, Buffer.byteLength(body) + 1, (r) => more.push(r), { chunkBytes: 5 });
		assert.deepEqual(more, [{ torn: true }], 'the completed line, CRLF tolerated');
		assert.equal(second.badLines, 1);
		assert.equal(second.lines, 3);
		assert.equal(second.offset, fs.statSync(file).size);
		const capped = readJsonlFrom(file, 0, () => {}, { maxBytes: 5 });
		assert.equal(capped.truncated, true);
		assert.equal(capped.offset, Buffer.byteLength(JSON.stringify(records[0])) + 1, 'stops at the first line boundary past maxBytes');
	});
});

void describe('hook configuration merge', () => {
	const specs = [
		{ event: 'SessionStart', command: 'baton hook session-start', timeout: 15 },
		{ event: 'PreToolUse', command: 'baton hook pre-tool-use', timeout: 10, matcher: 'Edit|Write' },
	];
	void it('recognises Baton’s commands only', () => {
		for (const c of ['baton hook stop', '"/usr/bin/node" "/opt/baton/dist/cli.js" hook stop', '/x/bin/baton hook session-start', 'baton.cmd hook stop']) {
			assert.equal(isBatonHookCommand(c), true, c);
		}
		for (const c of ['./scripts/hook.sh', 'echo baton', 'batonx hook stop', 'node lint.js', 'baton session list', undefined, 3]) {
			assert.equal(isBatonHookCommand(c), false, String(c));
		}
	});

	void it('keeps the user’s hooks in place, updates Baton’s in place, and removes exactly Baton’s', () => {
		const user = {
			model: 'opus',
			hooks: {
				PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './guard.sh' }] }],
				Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }],
			},
		};
		const merged = mergeClaudeHooks(user, specs, { remove: false, file: 'f' });
		assert.deepEqual(Object.keys(merged), ['model', 'hooks']);
		assert.deepEqual(Object.keys(merged['hooks'] as object), ['PreToolUse', 'Stop', 'SessionStart']);
		assert.deepEqual((merged['hooks'] as any).PreToolUse, [
			user.hooks.PreToolUse[0],
			{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'baton hook pre-tool-use', timeout: 10 }] },
		]);
		assert.deepEqual(mergeClaudeHooks(merged, specs, { remove: false, file: 'f' }), merged, 'idempotent');
		const moved = mergeClaudeHooks(
			merged,
			specs.map((s) => ({ ...s, command: s.command.replace('baton', '"/n" "/c/cli.js"') })),
			{ remove: false, file: 'f' },
		);
		assert.equal((moved['hooks'] as any).PreToolUse[1].hooks[0].command, '"/n" "/c/cli.js" hook pre-tool-use', 'updated where it was');
		assert.equal((moved['hooks'] as any).PreToolUse.length, 2);
		assert.deepEqual(mergeClaudeHooks(merged, specs, { remove: true, file: 'f' }), user, 'remove restores the original');
		// A build whose script has another name is still recognised by the command it writes.
		const renamed = specs.map((s) => ({ ...s, command: s.command.replace('baton', '"/usr/bin/node" "/opt/x/baton-bundle.js"') }));
		const once = mergeClaudeHooks(user, renamed, { remove: false, file: 'f' });
		assert.deepEqual(mergeClaudeHooks(once, renamed, { remove: false, file: 'f' }), once, 'idempotent with any script name');
		assert.deepEqual(mergeClaudeHooks(once, renamed, { remove: true, file: 'f' }), user);
		assert.deepEqual(mergeCopilotHooks(mergeCopilotHooks({}, renamed, { remove: false, file: 'f' }), renamed, { remove: true, file: 'f' }), {});
		assert.deepEqual(user.hooks.PreToolUse.length, 1, 'the input is not modified');
		// Baton's command inside a group of the user's: updated there, removed from there, their matcher kept.
		const shared = {
			hooks: {
				PreToolUse: [
					{
						matcher: '*',
						hooks: [
							{ type: 'command', command: './a.sh' },
							{ type: 'command', command: 'baton hook pre-tool-use', timeout: 1 },
						],
					},
				],
			},
		};
		const sharedMerged = mergeClaudeHooks(shared, specs, { remove: false, file: 'f' }) as any;
		assert.deepEqual(sharedMerged.hooks.PreToolUse, [
			{
				matcher: '*',
				hooks: [
					{ type: 'command', command: './a.sh' },
					{ type: 'command', command: 'baton hook pre-tool-use', timeout: 10 },
				],
			},
		]);
		assert.deepEqual((mergeClaudeHooks(shared, specs, { remove: true, file: 'f' }) as any).hooks.PreToolUse, [
			{ matcher: '*', hooks: [{ type: 'command', command: './a.sh' }] },
		]);
	});

	void it('merges VS Code hook files the same way and refuses shapes it does not know', () => {
		const user = { hooks: { PostToolUse: [{ type: 'command', command: 'npx prettier --write' }] } };
		const merged = mergeCopilotHooks(user, specs, { remove: false, file: 'f' }) as any;
		assert.deepEqual(merged.hooks.PostToolUse, user.hooks.PostToolUse);
		assert.deepEqual(merged.hooks.SessionStart, [{ type: 'command', command: 'baton hook session-start', timeout: 15 }]);
		assert.deepEqual(mergeCopilotHooks(merged, specs, { remove: true, file: 'f' }), user);
		for (const bad of [[], 'x', { hooks: [] }, { hooks: { Stop: {} } }, { hooks: { Stop: ['cmd'] } }]) {
			assert.throws(
				() => mergeClaudeHooks(bad, specs, { remove: false, file: 'f' }),
				(e: Error & { code?: string }) => e.code === 'configInvalid',
				JSON.stringify(bad),
			);
		}
		assert.throws(() => mergeClaudeHooks({ hooks: { Stop: [{ hooks: 'x' }] } }, specs, { remove: false, file: 'f' }), /not a list/);
	});
});

void describe('hook log and cost', () => {
	void it('stays bounded: the log rolls over to hooks.log.1', (t) => {
		const file = path.join(tempDir(t), 'logs', 'hooks.log');
		const log = new HookLog(file, () => 0, 1_000);
		for (let i = 0; i < 100; i++) {
			log.info(`line ${i} ${'x'.repeat(40)}`);
		}
		assert.ok(fs.statSync(file).size <= 1_000);
		assert.ok(fs.statSync(`${file}.1`).size <= 1_000);
		assert.match(fs.readFileSync(file, 'utf8'), /line 99/);
		log.warn('multi\nline\r\nmessage');
		assert.match(fs.readFileSync(file, 'utf8'), /multi line message\n$/);
	});

	void it('estimates cost by model family', () => {
		const million = { input: 1_000_000, output: 1_000_000, cacheRead: 0, cacheCreation: 0 };
		assert.equal(estimateCostUsd({ 'claude-sonnet-4-5-20250929': million }), 18);
		assert.equal(estimateCostUsd({ 'claude-opus-4-1-20250805': million }), 90);
		assert.equal(estimateCostUsd({ 'claude-haiku-4-5': million }), 6);
		assert.equal(estimateCostUsd({ 'claude-sonnet-4-5': { input: 0, output: 0, cacheRead: 1_000_000, cacheCreation: 1_000_000 } }), 4.05);
	});
});
