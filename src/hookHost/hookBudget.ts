/**
 * A hook's budget: how long it has to hand its event over (docs/daemon.md, "The hook spool"). Built-ins
 * only: dist/cli.js reads it before it loads anything else.
 *
 * A session start answers with the briefing the agent starts from, and a start that spooled its event
 * would leave the agent blind (the event is kept; the answer cannot be given late). It gets 10 s
 * (`BATON_HOOK_START_BUDGET_MS`, never less than the general budget): `baton connect` gives these hooks
 * 15 s in every agent's configuration (Copilot's own default is 30 s), and the rest is left for Node's
 * start and the spool's write on a loaded machine. Every other event — a prompt included, which answers
 * nothing while the agent holds the person's prompt until the hook exits — gets `BATON_HOOK_BUDGET_MS`
 * (2 s): its event is spooled, never lost, and the agent is not held up.
 */

const defaultHookBudgetMs = 2_000;
const defaultStartBudgetMs = 10_000;

/** Events that answer a briefing: Claude's, Codex's, Gemini's and Copilot's session start, Cline's task start and resume. */
const startEvents = new Set(['sessionstart', 'taskstart', 'taskresume']);

function positiveMs(value: string | undefined): number | undefined {
	const n = Number(value ?? '');
	return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** The hook's event name: its argument (`[hook] session-start`), else the payload's. */
export function hookEventName(hookArgs: readonly string[], payload: string): string | undefined {
	const positional = hookArgs.find(
		(a, i) => a !== 'hook' && !a.startsWith('-') && !(i > 0 && (hookArgs[i - 1] === '--agent' || hookArgs[i - 1] === '--workspace')),
	);
	if (positional) {
		return positional;
	}
	try {
		const raw = JSON.parse(payload) as Record<string, unknown> | null;
		const name = raw?.['hook_event_name'] ?? raw?.['hookEventName'] ?? raw?.['hookName'];
		return typeof name === 'string' ? name : undefined;
	} catch {
		return undefined;
	}
}

/** Whether this event name is one that answers a briefing (any spelling: `session-start`, `SessionStart`, `sessionStart`). */
function answersBriefing(eventName: string | undefined): boolean {
	return !!eventName && startEvents.has(eventName.toLowerCase().replace(/[^a-z]/g, ''));
}

/** The budget for this event, in ms. */
export function hookBudgetMs(env: NodeJS.ProcessEnv, eventName: string | undefined): number {
	const general = positiveMs(env['BATON_HOOK_BUDGET_MS']) ?? defaultHookBudgetMs;
	return answersBriefing(eventName) ? (positiveMs(env['BATON_HOOK_START_BUDGET_MS']) ?? Math.max(defaultStartBudgetMs, general)) : general;
}
