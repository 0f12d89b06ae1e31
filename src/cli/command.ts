import type { Engine } from '../engine/engine';

export type OptionSpec = { type: 'string' | 'boolean'; multiple?: boolean; short?: string };
export type ParsedValues = Record<string, string | boolean | string[] | undefined>;

interface CommandContext {
	values: ParsedValues;
	/** Positional arguments after the command path. */
	args: string[];
	workspaceRoot: string;
	/** The directory the command was run from: relative paths given on the command line resolve against it. */
	cwd: string;
	actor: string;
	/**
	 * The environment the command was run with. In the workspace daemon that is the client's, not
	 * the daemon's own `process.env`: read PATH, HOME and BATON_* from here.
	 */
	env: NodeJS.ProcessEnv;
	/** A yes/no question to the person at the terminal; absent without one (a script, the daemon). */
	ask?: (question: string) => Promise<boolean>;
	/** Opens the engine for the workspace (not every command needs one). */
	engine(): Promise<Engine>;
	/**
	 * The active durable session of the agent conversation whose shell tool runs this command (its
	 * own id an alias of it, cli/agentShell.ts), or undefined: what a command without `--id` or
	 * `--session` acts on before "the one active session".
	 */
	ownSession(): Promise<string | undefined>;
	/** The engine outlives the command (the daemon keeps it warm, with what its services keep); false in a process of its own. */
	engineKept: boolean;
}

interface CommandOutput {
	/** The object printed under --json. */
	json: Record<string, unknown>;
	/** What a person sees without --json. */
	text: string;
	/** Defaults to 0. */
	exitCode?: number;
}

export interface Command {
	path: string[];
	usage: string;
	summary: string;
	options?: Record<string, OptionSpec>;
	/** How many positional arguments it takes: [min, max]. */
	positionals?: [number, number];
	/** Commands like `init` run without an existing `.baton/`. */
	needsInit?: boolean;
	run(ctx: CommandContext): Promise<CommandOutput>;
}

/** Bad usage: exit code 2. */
export class UsageError extends Error {}

export function stringOption(values: ParsedValues, name: string): string | undefined {
	const value = values[name];
	return typeof value === 'string' ? value : undefined;
}

export function listOption(values: ParsedValues, name: string): string[] {
	const value = values[name];
	return Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
}
