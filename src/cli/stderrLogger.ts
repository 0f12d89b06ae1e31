/**
 * The CLI's logger (and the tests'): warnings and errors to stderr, each line with its control
 * characters shown escaped, never obeyed by the terminal (docs/architecture.md §2, "Stored text is
 * shown, never obeyed"); the daemon writes a command's lines the same way (daemonBackend.ts).
 */
import type { Logger } from '../engine/ports';
import { logLine } from '../engine/text/controlChars';

export const stderrLogger: Logger = {
	info: () => {},
	warn: (message) => process.stderr.write(logLine('warning', message)),
	error: (message) => process.stderr.write(logLine('error', message)),
};
