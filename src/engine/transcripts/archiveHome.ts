/**
 * Opening the workspace's transcript archive: where Claude Code keeps its projects, by one rule for
 * every place that opens it (`Engine.transcripts()`, and `Engine.transcriptArchive` where no store is open).
 */
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../ports';
import { TranscriptArchive } from './transcriptArchive';

/**
 * Where Claude Code keeps its projects — the one rule, for every place that opens the archive: the
 * workspace's setting (`.baton/agents.json` `claudeHome`), `BATON_CLAUDE_HOME`, `CLAUDE_CONFIG_DIR`
 * (Claude's own), or `~/.claude`. `env` is the environment of whoever reported (a hook's is the agent's).
 */
export function claudeHomeDir(setting: string | undefined, env: NodeJS.ProcessEnv, homeDir: string = os.homedir()): string {
	return setting ?? env['BATON_CLAUDE_HOME'] ?? env['CLAUDE_CONFIG_DIR'] ?? path.join(homeDir, '.claude');
}

/** The workspace's archive, its Claude home found by `claudeHomeDir`. */
export function transcriptArchiveFor(
	workspaceRoot: string,
	input: { claudeHome?: string | undefined; env?: NodeJS.ProcessEnv; homeDir?: string; log: Logger },
): TranscriptArchive {
	return new TranscriptArchive({ workspaceRoot, claudeHome: claudeHomeDir(input.claudeHome, input.env ?? process.env, input.homeDir), log: input.log });
}
