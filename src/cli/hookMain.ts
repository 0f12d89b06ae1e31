/**
 * `baton hook`'s own bundle (dist/hook.js). Agents run a hook on every event and wait for it, so it
 * carries only what a hook needs: no command table, no MCP server, no mail client (hooks never
 * deliver). dist/cli.js sends `baton hook …` here (see launcher.ts).
 */
import { runHookCli } from './agentCommands';

export function main(argv: string[] = process.argv.slice(2)): void {
	let abandoned = false;
	void runHookCli(argv[0] === 'hook' ? argv.slice(1) : argv, {
		stdout: (t) => process.stdout.write(t),
		stderr: (t) => process.stderr.write(t),
		cwd: process.cwd(),
		env: process.env,
		abandoned: () => (abandoned = true),
	}).then((code) => {
		process.exitCode = code;
		if (abandoned) {
			// Its event is spooled and the agent answered; the run it gave up on may still wait on the lock.
			process.exit(code);
		}
	});
}
