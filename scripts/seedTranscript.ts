/**
 * An archived Claude Code transcript in a workspace, the way it gets there for real: Claude's
 * `SessionStart` hook through `baton hook` (a durable session with the agent's id as alias), a
 * generated transcript in Claude's project folder, then the per-turn `Stop` hook, which archives it
 * (and, with `end`, the `SessionEnd` hook, which ends the session with a handoff).
 *   node --import tsx scripts/seedTranscript.ts <workspace> [--claude-home DIR] [--end]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { claudeProjectDir } from '../src/engine/transcripts/claudeProjects';
import { TranscriptWriter } from '../test/unit/engine/transcripts/transcriptWriter';

export interface SeedTranscriptOptions {
	root: string;
	/** Baton's CLI (default dist/cli.js of this checkout). */
	cli?: string;
	/** Claude's data folder (default `<root>/../.claude-home`). */
	claudeHome?: string;
	agentSessionId?: string;
	/** End the session through the SessionEnd hook (a handoff built from the transcript). */
	end?: boolean;
	startMs?: number;
}

export function seedArchivedTranscript(options: SeedTranscriptOptions): { agentSessionId: string; sessionId: string; transcriptPath: string } {
	const cli = options.cli ?? path.resolve(__dirname, '../dist/cli.js');
	const root = options.root;
	const claudeHome = options.claudeHome ?? path.join(path.dirname(root), '.claude-home');
	const id = options.agentSessionId ?? '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33';
	// A set-up script: no daemon (one would keep this script's environment and serve the editor under test).
	const env = { ...process.env, BATON_CLAUDE_HOME: claudeHome, BATON_ACTOR: 'agent:claude-code', BATON_NO_DAEMON: '1' };
	const baton = (args: string[], input = ''): string => execFileSync(process.execPath, [cli, ...args], { cwd: root, input, encoding: 'utf8', env });
	if (!fs.existsSync(path.join(root, '.baton'))) {
		baton(['init']);
	}
	const transcriptPath = path.join(claudeProjectDir(claudeHome, root), `${id}.jsonl`);
	const hook = (payload: Record<string, unknown>): string =>
		baton(['hook'], JSON.stringify({ session_id: id, cwd: root, transcript_path: transcriptPath, permission_mode: 'default', ...payload }));
	hook({ hook_event_name: 'SessionStart', source: 'startup', model: 'claude-sonnet-4-5-20250929' });

	const w = new TranscriptWriter(id, root, options.startMs ?? Date.now() - 40 * 60_000);
	w.snapshot();
	w.user('Add an idempotency key to the payment charge so a retried request cannot charge twice.');
	const [read] = w.assistant([{ text: 'I will read the payment module first.' }, { tool: 'Read', input: { file_path: path.join(root, 'src/payment.js') } }], {
		input_tokens: 1_800,
		output_tokens: 60,
		cache_read_input_tokens: 12_000,
	});
	w.toolResult(read as string, 'export async function charge(card, amount) {\n  return { ok: true, amount };\n}');
	const [edit, test] = w.assistant(
		[
			{ text: 'The charge takes no key today. I will add one and reject a repeated key.' },
			{
				tool: 'Edit',
				input: { file_path: path.join(root, 'src/payment.js'), old_string: 'charge(card, amount)', new_string: 'charge(card, amount, idempotencyKey)' },
			},
			{ tool: 'Bash', input: { command: 'npm test', description: 'Run the tests' } },
		],
		{ input_tokens: 2_400, output_tokens: 420, cache_read_input_tokens: 18_000 },
	);
	w.toolResult(edit as string, 'The file src/payment.js has been updated.');
	w.toolResult(test as string, 'not ok 3 - charge rejects a repeated key\n  expected 409, got 200', true);
	const [fix] = w.assistant(
		[
			{ text: 'One test fails: a repeated key must be refused. Fixing the check.' },
			{
				tool: 'Edit',
				input: {
					file_path: path.join(root, 'src/payment.js'),
					old_string: 'return { ok: true',
					new_string: 'if (seen.has(idempotencyKey)) return { ok: false, status: 409 };\n  return { ok: true',
				},
			},
		],
		{ input_tokens: 2_900, output_tokens: 310 },
	);
	w.toolResult(fix as string, 'The file src/payment.js has been updated.');
	w.assistant([{ text: 'All tests pass. A retried charge with the same key now returns 409 instead of charging again.' }], {
		input_tokens: 3_100,
		output_tokens: 90,
	});
	w.summary('Payment idempotency key');
	w.flush(transcriptPath);
	hook({ hook_event_name: 'Stop', stop_hook_active: false });
	if (options.end) {
		hook({ hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' });
	}
	const list = JSON.parse(baton(['transcripts', 'list', '--json'])) as {
		transcripts: { agentSessionId: string; sessionId: string | null; archiveBytes: number }[];
	};
	const entry = list.transcripts.find((t) => t.agentSessionId === id);
	if (!entry?.sessionId || entry.archiveBytes === 0) {
		throw new Error(`the transcript of ${id} was not archived: ${JSON.stringify(entry)}`);
	}
	return { agentSessionId: id, sessionId: entry.sessionId, transcriptPath };
}

if (require.main === module) {
	const { values, positionals } = parseArgs({
		options: { 'claude-home': { type: 'string' }, end: { type: 'boolean' }, cli: { type: 'string' } },
		allowPositionals: true,
	});
	if (!positionals[0]) {
		process.stderr.write('usage: node --import tsx scripts/seedTranscript.ts <workspace> [--claude-home DIR] [--end] [--cli FILE]\n');
		process.exit(2);
	}
	const seeded = seedArchivedTranscript({
		root: path.resolve(positionals[0]),
		...(values['claude-home'] ? { claudeHome: path.resolve(values['claude-home']) } : {}),
		...(values.cli ? { cli: path.resolve(values.cli) } : {}),
		end: values.end === true,
	});
	process.stdout.write(`${JSON.stringify(seeded)}\n`);
}
