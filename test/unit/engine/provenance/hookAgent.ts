/**
 * An agent that edits through the real turn capture: every edit is a Claude Code tool call whose
 * PreToolUse and PostToolUse payloads (Claude Code's own shape: `Write` with the whole content for a
 * new file, `Edit` with `old_string`/`new_string` otherwise) are piped into the bundled `baton hook`
 * as processes, around the real change of the file. Sessions start, prompt and end the same way.
 * The step numbers the capture gave are read back at the end with `baton timeline --json`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { agentCli, runBaton, type Run } from '../../cli/agentCli';
import { commonEnds } from '../../../../src/engine/text/commonEnds';
import { tempDir } from '../../helpers';
import { ScriptedRepo } from './scriptedRepo';

/** The model the scripted agent's transcript names (Claude Code's tool hooks name none; the transcript does). */
export const transcriptModel = 'claude-sonnet-4-5-20250929';

export interface AgentTruth {
	origin: 'agent';
	/** Filled in by `resolveSteps` from the capture's own records. */
	session: string;
	step: number;
	toolUseId: string;
}

export class HookAgent {
	private turns = 0;
	private calls = 0;

	constructor(
		private readonly cli: string,
		private readonly root: string,
		private readonly claudeHome: string,
		/** Claude Code's session id (not Baton's). */
		readonly claudeSession: string,
	) {}

	baton(args: string[], input?: string): Run {
		return runBaton(this.cli, this.root, args, { ...(input !== undefined ? { input } : {}), env: { BATON_CLAUDE_HOME: this.claudeHome } });
	}

	private hook(payload: Record<string, unknown>): void {
		const run = this.baton(
			['hook'],
			JSON.stringify({
				session_id: this.claudeSession,
				transcript_path: path.join(this.claudeHome, 'projects', 'p', `${this.claudeSession}.jsonl`),
				cwd: this.root,
				permission_mode: 'default',
				...payload,
			}),
		);
		assert.equal(run.code, 0, run.stderr);
		assert.equal(run.stderr, '', `the ${String(payload['hook_event_name'])} hook wrote nothing on stderr`);
	}

	start(source: 'startup' | 'resume' = 'startup'): void {
		this.hook({ hook_event_name: 'SessionStart', source, model: 'claude-sonnet-4-5-20250929' });
	}

	end(): void {
		this.hook({ hook_event_name: 'SessionEnd', reason: 'other' });
	}

	prompt(text: string): void {
		this.turns++;
		this.hook({ hook_event_name: 'UserPromptSubmit', prompt: text });
	}

	/**
	 * One tool call changing `file`: `change` updates the script's model and writes the new content;
	 * the file is put back first so that PreToolUse sees the workspace as it was, then the new content
	 * is written between the two hooks, as the tool would.
	 */
	edit(file: string, change: (truth: AgentTruth) => void): AgentTruth {
		const full = path.join(this.root, file);
		const before = fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : undefined;
		const truth: AgentTruth = {
			origin: 'agent',
			session: '',
			step: -1,
			toolUseId: `toolu_01${this.claudeSession.slice(0, 6)}${String(++this.calls).padStart(4, '0')}Edit`,
		};
		change(truth);
		const after = fs.readFileSync(full, 'utf8');
		if (before === undefined) {
			fs.rmSync(full);
		} else {
			fs.writeFileSync(full, before);
		}
		const tool =
			before === undefined
				? { tool_name: 'Write', tool_input: { file_path: full, content: after } }
				: { tool_name: 'Edit', tool_input: { file_path: full, ...editStrings(before, after) } };
		// As Claude Code does: the assistant's message asking for the tool is in the transcript before the tool runs.
		const transcript = path.join(this.claudeHome, 'projects', 'p', `${this.claudeSession}.jsonl`);
		fs.mkdirSync(path.dirname(transcript), { recursive: true });
		fs.appendFileSync(
			transcript,
			`${JSON.stringify({ type: 'assistant', sessionId: this.claudeSession, cwd: this.root, timestamp: new Date().toISOString(), message: { model: transcriptModel, role: 'assistant', type: 'message', content: [{ type: 'tool_use', id: truth.toolUseId, name: tool.tool_name, input: tool.tool_input }] } })}\n`,
		);
		this.hook({ hook_event_name: 'PreToolUse', ...tool, tool_use_id: truth.toolUseId });
		fs.writeFileSync(full, after);
		const response =
			before === undefined
				? { type: 'create', filePath: full, content: after, structuredPatch: [] }
				: {
						filePath: full,
						oldString: tool.tool_input['old_string' as keyof typeof tool.tool_input],
						newString: tool.tool_input['new_string' as keyof typeof tool.tool_input],
						originalFile: before,
						structuredPatch: [],
						userModified: false,
						replaceAll: false,
					};
		this.hook({ hook_event_name: 'PostToolUse', ...tool, tool_response: response, tool_use_id: truth.toolUseId });
		return truth;
	}
}

/** The smallest `old_string` → `new_string` replacement turning `before` into `after` (whole lines, never empty). */
function editStrings(before: string, after: string): { old_string: string; new_string: string } {
	const a = before.split('\n');
	const b = after.split('\n');
	const ends = commonEnds(a, b);
	let start = ends.start;
	const { endA, endB } = ends;
	// A pure insertion anchors on the line before it, as an agent's Edit must name existing text.
	if (endA === start && start > 0) {
		start--;
	}
	return { old_string: a.slice(start, endA).join('\n'), new_string: b.slice(start, endB).join('\n') };
}

/** Fills each truth's Baton session and step number from the capture's records (by tool-use id). */
export function resolveSteps(run: (args: string[]) => Run, truths: readonly AgentTruth[]): void {
	const list = run(['session', 'list', '--json']);
	assert.equal(list.code, 0, list.stderr);
	const byToolUse = new Map<string, { session: string; step: number }>();
	for (const session of (list.json?.['sessions'] ?? []) as { id: string }[]) {
		const timeline = run(['timeline', '--session', session.id, '--json']);
		assert.equal(timeline.code, 0, timeline.stderr);
		for (const step of (timeline.json?.['steps'] ?? []) as { step: number; toolUseId: string | null; captured: boolean }[]) {
			if (step.toolUseId) {
				byToolUse.set(step.toolUseId, { session: session.id, step: step.step });
			}
		}
	}
	for (const truth of truths) {
		const found = byToolUse.get(truth.toolUseId);
		assert.ok(found, `the capture recorded tool call ${truth.toolUseId}`);
		truth.session = found.session;
		truth.step = found.step;
	}
}

/**
 * The start of a test about attributing agent edits through the real capture: a git repository whose
 * first commit holds a person's `src/app.ts` (on the real clock, as the hooks stamp steps with it),
 * `baton init`, and one Claude Code session started through its SessionStart hook.
 */
export async function hookWorld(t: TestContext, prefix: string): Promise<{ root: string; repo: ScriptedRepo; agent: HookAgent }> {
	const base = tempDir(t, prefix);
	const root = path.join(base, 'project');
	fs.mkdirSync(root);
	const repo = new ScriptedRepo(root, true);
	repo.git(['init', '-q', '-b', 'main']);
	fs.writeFileSync(path.join(root, '.gitignore'), '.baton/\n');
	repo.addFunction('src/app.ts', 'start', 1, { origin: 'human' });
	repo.commit('init');
	const agent = new HookAgent(await agentCli(), root, path.join(base, 'claude'), '3c5e8a10-7d2b-4f61-a9c4-2e8b6d0f1a57');
	const init = agent.baton(['init']);
	assert.equal(init.code, 0, init.stderr);
	agent.start();
	return { root, repo, agent };
}
