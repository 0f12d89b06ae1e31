/** Reading a hook's payload from stdin: bounded in size and in time, never blocking on a terminal. */
/** Payloads above this are not hook payloads Baton needs (a huge tool response): refused, logged. */
export const maxPayloadBytes = 32 * 1024 * 1024;

/**
 * All of stdin as text; nothing when it is a terminal (a person typed `baton hook`). Agents close
 * stdin after the payload; one that does not gets what arrived within `timeoutMs`, so the hook still
 * answers before the agent's own timeout.
 */
export function readStdin(stdin: NodeJS.ReadableStream & { isTTY?: boolean; destroy?: () => void }, timeoutMs = 10_000): Promise<string> {
	if (stdin.isTTY) {
		return Promise.resolve('');
	}
	return new Promise((resolve) => {
		const chunks: Buffer[] = [];
		let size = 0;
		let done = false;
		const finish = (stop: boolean): void => {
			if (done) {
				return;
			}
			done = true;
			clearTimeout(timer);
			if (stop) {
				stdin.destroy?.();
			}
			resolve(Buffer.concat(chunks).toString('utf8'));
		};
		const timer = setTimeout(() => finish(true), timeoutMs);
		stdin.on('data', (chunk: Buffer | string) => {
			const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			size += bytes.length;
			chunks.push(bytes);
			if (size > maxPayloadBytes) {
				finish(true);
			}
		});
		stdin.once('end', () => finish(false));
		stdin.once('error', () => finish(false));
	});
}
