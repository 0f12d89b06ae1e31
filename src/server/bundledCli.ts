/**
 * The CLI the workspace daemon runs its clients' commands and hooks with (hookHost/cliBundle.ts),
 * built into dist/server.js and evaluated on the first command: the process then holds one copy of
 * the engine's code, where loading dist/baton.js beside it gave it a second (~0.3 s of a cold daemon's
 * first answer, and the memory of that copy). The editor's backend never evaluates it unless a
 * command comes. The one file of the server that imports the CLI (docs/architecture.md §2).
 */
import type { CliBundle } from '../hookHost/cliBundle';

let loaded: CliBundle | undefined;

export function bundledCli(): CliBundle {
	// A require, not an import: esbuild bundles it and evaluates it only when this runs.
	return (loaded ??= (require('../cli/main') as { cliBundle: CliBundle }).cliBundle);
}
