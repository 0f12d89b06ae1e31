/** The hook budgets (hookHost/hookBudget.ts): a session start's answers a briefing and gets more time. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hookBudgetMs, hookEventName } from '../../../src/hookHost/hookBudget';

test("a session start (every agent's spelling, and Cline's task start or resume) gets 10 s, every other event 2 s", () => {
	for (const name of ['session-start', 'SessionStart', 'sessionStart', 'task-start', 'TaskResume']) {
		assert.equal(hookBudgetMs({}, name), 10_000, name);
	}
	for (const name of ['user-prompt-submit', 'UserPromptSubmit', 'userPromptSubmitted', 'BeforeAgent', 'post-tool-use', 'stop', 'session-end', undefined]) {
		assert.equal(hookBudgetMs({}, name), 2_000, String(name));
	}
});

test("BATON_HOOK_BUDGET_MS sets every budget, a start's never below 10 s unless BATON_HOOK_START_BUDGET_MS says so", () => {
	assert.equal(hookBudgetMs({ BATON_HOOK_BUDGET_MS: '1500' }, 'user-prompt-submit'), 1_500);
	assert.equal(hookBudgetMs({ BATON_HOOK_BUDGET_MS: '1500' }, 'session-start'), 10_000);
	assert.equal(hookBudgetMs({ BATON_HOOK_BUDGET_MS: '60000' }, 'session-start'), 60_000);
	assert.equal(hookBudgetMs({ BATON_HOOK_START_BUDGET_MS: '5000' }, 'SessionStart'), 5_000);
	assert.equal(
		hookBudgetMs({ BATON_HOOK_BUDGET_MS: 'soon', BATON_HOOK_START_BUDGET_MS: '-1' }, 'SessionStart'),
		10_000,
		'values that are not a positive number are ignored',
	);
});

test("the event is named by the hook's argument, else by its payload", () => {
	assert.equal(hookEventName(['session-start', '--agent', 'codex'], '{}'), 'session-start');
	assert.equal(hookEventName(['hook', 'sessionStart', '--agent', 'copilot'], '{}'), 'sessionStart');
	assert.equal(hookEventName(['--agent', 'claude'], JSON.stringify({ hook_event_name: 'SessionStart' })), 'SessionStart');
	assert.equal(hookEventName(['--workspace', '/w'], JSON.stringify({ hookEventName: 'sessionStart' })), 'sessionStart');
	assert.equal(hookEventName([], JSON.stringify({ hookName: 'TaskStart' })), 'TaskStart');
	assert.equal(hookEventName([], 'not json'), undefined);
});
