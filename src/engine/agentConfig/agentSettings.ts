/**
 * How Baton treats agent hooks in a workspace: `.baton/agents.json` (all keys optional). It is a file
 * of its own because `.baton/config.json` is validated strictly by the engine's schema; it can move
 * into that schema as an `agents` section later without changing these names.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { BatonError } from '../errors';
import type { Logger } from '../ports';
import { batonDir } from '../workspace';

/** Characters of briefing an agent gets at session start unless `.baton/agents.json` says otherwise. */
export const defaultBriefingBudget = 4_000;

export const agentSettingsSchema = z
	.object({
		/**
		 * The scope of sessions that agents start: a scope (`global`, `epic:T1`, …) or `current-task`
		 * (`task:<id>` of the one task in progress, else global).
		 */
		scope: z.string().min(1).default('global'),
		/** Characters of briefing injected at session start. */
		briefingBudget: z.number().int().min(200).max(50_000).default(defaultBriefingBudget),
		/** What the agent's session end does to the durable session. */
		onSessionEnd: z.enum(['end', 'suspend', 'keep']).default('end'),
		/** Keep excerpts of agent transcripts in `.baton/transcripts/` (per-session opt-out: `baton transcripts archive --off`). */
		archiveTranscripts: z.boolean().default(true),
		/** Let the per-turn stop take a periodic checkpoint when one is due (checkpoints in use only). */
		periodicCheckpoints: z.boolean().default(true),
		/** Answer `ask` before edits while a checkpoint of the session awaits a critical approval. */
		approvalGate: z.boolean().default(true),
		/** Record every prompt and every file-changing tool call on the session's timeline (`baton timeline`). */
		timeline: z.boolean().default(true),
		/** Milliseconds a tool call's timeline capture may add to its hook (lock wait included); past it the step is "not captured". */
		timelineBudget: z.number().int().min(50).max(8_000).default(2_500),
		/** Claude Code's data folder (default `~/.claude`, or `BATON_CLAUDE_HOME`, or `CLAUDE_CONFIG_DIR`). */
		claudeHome: z.string().min(1).optional(),
		/** Bytes of transcript a hook parses at most per call (the rest on the next call or `baton transcripts sync`). */
		hookParseBytes: z
			.number()
			.int()
			.min(1024)
			.default(32 * 1024 * 1024),
	})
	.strict();
export type AgentSettings = z.infer<typeof agentSettingsSchema>;

function agentSettingsFile(workspaceRoot: string): string {
	return path.join(batonDir(workspaceRoot), 'agents.json');
}

/** Reads `.baton/agents.json`; a missing file means the defaults, a malformed one is `configInvalid`. */
export function readAgentSettings(workspaceRoot: string): AgentSettings {
	const file = agentSettingsFile(workspaceRoot);
	let raw: unknown = {};
	try {
		raw = JSON.parse(fs.readFileSync(file, 'utf8'));
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
			throw new BatonError('configInvalid', `${file}: ${(error as Error).message}`);
		}
	}
	const parsed = agentSettingsSchema.safeParse(raw);
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		throw new BatonError('configInvalid', `${file}: ${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}`);
	}
	return parsed.data;
}

function defaultAgentSettings(): AgentSettings {
	return agentSettingsSchema.parse({});
}

/** The workspace's agent settings, or the defaults with a warning when `.baton/agents.json` is broken (a hook, the backend: never refused for it). */
export function agentSettingsOrDefaults(workspaceRoot: string, log: Logger): AgentSettings {
	try {
		return readAgentSettings(workspaceRoot);
	} catch (error) {
		log.warn(`${(error as Error).message}; using the default agent settings`);
		return defaultAgentSettings();
	}
}
