/**
 * The real Claude Code calls Baton's tool-call hooks over HTTP (docs/daemon.md, "HTTP hooks"): no
 * process per tool call. `baton connect claude` writes them into the per-machine
 * `.claude/settings.local.json`; the daemon's log says how each event arrived (`hook/http …` for the
 * endpoint, `hook/run …` for a hook process). And with the backend killed in the middle of a turn,
 * what the agent did is still recorded.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { agentWorld, hookLogProblems, type AgentWorld } from './agentWorld';
import { runClaude } from './claudeCode';
import { anthropicStandIn } from './standIns/anthropic';

interface Step {
	actor: string;
	tool: string | null;
	files: { path: string; change: string }[];
}

function daemonLog(w: AgentWorld): string {
	return fs.readFileSync(path.join(w.root, '.baton', 'logs', 'daemon.log'), 'utf8');
}

function stepsOf(w: AgentWorld): Step[] {
	const sessions = w.batonJson(['session', 'list']).sessions as { id: string; agent: string | null }[];
	const session = sessions.find((s) => s.agent === 'claude-code');
	assert.ok(session, `a Claude Code session: ${JSON.stringify(sessions)}`);
	return (w.batonJson(['timeline', '--session', session.id]).entries as (Step & { type: string })[]).filter((e) => e.type === 'step');
}

const shown = (steps: Step[]) =>
	steps.map(
		(s) =>
			`${s.actor} ${s.tool} ${s.files
				.map((f) => `${f.change[0]?.toUpperCase()} ${f.path}`)
				.sort()
				.join(', ')}`,
	);

test('Claude Code’s tool calls reach the warm backend over HTTP: each call a step with its files, and no hook process ran for them', async (t) => {
	const w = agentWorld(t, 'claude-http');
	// The session start opens the engine in a new daemon: on a loaded machine past the 2 s default,
	// and then it is spooled (a warning in the hook log). What this test is about is the tool calls.
	w.env['BATON_HOOK_BUDGET_MS'] = '60000';
	const connected = w.baton(['connect', 'claude']);
	assert.equal(connected.code, 0, connected.stderr);
	const committed = JSON.parse(fs.readFileSync(path.join(w.root, '.claude', 'settings.json'), 'utf8')) as { hooks: Record<string, unknown> };
	assert.deepEqual(
		Object.keys(committed.hooks).sort(),
		['Notification', 'PermissionRequest', 'PreCompact', 'SessionEnd', 'SessionStart', 'Stop', 'StopFailure', 'UserPromptSubmit'],
		'the committed file has no hook on every tool call (PermissionRequest runs only when Claude would ask a person): Claude can start no process for one',
	);
	const local = fs.readFileSync(path.join(w.root, '.claude', 'settings.local.json'), 'utf8');
	assert.match(local, /"type": "http"/);

	const model = await anthropicStandIn();
	t.after(() => model.close());
	const file = (p: string) => path.join(w.root, p);
	model.script([
		{ tools: [{ name: 'Write', input: { file_path: file('src/http.ts'), content: 'export const viaHttp = true;\n' } }] },
		{ tools: [{ name: 'Bash', input: { command: 'echo beta >> a.txt', description: 'append' } }] },
		{ text: 'Done.' },
	]);
	await runClaude(w, model, 'Write the http module');
	assert.equal(model.remaining(), 0);
	assert.deepEqual(shown(stepsOf(w)), ['agent Write A src/http.ts', 'agent Bash M a.txt'], 'each call one step with exactly its files');

	const log = daemonLog(w);
	for (const event of ['pre-tool-use', 'post-tool-use']) {
		assert.equal(log.match(new RegExp(`hook/http ${event} → 200`, 'g'))?.length, 2, `both calls' ${event} came over HTTP:\n${log}`);
		assert.doesNotMatch(log, new RegExp(`hook/run hook ${event}`), `no hook process sent a ${event}`);
	}
	assert.match(log, /hook\/run hook session-start → exit 0/, 'the session start is still a command hook (Claude runs no http hook for it)');
	assert.deepEqual(hookLogProblems(w.hookLog()), [], 'the hook log has no warning');
});

test('with the backend killed in the middle of a turn, nothing the agent did is lost, and the next run is served over HTTP again', async (t) => {
	const w = agentWorld(t, 'claude-down');
	assert.equal(w.baton(['connect', 'claude']).code, 0);
	const model = await anthropicStandIn();
	t.after(() => model.close());
	const file = (p: string) => path.join(w.root, p);
	const kill = `kill -9 "$(node -p 'require("./.baton/daemon.json").pid')"`;
	model.script([
		{ tools: [{ name: 'Bash', input: { command: kill, description: 'the backend goes down' } }] },
		{ tools: [{ name: 'Write', input: { file_path: file('down.ts'), content: 'export const whileDown = 1;\n' } }] },
		{ tools: [{ name: 'Bash', input: { command: 'echo gamma >> a.txt', description: 'append' } }] },
		{ text: 'Written while the backend was down.' },
	]);
	await runClaude(w, model, 'Work while the backend is down');
	assert.equal(model.remaining(), 0);
	// The three calls whose PostToolUse found no backend are recorded from the transcript at the turn's
	// end, each a step, and every change is on the timeline: in the step of the call in flight when
	// the backend went, as for any run of calls whose results came together.
	assert.deepEqual(
		shown(stepsOf(w)),
		['agent Bash A down.ts, M a.txt', 'agent Write ', 'agent Bash '],
		`${JSON.stringify(stepsOf(w), null, 1)}\n${w.hookLog()}`,
	);
	assert.match(w.hookLog(), /3 tool call\(s\) whose hook never reached Baton recorded from the transcript/);

	model.script([{ tools: [{ name: 'Write', input: { file_path: file('up.ts'), content: 'export const up = 1;\n' } }] }, { text: 'Up again.' }]);
	await runClaude(w, model, 'And now with the backend up', ['--continue']);
	assert.deepEqual(shown(stepsOf(w)).slice(-1), ['agent Write A up.ts']);
	// The killed daemon answered only the kill's pre-tool-use; the call after the restart came over HTTP to the new one.
	assert.equal(daemonLog(w).match(/hook\/http post-tool-use → 200/g)?.length, 1, daemonLog(w));
});
