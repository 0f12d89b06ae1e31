/**
 * The real Cline CLI (3.0.65) in the project, against the chat-completions stand-in: not connected to
 * Baton (it keeps its sessions in its own files), so these are the two things Baton does with it —
 * knows a `baton` its `run_commands` tool runs for Cline's (cli/agentShell.ts: the CLI marks the
 * commands it runs with `CLINE_CONNECTOR_CLI_LAUNCH`, not the `CLINE_ACTIVE` of the VS Code
 * extension's terminals), and reads the session it wrote (`baton import agents`; its request inside
 * `<user_input mode="act">`, its tool calls, the file its patch added, the model's tokens).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { agentWorld } from './agentWorld';
import { runCline } from './clineCli';
import { chatCompletionsStandIn } from './standIns/chatCompletions';

test('the Cline CLI’s run_commands may not approve a checkpoint: its baton is Cline’s', async (t) => {
	const w = agentWorld(t, 'shell-cline');
	assert.equal(w.baton(['session', 'start', '--name', 'Reviewed work']).code, 0);
	const created = w.batonJson(['checkpoint', 'create', '--trigger', 'complete', '--message', 'waits for a person']).checkpoint as { id: string };
	const model = await chatCompletionsStandIn();
	t.after(() => model.close());
	model.script([
		{
			calls: [
				{
					name: 'run_commands',
					arguments: {
						commands: [
							`baton checkpoint approve ${created.id} --json > approve.json 2>&1; echo $? > approve.code; env | grep -E '^(CLINE|AI_AGENT)' | cut -c1-60 > marker.txt`,
						],
					},
				},
			],
		},
		{ text: 'Tried.' },
	]);
	await runCline(w, model, 'Approve your checkpoint');
	const read = (name: string) => fs.readFileSync(path.join(w.root, name), 'utf8');
	assert.match(read('marker.txt'), /^CLINE_CONNECTOR_CLI_LAUNCH=\{/m, read('marker.txt'));
	assert.equal(read('approve.code').trim(), '1', read('approve.json'));
	const answer = JSON.parse(read('approve.json')) as { error: { code: string; message: string } };
	assert.equal(answer.error.code, 'personOnly');
	assert.match(answer.error.message, /^Cline may not approve a checkpoint/);
	assert.equal((w.batonJson(['checkpoint', 'show', created.id]).checkpoint as { approvalStatus: string }).approvalStatus, 'pending');
});

test('the session the Cline CLI kept in its own files becomes a Baton session, named by its request, once', async (t) => {
	const w = agentWorld(t, 'history-cline');
	const model = await chatCompletionsStandIn();
	t.after(() => model.close());
	model.script([
		{ text: 'Reading first.', calls: [{ name: 'run_commands', arguments: { commands: ['cat a.txt'] } }] },
		{ calls: [{ name: 'apply_patch', arguments: { input: '*** Begin Patch\n*** Add File: cline.txt\n+written by Cline\n*** End Patch' } }] },
		{ text: 'Wrote cline.txt.' },
	]);
	const run = await runCline(w, model, 'Write cline.txt');
	assert.equal(
		fs.readFileSync(path.join(w.root, 'cline.txt'), 'utf8'),
		'written by Cline',
		'its patch wrote the file (no newline at the end: as the CLI applies an added file)',
	);

	const first = w.batonJson(['import', 'agents', '--agent', 'cline']);
	const counts = (first['agents'] as Record<string, { imported: number; unknownRecords: number; badLines: number }>)['cline'];
	assert.equal(counts?.imported, 1, JSON.stringify(first));
	assert.equal(counts?.unknownRecords, 0, 'every record the real CLI wrote is one the reader knows');
	const session = (first['sessions'] as { agentSessionId: string; sessionId: string; product: string }[])[0];
	assert.equal(session?.agentSessionId, run.sessionId);
	assert.equal(session?.product, 'cline-sdk');
	const shown = w.batonJson(['session', 'show', session?.sessionId ?? '']).session as { name: string; agent: string };
	assert.equal(shown.name, 'Write cline.txt', 'named by the person’s request');
	assert.equal(shown.agent, 'cline');
	const listed = (w.batonJson(['transcripts', 'list']).transcripts as Record<string, unknown>[]).find((e) => e['id'] === run.sessionId);
	assert.equal(listed?.['userRequests'], 1);
	assert.equal(listed?.['toolCalls'], 2);
	assert.deepEqual(listed?.['filesTouched'], ['cline.txt']);
	assert.deepEqual(Object.keys((listed?.['tokens'] as object) ?? {}), ['gpt-5.5']);

	const again = w.batonJson(['import', 'agents', '--agent', 'cline']);
	assert.equal((again['agents'] as Record<string, { imported: number; unchanged: number }>)['cline']?.unchanged, 1, JSON.stringify(again));
});
