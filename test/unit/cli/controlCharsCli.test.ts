/**
 * Stored text is data, never control (docs/architecture.md §2): hostile text an agent or a person
 * stored (a session name, a decision, a task title, a memory entry over MCP, a prompt through
 * `baton hook`) is shown with its control characters escaped by every command that prints it, and
 * kept as it was under --json; a NUL is dropped where it comes in.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { rawControl, tempDir } from '../helpers';
import { agentCli, runBaton, type Run } from './agentCli';

/** Clear the screen, retitle the window, rewrite the line (CR), a C1 CSI, a right-to-left override. */
const hostile = 'A\u001b[2J\u001b]0;title\u0007B\rC\u009b31mD\u202eE';
/** Where text reaches Baton as JSON (a hook payload, an MCP call) it can also carry a NUL. */
const withNul = `${hostile}\u0000F`;

let cli = '';
before(async () => {
	cli = await agentCli();
});

function strings(value: unknown): string[] {
	if (typeof value === 'string') {
		return [value];
	}
	if (Array.isArray(value)) {
		return value.flatMap(strings);
	}
	return value && typeof value === 'object' ? Object.values(value).flatMap(strings) : [];
}

void describe('stored control characters are shown escaped, never obeyed', () => {
	void it('escapes them in every command that prints stored text, keeps them under --json, and stores no NUL', async (t) => {
		const root = path.join(tempDir(t, 'baton-controls-'), 'project');
		fs.mkdirSync(root, { recursive: true });
		const env = { BATON_CLAUDE_HOME: path.join(root, '..', 'claude-home') };
		const baton = (...args: string[]): Run => {
			const run = runBaton(cli, root, args, { env });
			assert.equal(run.code, 0, `baton ${args.join(' ')}: ${run.stderr}`);
			return run;
		};
		baton('init');
		baton('task', 'add', '--title', `task ${hostile}`);
		const session = baton('session', 'start', '--name', `name ${hostile}`, '--json').json?.['session'].id as string;
		baton('decision', 'record', '--text', `decision ${hostile}`);

		const hook = (payload: Record<string, unknown>): void => {
			const run = runBaton(cli, root, ['hook'], { env, input: JSON.stringify({ session_id: 'hostile-1', cwd: root, ...payload }) });
			assert.equal(run.code, 0, run.stderr);
		};
		hook({ hook_event_name: 'SessionStart', source: 'startup' });
		hook({ hook_event_name: 'UserPromptSubmit', prompt: `prompt ${withNul}` });

		const transport = new StdioClientTransport({
			command: process.execPath,
			args: [cli, 'mcp'],
			cwd: root,
			stderr: 'pipe',
			env: { PATH: process.env['PATH'] ?? '', HOME: root },
		});
		const client = new Client({ name: 'controls-test-client', version: '1.0.0' });
		await client.connect(transport);
		const recorded = (await client.callTool({ name: 'record_memory', arguments: { kind: 'gotcha', text: `memory ${withNul}` } })) as {
			isError?: boolean;
			content: { text: string }[];
		};
		await client.close();
		assert.notEqual(recorded.isError, true, recorded.content[0]?.text);

		const commands: string[][] = [
			['session', 'list'],
			['session', 'show', session],
			['task', 'list'],
			['task', 'show', 'T1'],
			['briefing', '--session', session],
			['memory', 'list'],
			['session', 'summary', session],
			['timeline', '--session', session],
			['export', '--session', session, '--markdown'],
			['session', 'chain', session],
		];
		for (const args of commands) {
			const name = `baton ${args.join(' ')}`;
			const text = baton(...args).stdout;
			assert.doesNotMatch(text, rawControl, `${name} prints no raw control character:\n${JSON.stringify(text)}`);
			for (const shown of ['\\x1b[2J', '\\x1b]0;title\\x07', '\\x9b31m', 'D\\u202eE']) {
				assert.ok(text.includes(shown), `${name} shows ${shown}:\n${text}`);
			}

			const json = baton(...args, '--json');
			assert.doesNotMatch(json.stdout, rawControl, `${name} --json escapes them in the JSON too`);
			const all = strings(json.json);
			assert.ok(
				all.some((s) => s.includes('A\u001b[2J\u001b]0;title\u0007B') && s.includes('\u009b31mD\u202eE')),
				`${name} --json carries the original text: ${json.stdout}`,
			);
			assert.ok(!all.some((s) => s.includes('\u0000')), `${name} --json holds no NUL`);
		}

		const stored = (...args: string[]): string[] => strings(baton(...args, '--json').json);
		assert.ok(
			stored('timeline', '--session', session).some((s) => s.startsWith('prompt A\u001b') && s.endsWith('D\u202eEF')),
			'the hook prompt was stored without its NUL',
		);
		assert.ok(
			stored('memory', 'list').some((s) => s.startsWith('memory A\u001b') && s.endsWith('D\u202eEF')),
			'the MCP memory was stored without its NUL',
		);
	});

	void it('drops a NUL from what an import brings in', (t) => {
		const from = tempDir(t, 'baton-controls-from-');
		const run = (cwd: string, ...args: string[]): Run => {
			const result = runBaton(cli, cwd, args);
			assert.equal(result.code, 0, `baton ${args.join(' ')}: ${result.stderr}`);
			return result;
		};
		run(from, 'init');
		const id = run(from, 'session', 'start', '--name', 'nul here', '--json').json?.['session'].id as string;
		run(from, 'session', 'end', '--note', 'note nul here');
		const out = path.join(tempDir(t, 'baton-controls-export-'), 'export');
		run(from, 'export', '--session', id, '--out', out);
		for (const file of fs.readdirSync(out)) {
			const text = fs.readFileSync(path.join(out, file), 'utf8');
			fs.writeFileSync(path.join(out, file), text.replaceAll('nul here', 'nul\\u0000here'));
		}
		const into = tempDir(t, 'baton-controls-into-');
		run(into, 'init');
		run(into, 'import', 'json-sessions', out);
		const shown = run(into, 'session', 'show', id, '--json').json;
		assert.equal(shown?.['session'].name, 'nulhere');
		assert.equal(shown?.['handoff'].note, 'note nulhere');
		assert.ok(!strings(shown).some((s) => s.includes('\u0000')), 'no NUL stored');
	});
});
