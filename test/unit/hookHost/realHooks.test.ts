/**
 * The published hook inputs of test/fixtures/real (see its README: VS Code's agent hooks, Claude
 * Code's tool hooks, Cline's hook inputs) through the real `baton hook` process. The documents give
 * placeholders for paths (`/path/to/workspace`, `/home/user/my-project`, `/path/to/project`): a test
 * moves only those that must point into its workspace (`cwd`, `workspaceRoots`, an edited file's
 * path) and leaves every other value as published. Expected values come from the documents.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it, type TestContext } from 'node:test';
import { tempDir } from '../helpers';
import { agentCli, repoRoot, runBaton, type Run } from '../cli/agentCli';

let cli = '';
before(async () => {
	cli = await agentCli();
});

const realRoot = path.join(repoRoot, 'test', 'fixtures', 'real');

function real(file: string): Record<string, any> {
	return JSON.parse(fs.readFileSync(path.join(realRoot, file), 'utf8')) as Record<string, any>;
}

interface Workspace {
	root: string;
	baton: (args: string[], input?: string) => Run;
}

function workspace(t: TestContext): Workspace {
	const base = tempDir(t, 'baton-real-hooks-');
	const root = path.join(base, 'project');
	fs.mkdirSync(root);
	const baton = (args: string[], input?: string): Run =>
		runBaton(cli, root, args, { ...(input !== undefined ? { input } : {}), env: { BATON_CLAUDE_HOME: path.join(base, 'claude') } });
	assert.equal(baton(['init']).code, 0);
	return { root, baton };
}

function hookLog(root: string): string {
	// A session end answers first and finishes in the daemon: a command queued behind it waits for that.
	runBaton(cli, root, ['session', 'list', '--json']);
	return fs.readFileSync(path.join(root, '.baton', 'logs', 'hooks.log'), 'utf8');
}

function sessionsOf(w: Workspace): any[] {
	const list = w.baton(['session', 'list', '--json']);
	assert.equal(list.code, 0, list.stderr);
	return list.json?.['sessions'] as any[];
}

function timelineOf(w: Workspace): { steps: any[]; prompts: any[] } {
	const run = w.baton(['timeline', '--json']);
	assert.equal(run.code, 0, run.stderr);
	return run.json as { steps: any[]; prompts: any[] };
}

function compactCheckpoints(w: Workspace): number {
	const checkpoints = (w.baton(['checkpoint', 'list', '--json']).json?.['checkpoints'] ?? []) as any[];
	return checkpoints.filter((c) => c.trigger === 'compact').length;
}

/**
 * A VS Code payload as the hooks reference describes it: the common fields plus the event's own,
 * `cwd` moved into the workspace and `hookEventName` naming the event (the common example names
 * PreToolUse).
 */
function vsCodePayload(event: string, root: string, fields: Record<string, unknown> = real(path.join('copilot', 'vscode', `${event}.json`))): string {
	const common = real(path.join('copilot', 'vscode', 'common.json'));
	assert.equal(common['cwd'], '/path/to/workspace');
	return JSON.stringify({ ...common, ...fields, cwd: root, hookEventName: event });
}

void describe('VS Code agent hooks (hooks reference)', () => {
	void it('SessionStart … Stop, run as `baton connect copilot` writes them: a durable session, the documented answer, a prompt, a step, a compaction, the end', (t) => {
		const w = workspace(t);
		fs.mkdirSync(path.join(w.root, 'src'));
		fs.writeFileSync(path.join(w.root, 'src', 'main.ts'), 'export const port = 3000;\n');

		const start = w.baton(['hook', 'session-start'], vsCodePayload('SessionStart', w.root));
		assert.equal(start.code, 0, start.stderr);
		// "SessionStart output": {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": …}}.
		assert.deepEqual(Object.keys(start.json ?? {}), ['hookSpecificOutput'], start.stdout);
		assert.deepEqual(Object.keys(start.json?.['hookSpecificOutput']).sort(), ['additionalContext', 'hookEventName']);
		assert.equal(start.json?.['hookSpecificOutput'].hookEventName, 'SessionStart');
		assert.match(start.json?.['hookSpecificOutput'].additionalContext, /Baton briefing/);
		const sessions = sessionsOf(w);
		assert.equal(sessions.length, 1);
		assert.equal(sessions[0].status, 'active');
		assert.equal(sessions[0].agent, 'copilot');

		// UserPromptSubmit has no JSON example, only "a `prompt` field with the text the user submitted".
		const prompt = 'Move the port to an environment variable';
		assert.equal(w.baton(['hook', 'user-prompt-submit'], vsCodePayload('UserPromptSubmit', w.root, { prompt })).stdout, '');

		// The documented edit (`editFiles` of src/main.ts, `tool-123`), with the file changed between.
		const pre = w.baton(['hook', 'pre-tool-use'], vsCodePayload('PreToolUse', w.root));
		assert.equal(pre.code, 0, pre.stderr);
		assert.equal(pre.stdout, '', 'no permission decision: the normal approval flow');
		fs.writeFileSync(path.join(w.root, 'src', 'main.ts'), 'export const port = Number(process.env.PORT ?? 3000);\n');
		assert.equal(w.baton(['hook', 'post-tool-use'], vsCodePayload('PostToolUse', w.root)).stdout, '');

		// Events `baton connect` does not register, named by the payload alone: never refused.
		assert.equal(w.baton(['hook'], vsCodePayload('SubagentStart', w.root)).stdout, '');
		assert.equal(w.baton(['hook'], vsCodePayload('SubagentStop', w.root)).stdout, '');
		assert.equal(sessionsOf(w)[0].status, 'active', 'a subagent ending is not the session ending');

		assert.equal(w.baton(['hook', 'pre-compact'], vsCodePayload('PreCompact', w.root)).stdout, '');
		assert.equal(compactCheckpoints(w), 1);

		const timeline = timelineOf(w);
		assert.deepEqual(
			timeline.prompts.map((p) => [p.turn, p.text]),
			[[1, prompt]],
		);
		assert.equal(timeline.steps.length, 1, JSON.stringify(timeline.steps));
		const step = timeline.steps[0];
		assert.equal(step.toolUseId, 'tool-123');
		assert.equal(step.tool, 'editFiles');
		assert.equal(step.actor, 'agent');
		assert.equal(step.agent, 'copilot');
		assert.equal(step.turn, 1);
		assert.equal(step.captured, true);
		assert.deepEqual(
			step.files.map((f: any) => [f.path, f.change]),
			[['src/main.ts', 'modified']],
		);

		// "The Stop hook fires when the agent session ends."
		assert.equal(w.baton(['hook', 'stop'], vsCodePayload('Stop', w.root)).stdout, '');
		const after = sessionsOf(w);
		assert.equal(after.length, 1);
		assert.equal(after[0].status, 'ended');

		const log = hookLog(w.root);
		assert.match(log, /copilot session-start session-identifier → started/);
		assert.match(log, /copilot post-tool-use session-identifier → filesRecorded .*\(src\/main\.ts\)/);
		assert.match(log, /ignored unknown event SubagentStart from copilot session-identifier/);
		assert.match(log, /copilot SubagentStop session-identifier → touched/);
		assert.match(log, /copilot pre-compact session-identifier → noted/);
		assert.match(log, /copilot stop session-identifier → ended/);
		assert.doesNotMatch(log, /malformed/);
	});

	void it('the payload alone names the event and the dialect (no EVENT argument, no --agent); PreToolUse asks in the documented form while a checkpoint awaits approval', (t) => {
		const w = workspace(t);
		const start = w.baton(['hook'], vsCodePayload('SessionStart', w.root));
		assert.equal(start.json?.['hookSpecificOutput']?.hookEventName, 'SessionStart');
		const session = sessionsOf(w)[0];
		fs.writeFileSync(path.join(w.root, 'a.txt'), 'work\n');
		const created = w.baton(['checkpoint', 'create', '--session', session.id, '--cost', '9', '--json']);
		assert.equal(created.code, 0, created.stdout + created.stderr);
		assert.equal(created.json?.['checkpoint'].approvalStatus, 'pending');
		// "PreToolUse output": hookSpecificOutput with hookEventName, permissionDecision (allow, deny, ask), permissionDecisionReason.
		const ask = w.baton(['hook'], vsCodePayload('PreToolUse', w.root));
		assert.deepEqual(Object.keys(ask.json ?? {}), ['hookSpecificOutput'], ask.stdout);
		assert.deepEqual(Object.keys(ask.json?.['hookSpecificOutput']).sort(), ['hookEventName', 'permissionDecision', 'permissionDecisionReason']);
		assert.equal(ask.json?.['hookSpecificOutput'].hookEventName, 'PreToolUse');
		assert.equal(ask.json?.['hookSpecificOutput'].permissionDecision, 'ask');
		assert.match(ask.json?.['hookSpecificOutput'].permissionDecisionReason, new RegExp(created.json?.['checkpoint'].id));
		assert.equal(w.baton(['hook'], vsCodePayload('Stop', w.root)).stdout, '');
		const log = hookLog(w.root);
		assert.match(log, /copilot SessionStart session-identifier → started/);
		assert.match(log, /copilot Stop session-identifier → ended/);
		assert.equal(sessionsOf(w)[0].status, 'ended');
	});
});

/** A documented Claude Code payload with its placeholder `cwd` moved into the workspace. */
function claudePayload(event: string, root: string, edit?: (payload: Record<string, any>) => void): string {
	const payload = real(path.join('claude', `${event}.json`));
	assert.equal(payload['session_id'], 'abc123');
	payload['cwd'] = root;
	edit?.(payload);
	return JSON.stringify(payload);
}

void describe('Claude Code tool hooks (hooks reference)', () => {
	void it('PreToolUse and PostToolUse make a step with the documented tool_use_id; Stop ends a turn, not the session', (t) => {
		const w = workspace(t);
		assert.equal(w.baton(['hook'], claudePayload('SessionStart', w.root)).json?.['hookSpecificOutput']?.hookEventName, 'SessionStart');
		assert.equal(w.baton(['hook'], claudePayload('UserPromptSubmit', w.root)).stdout, '');

		const pre = w.baton(['hook'], claudePayload('PreToolUse', w.root));
		assert.equal(pre.code, 0, pre.stderr);
		assert.equal(pre.stdout, '', 'no decision: the normal permission flow');
		// The documented Write: `file content` into file.txt (its `/path/to/file.txt` moved into the workspace).
		fs.writeFileSync(path.join(w.root, 'file.txt'), 'file content');
		const post = w.baton(
			['hook'],
			claudePayload('PostToolUse', w.root, (p) => {
				assert.equal(p['tool_input'].file_path, '/path/to/file.txt');
				p['tool_input'].file_path = path.join(w.root, 'file.txt');
			}),
		);
		assert.equal(post.stdout, '');

		const stop = w.baton(['hook'], claudePayload('Stop', w.root));
		assert.equal(stop.code, 0, stop.stderr);
		assert.equal(stop.stdout, '');
		const sessions = sessionsOf(w);
		assert.equal(sessions.length, 1);
		assert.equal(sessions[0].status, 'active', "Claude's Stop ends a turn");

		const timeline = timelineOf(w);
		assert.deepEqual(
			timeline.prompts.map((p) => p.text),
			['Write a function to calculate the factorial of a number'],
		);
		assert.equal(timeline.steps.length, 1, JSON.stringify(timeline.steps));
		const step = timeline.steps[0];
		assert.equal(step.toolUseId, 'toolu_01ABC123...');
		assert.equal(step.agent, 'claude-code');
		assert.equal(step.captured, true);
		// The documents give their Bash PreToolUse and Write PostToolUse one id: one call, named by its PreToolUse.
		assert.equal(step.tool, 'Bash');
		assert.equal(step.summary, 'npm test');
		assert.deepEqual(
			step.files.map((f: any) => [f.path, f.change]),
			[['file.txt', 'added']],
		);
		const log = hookLog(w.root);
		assert.match(log, /claude-code PostToolUse abc123 → filesRecorded .*\(file\.txt\)/);
		assert.match(log, /claude-code Stop abc123 → touched/);
		assert.doesNotMatch(log, /malformed/);
	});
});

/** Cline's answer on stdout: `cancel` a boolean, and only the keys its documentation lists. */
function assertClineAnswer(run: Run, what: string): Record<string, any> {
	assert.equal(run.code, 0, run.stderr);
	assert.ok(run.json, `${what}: ${run.stdout}`);
	assert.equal(typeof run.json['cancel'], 'boolean', what);
	for (const key of Object.keys(run.json)) {
		assert.ok(['cancel', 'contextModification', 'errorMessage'].includes(key), `${what}: ${key}`);
	}
	return run.json;
}

/** hooks.mdx's common input fields (its `//` comment line dropped), `workspaceRoots` in the workspace. */
function clineCommon(root: string): Record<string, any> {
	const text = fs.readFileSync(path.join(realRoot, 'cline', 'input-common.jsonc'), 'utf8');
	const common = JSON.parse(text.replace(/^\s*\/\/.*$/gm, '')) as Record<string, any>;
	assert.deepEqual(common['workspaceRoots'], ['/path/to/project']);
	return { ...common, workspaceRoots: [root] };
}

/** A hooks.mdx payload for `hookName`: the common fields without TaskStart's object, plus the hook's own. */
function clinePayload(hookName: string, root: string): string {
	const { taskStart: _taskStart, ...common } = clineCommon(root);
	return JSON.stringify({ ...common, ...real(path.join('cline', `input-${hookName}.json`)), hookName });
}

void describe('Cline hook inputs (Cline documentation)', () => {
	void it('the concrete examples: TaskStart briefs, PreToolUse blocks while a checkpoint awaits approval, PostToolUse carries on with a step, PreCompact makes the compact checkpoint', (t) => {
		const w = workspace(t);
		const start = assertClineAnswer(w.baton(['hook'], JSON.stringify({ ...clineCommon(w.root), hookName: 'TaskStart' })), 'TaskStart');
		assert.deepEqual(Object.keys(start).sort(), ['cancel', 'contextModification']);
		assert.equal(start['cancel'], false);
		assert.match(start['contextModification'], /Baton briefing/);
		assert.equal(sessionsOf(w)[0].status, 'active');

		// The common example as published: it names PreToolUse but carries TaskStart's object (no tool).
		assert.deepEqual(assertClineAnswer(w.baton(['hook'], JSON.stringify(clineCommon(w.root))), 'common example'), { cancel: false });
		// While a checkpoint of the task awaits approval, the documented write_to_file is blocked the documented way.
		fs.writeFileSync(path.join(w.root, 'a.txt'), 'work\n');
		const checkpoint = w.baton(['checkpoint', 'create', '--session', sessionsOf(w)[0].id, '--cost', '9', '--json']).json?.['checkpoint'];
		assert.equal(checkpoint?.approvalStatus, 'pending');
		const blocked = assertClineAnswer(w.baton(['hook'], clinePayload('PreToolUse', w.root)), 'PreToolUse');
		assert.deepEqual(Object.keys(blocked).sort(), ['cancel', 'errorMessage']);
		assert.equal(blocked['cancel'], true);
		assert.match(blocked['errorMessage'], new RegExp(checkpoint.id));
		assert.equal(w.baton(['checkpoint', 'approve', checkpoint.id]).code, 0);
		assert.deepEqual(assertClineAnswer(w.baton(['hook'], clinePayload('PostToolUse', w.root)), 'PostToolUse'), { cancel: false });
		assert.deepEqual(assertClineAnswer(w.baton(['hook'], clinePayload('PreCompact', w.root)), 'PreCompact'), { cancel: false });
		assert.equal(compactCheckpoints(w), 1);

		// Cline's tool calls carry no id; the documented PostToolUse (`execute_command` `npm test`) is a step.
		const steps = timelineOf(w).steps;
		assert.deepEqual(
			steps.map((s) => [s.actor, s.agent, s.tool, s.summary, s.toolUseId]),
			[['agent', 'cline', 'execute_command', 'npm test', null]],
		);
		const log = hookLog(w.root);
		assert.match(log, /cline TaskStart abc123 → started/);
		assert.match(log, /cline PostToolUse abc123 → captured/);
		assert.match(log, /cline PreCompact abc123 → noted/);
		assert.doesNotMatch(log, /malformed/);
	});

	void it('the hook reference’s payload for every hook it lists (type placeholders as values): each answered as Cline expects, the task’s life followed', (t) => {
		const w = workspace(t);
		const send = (hook: string): Record<string, any> => {
			const payload = real(path.join('cline', `schema-${hook}.json`));
			assert.equal(payload['hookName'], hook);
			assert.deepEqual(payload['workspaceRoots'], ['string']);
			return assertClineAnswer(w.baton(['hook'], JSON.stringify({ ...payload, workspaceRoots: [w.root] })), hook);
		};
		assert.equal(send('TaskStart')['cancel'], false);
		assert.equal(sessionsOf(w)[0].status, 'active');
		assert.deepEqual(send('UserPromptSubmit'), { cancel: false });
		assert.deepEqual(send('PreToolUse'), { cancel: false });
		assert.deepEqual(send('TaskCancel'), { cancel: false });
		assert.equal(sessionsOf(w)[0].status, 'suspended', 'a cancelled task can be resumed');
		assert.equal(send('TaskResume')['cancel'], false);
		assert.equal(sessionsOf(w)[0].status, 'active');
		assert.deepEqual(send('TaskComplete'), { cancel: false });
		const sessions = sessionsOf(w);
		assert.equal(sessions.length, 1);
		assert.equal(sessions[0].status, 'ended');
		assert.deepEqual(
			timelineOf(w).prompts.map((p) => p.text),
			['string'],
		);
		const log = hookLog(w.root);
		for (const line of [
			/cline TaskStart string → started/,
			/cline TaskCancel string → suspended/,
			/cline TaskResume string → continued/,
			/cline TaskComplete string → ended/,
		]) {
			assert.match(log, line);
		}
		assert.doesNotMatch(log, /malformed/);
	});
});
