/**
 * The `baton` CLI's own file, whichever bundle asks: dist/cli.js itself, the hook bundle, or the
 * workspace daemon (dist/server.js) running a CLI command for a client. Every bundle is built into
 * dist/, so the CLI is beside this code; `process.argv[1]` names it only in the CLI's own process.
 */
import fs from 'node:fs';
import path from 'node:path';

export function batonCliPath(): string {
	const beside = path.join(__dirname, 'cli.js');
	return fs.existsSync(beside) ? beside : (process.argv[1] ?? beside);
}
