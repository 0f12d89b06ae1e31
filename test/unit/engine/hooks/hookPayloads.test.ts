/**
 * Hook payload normalisation over the recorded payloads of all three dialects, and its traps.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { filesNamedBy, filesTouchedBy, isEditTool, patchFiles, workspaceRelative } from '../../../../src/engine/transcripts/editTools';
import type { HookKind } from '../../../../src/engine/hookEvent';
import { normaliseHookPayload } from '../../../../src/engine/hooks/normaliseHookPayload';
import { fixtureNames, hookFixture, type Dialect } from '../../cli/agentCli';

const where = { root: '/w/project', claudeHome: '/w/claude' };

/** What each recorded payload must normalise to. */
const expected: Record<Dialect, Record<string, { kind: HookKind; agent: string; id: string; files?: string[]; reason?: string | null }>> = {
	claude: {
		'session-start-startup': { kind: 'sessionStart', agent: 'claude-code', id: '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33' },
		'session-start-resume': { kind: 'resume', agent: 'claude-code', id: '0b9e77d1-8c3a-4f5e-a2d6-71c4e9b3f802' },
		'session-start-clear': { kind: 'clear', agent: 'claude-code', id: 'a4d2c8f0-19be-4e6a-8f3c-2b7e5d9a0c14' },
		'session-start-compact': { kind: 'compact', agent: 'claude-code', id: '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33' },
		'user-prompt-submit': { kind: 'userPrompt', agent: 'claude-code', id: '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33' },
		'pre-tool-use': { kind: 'preToolUse', agent: 'claude-code', id: '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33', files: ['/w/project/src/auth/tokens.ts'] },
		'pre-tool-use-bash': { kind: 'preToolUse', agent: 'claude-code', id: '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33', files: [] },
		'post-tool-use': { kind: 'postToolUse', agent: 'claude-code', id: '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33', files: ['/w/project/src/auth/rotation.ts'] },
		'post-tool-use-read': { kind: 'postToolUse', agent: 'claude-code', id: '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33', files: [] },
		stop: { kind: 'stop', agent: 'claude-code', id: '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33' },
		'subagent-stop': { kind: 'subagentStop', agent: 'claude-code', id: '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33' },
		'pre-compact': { kind: 'preCompact', agent: 'claude-code', id: '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33' },
		'session-end': { kind: 'sessionEnd', agent: 'claude-code', id: '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33', reason: 'prompt_input_exit' },
		'session-end-clear': { kind: 'sessionEnd', agent: 'claude-code', id: '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33', reason: 'clear' },
		notification: { kind: 'notification', agent: 'claude-code', id: '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33' },
	},
	copilot: {
		'session-start': { kind: 'sessionStart', agent: 'copilot', id: 'b2c7e4a1-5f3d-4e8b-9a61-0d2c8f7e3b45' },
		'user-prompt-submit': { kind: 'userPrompt', agent: 'copilot', id: 'b2c7e4a1-5f3d-4e8b-9a61-0d2c8f7e3b45' },
		'pre-tool-use': { kind: 'preToolUse', agent: 'copilot', id: 'b2c7e4a1-5f3d-4e8b-9a61-0d2c8f7e3b45', files: ['/w/project/test/login.test.ts'] },
		'post-tool-use': {
			kind: 'postToolUse',
			agent: 'copilot',
			id: 'b2c7e4a1-5f3d-4e8b-9a61-0d2c8f7e3b45',
			files: ['/w/project/test/login.test.ts', '/w/project/test/helpers/wait.ts'],
		},
		'pre-compact': { kind: 'preCompact', agent: 'copilot', id: 'b2c7e4a1-5f3d-4e8b-9a61-0d2c8f7e3b45' },
		'subagent-start': { kind: 'unknown', agent: 'copilot', id: 'b2c7e4a1-5f3d-4e8b-9a61-0d2c8f7e3b45' },
		'subagent-stop': { kind: 'subagentStop', agent: 'copilot', id: 'b2c7e4a1-5f3d-4e8b-9a61-0d2c8f7e3b45' },
		stop: { kind: 'sessionEnd', agent: 'copilot', id: 'b2c7e4a1-5f3d-4e8b-9a61-0d2c8f7e3b45', reason: 'stop' },
	},
	cline: {
		'task-start': { kind: 'sessionStart', agent: 'cline', id: '1740819600123' },
		'task-resume': { kind: 'resume', agent: 'cline', id: '1740819600123' },
		'task-cancel': { kind: 'sessionEnd', agent: 'cline', id: '1740819600123', reason: 'cancel' },
		'task-complete': { kind: 'sessionEnd', agent: 'cline', id: '1740819600123', reason: 'complete' },
		'user-prompt-submit': { kind: 'userPrompt', agent: 'cline', id: '1740819600123' },
		'pre-tool-use': { kind: 'preToolUse', agent: 'cline', id: '1740819600123', files: ['/w/project/src/api/orders.ts'] },
		'post-tool-use': { kind: 'postToolUse', agent: 'cline', id: '1740819600123', files: ['/w/project/src/api/orders.ts'] },
		'pre-compact': { kind: 'preCompact', agent: 'cline', id: '1740819600123' },
	},
};

void describe('hook payload normalisation', () => {
	for (const dialect of ['claude', 'copilot', 'cline'] as const) {
		void it(`reads every recorded ${dialect} payload`, () => {
			assert.deepEqual(fixtureNames(dialect), Object.keys(expected[dialect]).sort(), 'every fixture has an expectation and the reverse');
			for (const name of fixtureNames(dialect)) {
				const want = expected[dialect][name];
				const result = normaliseHookPayload(hookFixture(dialect, name, where));
				assert.ok(result.ok, `${dialect}/${name}: ${result.ok ? '' : result.problem}`);
				const event = result.event;
				assert.equal(event.kind, want?.kind, `${dialect}/${name} kind`);
				assert.equal(event.agent, want?.agent, `${dialect}/${name} agent`);
				assert.equal(event.agentSessionId, want?.id, `${dialect}/${name} id`);
				assert.equal(event.cwd, '/w/project', `${dialect}/${name} cwd`);
				if (want?.files) {
					assert.deepEqual(event.tool?.filesTouched, want.files, `${dialect}/${name} files`);
				}
				if (want?.reason !== undefined) {
					assert.equal(event.reason, want.reason, `${dialect}/${name} reason`);
				}
			}
		});
	}

	void it("reads current Copilot Chat's payloads, in Claude's field names, as Copilot's", () => {
		// microsoft/vscode-copilot-chat ChatHookService.executeHook now writes its common input as
		// { timestamp, hook_event_name, session_id, transcript_path }; VS Code runs `.claude/settings.json`'s
		// hooks as well, so nothing but the payload says that Copilot called. Claude Code sends no timestamp.
		for (const name of fixtureNames('copilot')) {
			const { sessionId, hookEventName, ...rest } = hookFixture('copilot', name, where);
			const result = normaliseHookPayload({ ...rest, session_id: sessionId, hook_event_name: hookEventName });
			assert.ok(result.ok, name);
			assert.equal(result.event.agent, 'copilot', name);
			assert.equal(result.event.kind, expected.copilot[name]?.kind, name);
			assert.equal(result.event.agentSessionId, expected.copilot[name]?.id, name);
		}
		for (const name of fixtureNames('claude')) {
			const result = normaliseHookPayload(hookFixture('claude', name, where));
			assert.ok(result.ok && result.event.agent === 'claude-code', `${name} stays Claude Code's`);
		}
		const gemini = normaliseHookPayload(hookFixture('board' as Dialect, 'gemini-notification', where));
		assert.ok(gemini.ok);
		assert.equal(gemini.event.agent, 'gemini', "a chat in Gemini's own folder is Gemini's, even without --agent");
	});

	void it('keeps the dialect traps apart: Claude Stop is a turn, Copilot Stop is the end', () => {
		const claudeStop = normaliseHookPayload(hookFixture('claude', 'stop', where));
		const copilotStop = normaliseHookPayload(hookFixture('copilot', 'stop', where));
		assert.ok(claudeStop.ok && copilotStop.ok);
		assert.equal(claudeStop.event.kind, 'stop');
		assert.equal(copilotStop.event.kind, 'sessionEnd');
		// The same explicit argument means the same thing per dialect too.
		const forcedStop = normaliseHookPayload(hookFixture('copilot', 'user-prompt-submit', where), { event: 'stop' });
		assert.ok(forcedStop.ok);
		assert.equal(forcedStop.event.kind, 'sessionEnd');
	});

	void it('lets an explicit kebab-case EVENT override the payload, and --agent override the dialect', () => {
		const payload = hookFixture('claude', 'session-start-startup', where);
		const cases: [string, HookKind][] = [
			['session-start', 'sessionStart'],
			['stop', 'stop'],
			['pre-compact', 'preCompact'],
			['session-end', 'sessionEnd'],
			['pre-tool-use', 'preToolUse'],
			['post-tool-use', 'postToolUse'],
			['user-prompt-submit', 'userPrompt'],
			['subagent-stop', 'subagentStop'],
			['task-complete', 'sessionEnd'],
			['bogus-event', 'unknown'],
		];
		for (const [arg, kind] of cases) {
			const result = normaliseHookPayload(payload, { event: arg });
			assert.ok(result.ok, arg);
			assert.equal(result.event.kind, kind, arg);
			assert.equal(result.event.eventName, arg);
		}
		const resumed = normaliseHookPayload(hookFixture('claude', 'session-start-resume', where), { event: 'session-start' });
		assert.ok(resumed.ok);
		assert.equal(resumed.event.kind, 'resume', 'the source still tells a resume from a start');
		const forced = normaliseHookPayload(payload, { agent: 'copilot' });
		assert.ok(forced.ok);
		assert.equal(forced.event.agent, 'copilot');
	});

	void it('refuses malformed payloads with a reason and ignores unknown fields', () => {
		const bad: [unknown, RegExp][] = [
			[null, /not a JSON object/],
			[[1, 2], /not a JSON object/],
			['text', /not a JSON object/],
			[{ hook_event_name: 'Stop' }, /no session id/],
			[{ session_id: 42, hook_event_name: 'Stop' }, /session_id/],
			[{ session_id: '', hook_event_name: 'Stop' }, /session_id/],
			[{ session_id: 'a' }, /no event name/],
			[{ session_id: 'a', hook_event_name: 'Stop', cwd: 7 }, /cwd/],
			[{ taskId: 't', hookName: 'TaskStart', workspaceRoots: 'nope' }, /workspaceRoots/],
		];
		for (const [payload, problem] of bad) {
			const result = normaliseHookPayload(payload);
			assert.equal(result.ok, false, JSON.stringify(payload));
			assert.match(result.ok ? '' : result.problem, problem);
		}
		const extra = normaliseHookPayload({ ...hookFixture('claude', 'stop', where), brand_new_field: { nested: true } });
		assert.ok(extra.ok);
	});

	void it('knows which tools edit and which files they name, in every dialect', () => {
		for (const name of [
			'Edit',
			'Write',
			'MultiEdit',
			'NotebookEdit',
			'apply_patch',
			'editFiles',
			'create_file',
			'replace_string_in_file',
			'multi_replace_string_in_file',
			'insert_edit_into_file',
			'write_to_file',
			'replace_in_file',
		]) {
			assert.equal(isEditTool(name), true, name);
		}
		for (const name of ['Read', 'Bash', 'Grep', 'Glob', 'read_file', 'run_in_terminal', 'execute_command', 'TodoWrite', 'WebFetch']) {
			assert.equal(isEditTool(name), false, name);
		}
		assert.deepEqual(filesNamedBy({ notebook_path: '/w/project/a.ipynb' }), ['/w/project/a.ipynb']);
		assert.deepEqual(filesNamedBy({ replacements: [{ filePath: 'a.ts' }, { filePath: 'b.ts' }, { filePath: 'a.ts' }] }), ['a.ts', 'b.ts']);
		const patch =
			'*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** Add File: src/new.ts\n+z\n*** Delete File: old.ts\n*** Update File: src/b.ts\n*** Move to: src/c.ts\n*** End Patch';
		assert.deepEqual(patchFiles(patch), ['src/a.ts', 'src/new.ts', 'old.ts', 'src/b.ts', 'src/c.ts']);
		assert.deepEqual(filesTouchedBy('apply_patch', { input: patch }, '/w/project'), ['src/a.ts', 'src/new.ts', 'old.ts', 'src/b.ts', 'src/c.ts']);
		assert.deepEqual(filesTouchedBy('Read', { file_path: '/w/project/x' }, '/w/project'), []);
		assert.equal(workspaceRelative('/w/project/src/x.ts', '/w/project'), 'src/x.ts');
		assert.equal(workspaceRelative('lib/y.ts', '/w/project', '/w/project/pkg'), 'pkg/lib/y.ts');
		assert.equal(workspaceRelative('/etc/hosts', '/w/project'), path.resolve('/etc/hosts'));
	});
});
