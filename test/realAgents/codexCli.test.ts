/**
 * Codex CLI itself drives Baton: the real `codex` binary, headless against the Responses API
 * stand-in, connected with `baton connect codex` (`.codex/hooks.json`). Its `apply_patch` calls carry
 * the patch in `tool_input.command` and its shell calls arrive as `Bash`: each must be one step with
 * exactly its files, in one durable session labelled Codex, briefed from the previous handoff.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { agentWorld, briefingIn, hookLogProblems } from './agentWorld';
import { codexModel, runCodex } from './codexCli';
import { responsesStandIn } from './standIns/openaiResponses';

test('a Codex conversation is one durable session labelled Codex: briefed from the previous handoff, each apply_patch and shell call one step with exactly its files, a resumed run in the same session', async (t) => {
	const w = agentWorld(t, 'codex');
	assert.equal(w.baton(['session', 'start', '--name', 'Groundwork']).code, 0);
	assert.equal(w.baton(['session', 'end', '--note', 'Next: port the CSV reader (CSV-9)']).code, 0);
	const connected = w.baton(['connect', 'codex']);
	assert.equal(connected.code, 0, connected.stderr);
	assert.match(connected.stdout, /\.codex\/hooks\.json/);
	assert.match(connected.stdout, /to do: .*trust/i, 'connecting says what Codex needs trusted');

	const model = await responsesStandIn();
	t.after(() => model.close());
	const patch = [
		'*** Begin Patch',
		'*** Add File: src/csv.ts',
		'+export const separator = ",";',
		'*** Update File: a.txt',
		'@@',
		'-alpha',
		'+ALPHA',
		'*** End Patch',
		'',
	].join('\n');
	model.script([
		{ text: 'Patching.', calls: [{ kind: 'custom', name: 'apply_patch', input: patch }] },
		{ calls: [{ kind: 'function', name: 'exec_command', arguments: { cmd: 'echo fresh > created.txt && rm src/app.ts' } }] },
		{ calls: [{ kind: 'function', name: 'exec_command', arguments: { cmd: 'echo gamma >> a.txt; exit 3' } }] },
		{ text: 'Ported.' },
	]);
	const first = await runCodex(w, model, 'Port the CSV reader');
	assert.equal(model.remaining(), 0, `every scripted turn was played:\n${first.stderr.slice(-3000)}`);
	assert.match(
		briefingIn(model.requests.find((r) => r.conversation)?.text ?? ''),
		/port the CSV reader \(CSV-9\)/,
		'the previous handoff reached the model’s first request',
	);

	const sessions = () => (w.batonJson(['session', 'list']).sessions as { id: string; name: string; agent: string | null }[]).filter((s) => s.agent !== null);
	assert.deepEqual(
		sessions().map((s) => s.agent),
		['codex'],
		'one durable session, labelled Codex (its payloads are Claude’s dialect)',
	);
	const session = sessions()[0]!;
	assert.equal(session.name, 'Port the CSV reader', 'named after its first prompt');
	assert.equal(session.agent, 'codex');
	assert.ok(
		first.sessionId && JSON.stringify(w.batonJson(['session', 'show', session.id])).includes(first.sessionId),
		'Codex’s own id is an alias of the session',
	);
	const timeline = () =>
		w.batonJson(['timeline', '--session', session.id]).entries as {
			type: string;
			actor?: string;
			tool?: string;
			model?: string;
			text?: string;
			files?: { path: string; change: string }[];
		}[];
	const steps = () =>
		timeline()
			.filter((e) => e.type === 'step')
			.map((s) => [
				s.actor,
				s.tool,
				(s.files ?? [])
					.map((f) => `${f.change[0]?.toUpperCase()} ${f.path}`)
					.sort()
					.join(', '),
			]);
	assert.deepEqual(steps(), [
		['agent', 'apply_patch', 'A src/csv.ts, M a.txt'],
		['agent', 'Bash', 'A created.txt, D src/app.ts'],
		['agent', 'Bash', 'M a.txt'],
	]);
	assert.ok(
		timeline()
			.filter((e) => e.type === 'step')
			.every((s) => s.model === codexModel),
		'each step names its model (Codex’s payloads carry it)',
	);

	fs.appendFileSync(path.join(w.root, 'created.txt'), 'by a person\n');
	model.script([{ calls: [{ kind: 'function', name: 'exec_command', arguments: { cmd: 'echo delta >> src/csv.ts' } }] }, { text: 'Appended.' }]);
	await runCodex(w, model, 'Append delta', first.sessionId);
	assert.equal(sessions().length, 1, 'the resumed run is the same session');
	assert.deepEqual(steps().slice(3), [
		['human', null, 'M created.txt'],
		['agent', 'Bash', 'M src/csv.ts'],
	]);
	assert.deepEqual(
		timeline()
			.filter((e) => e.type === 'prompt')
			.map((e) => e.text),
		['Port the CSV reader', 'Append delta'],
	);
	// Its rollout is archived and readable, and the handoff tells the next conversation what it did.
	const transcripts = w.batonJson(['transcripts', 'list', '--session', session.id]).transcripts as {
		id: string;
		agent: string;
		userRequests: number;
		toolCalls: number;
	}[];
	assert.deepEqual(
		transcripts.map((x) => [x.id, x.agent]),
		[[first.sessionId, 'codex']],
	);
	assert.ok(transcripts[0]!.userRequests >= 2 && transcripts[0]!.toolCalls >= 4, `requests and calls counted: ${JSON.stringify(transcripts[0])}`);
	const shown = w.baton(['transcripts', 'show', first.sessionId]);
	assert.equal(shown.code, 0, shown.stderr);
	assert.match(shown.stdout, /Port the CSV reader/);
	assert.match(shown.stdout, /apply_patch/);
	assert.match(
		(w.batonJson(['session', 'show', session.id]).handoff as { note: string }).note,
		/Last request: "Port the CSV reader" Files changed \(4\): src\/csv\.ts, a\.txt, created\.txt, src\/app\.ts Agent's last words: "Ported\." Activity: 1 request, 3 tool calls, 1 tool error/,
		'the (write-once) handoff of the first run tells its request, files, last words and the failed call, from the rollout',
	);
	assert.deepEqual(hookLogProblems(w.hookLog()), [], 'the hook log has no warning');
});
