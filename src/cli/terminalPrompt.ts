import readline from 'node:readline';

/**
 * A yes/no question to the person at the terminal, or undefined when there is none (stdin or stderr
 * is not a terminal: a script, a hook, the daemon): then a command that needs consent refuses instead.
 */
export function terminalPrompt(): ((question: string) => Promise<boolean>) | undefined {
	if (!process.stdin.isTTY || !process.stderr.isTTY) {
		return undefined;
	}
	return (question) =>
		new Promise((resolve) => {
			const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
			let answered = false;
			rl.question(`${question} [y/N] `, (answer) => {
				answered = true;
				rl.close();
				resolve(/^y(es)?$/i.test(answer.trim()));
			});
			// End of input (Ctrl-D) is a no.
			rl.on('close', () => answered || resolve(false));
		});
}
