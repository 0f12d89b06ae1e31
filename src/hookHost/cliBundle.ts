/**
 * The CLI as the processes that run it see it, declared once. The workspace daemon
 * (src/server/daemon*.ts) runs its clients' commands and hooks, and drains the hook spool, with the
 * CLI built into its own bundle and evaluated on the first command (src/server/bundledCli.ts): one
 * copy of the engine in the process. The launcher (dist/cli.js) loads dist/baton.js (src/cli/main.ts)
 * after a daemon it could not reach. main.ts exports `cliBundle` typed by `CliBundle`, so a change on
 * either side fails the type check instead of a run.
 */
import type { drainSpool } from './hookRunner';
import type { EngineSource } from './warmEngines';

/** One command's run: its output, where and as whom it runs, and what a long-lived process lends it. */
export interface CommandIo {
	stdout: (text: string) => void;
	stderr: (text: string) => void;
	cwd: string;
	env: NodeJS.ProcessEnv;
	/** `baton hook`'s payload (default: process.stdin); the daemon passes the client's. */
	stdin?: NodeJS.ReadableStream;
	/** A long-lived process (the daemon) keeps each workspace's engine open between commands. */
	engines?: EngineSource;
	/** The client's id for this command: recorded with its first write, so it never runs twice (cli/requestLedger.ts). */
	requestId?: string;
	/** A yes/no question to the person at the terminal; absent without one. */
	ask?: (question: string) => Promise<boolean>;
	/**
	 * A long-lived process takes the rest of a command's work after its answer (the daemon, for a
	 * hook's session end): the client gets its answer now, and the next command waits for that work.
	 */
	defer?: (work: Promise<unknown>) => void;
	/** `baton hook`: the client's id for the call, its deadline and what to do when it spooled its event (hookRunner.ts). */
	eventId?: string;
	deadline?: number;
	abandoned?: () => void;
}

/** What dist/baton.js offers the processes that load it. */
export interface CliBundle {
	/** The `baton` command in this process, on its argv. */
	main(argv?: string[]): void;
	/** One command (or `hook …`) with this io; resolves to its exit code. */
	runCli(argv: string[], io: CommandIo): Promise<number>;
	/** Records the hook events waiting in the workspace's spool with these engines (the daemon, between commands). */
	drainSpool: typeof drainSpool;
}
