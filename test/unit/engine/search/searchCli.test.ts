/**
 * `baton search` through the built CLI (and the workspace daemon it starts), on records a person and
 * an agent's hooks wrote: hits with their excerpt and where they open, the filters, stored control
 * characters escaped, and bad input refused with a clear message and a usage exit code.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { rawControl, tempDir } from '../../helpers';
import { agentCli, runBaton, type Run } from '../../cli/agentCli';

let cli = '';
before(async () => {
	cli = await agentCli();
});

void describe('baton search', () => {
	void it('finds what was asked and decided, filters, escapes stored text and refuses bad input', async (t) => {
		const root = path.join(tempDir(t, 'baton-search-cli-'), 'shop');
		fs.mkdirSync(path.join(root, 'src'), { recursive: true });
		const env = { BATON_CLAUDE_HOME: path.join(root, '..', 'claude-home') };
		const baton = (...args: string[]): Run => runBaton(cli, root, args, { env });
		const ok = (...args: string[]): Run => {
			const run = baton(...args);
			assert.equal(run.code, 0, `baton ${args.join(' ')}: ${run.stderr}`);
			return run;
		};
		ok('init');
		ok('session', 'start', '--name', 'Invoice rounding');
		ok('decision', 'record', '--text', 'Round the invoice total half to even \u001b[2J');
		const hook = (payload: Record<string, unknown>): void =>
			assert.equal(runBaton(cli, root, ['hook'], { env, input: JSON.stringify({ session_id: 'agent-1', cwd: root, ...payload }) }).code, 0);
		hook({ hook_event_name: 'SessionStart', source: 'startup' });
		hook({ hook_event_name: 'UserPromptSubmit', prompt: 'Why is the invoice total off by a cent?' });

		const json = ok('search', 'invoice', '--json').json;
		assert.ok(json);
		assert.equal(json['total'], 3);
		assert.deepEqual((json['hits'] as { kind: string }[]).map((h) => h.kind).sort(), ['decision', 'prompt', 'session']);
		const prompt = (json['hits'] as { kind: string; turn: number; agent: string; excerpt: string; matches: [number, number][] }[]).find(
			(h) => h.kind === 'prompt',
		);
		assert.equal(prompt?.turn, 1);
		assert.equal(prompt?.agent, 'claude-code');
		assert.deepEqual(
			prompt?.matches.map(([a, b]) => prompt.excerpt.slice(a, b)),
			['invoice'],
		);
		assert.ok((json['hits'] as { excerpt: string }[]).find((h) => h.excerpt.startsWith('Round'))?.excerpt.includes('\u001b[2J'), '--json keeps the text');

		const text = ok('search', 'invoice total');
		assert.match(text.stdout, /^2 matches for "invoice total"/);
		assert.match(text.stdout, /prompt turn 1 · .*\n {4}Why is the «invoice» «total» off by a cent\?/);
		assert.doesNotMatch(text.stdout, rawControl, 'stored control characters are shown escaped');
		assert.match(text.stdout, /\\x1b\[2J/);

		const claudes = (json['hits'] as { agent: string | null }[]).filter((h) => h.agent === 'claude-code').length;
		assert.ok(claudes >= 1);
		assert.equal(ok('search', 'invoice', '--agent', 'Claude Code', '--json').json?.['total'], claudes);
		assert.equal(ok('search', 'invoice', '--agent', 'codex', '--json').json?.['total'], 0);
		assert.equal(ok('search', 'invoice', '--since', '1d', '--json').json?.['total'], 3);
		assert.equal(ok('search', 'invoice', '--since', '2999-01-01', '--json').json?.['total'], 0);
		assert.equal(ok('search', 'invoice', '--file', 'src/billing.ts', '--json').json?.['total'], 0);
		assert.match(ok('search', 'nothing-like-this').stdout, /^no match for "nothing-like-this"/);
		// A query that starts with a dash follows `--`, as for any command.
		for (const hostile of [['"invoice'], ['invoice NEAR'], ['--', '-invoice*'], ['invoice)'], ['(']]) {
			const run = baton('search', ...hostile);
			assert.ok(run.code === 0 || /nothing to search for/.test(run.stderr), `${hostile}: ${run.stderr}`);
			assert.doesNotMatch(run.stderr, /SQL|fts|syntax/i);
		}

		const empty = baton('search', '"*"');
		assert.notEqual(empty.code, 0);
		assert.match(empty.stderr, /nothing to search for: give at least one word/);
		const since = baton('search', 'invoice', '--since', 'last week');
		assert.equal(since.code, 2);
		assert.match(since.stderr, /--since takes a time .* not "last week"/);
		const limit = baton('search', 'invoice', '--limit', '0');
		assert.equal(limit.code, 2);
		assert.match(limit.stderr, /--limit takes a whole number from 1 to 500/);
		assert.equal(baton('search').code, 2, 'a query is required');
	});
});
