/**
 * How an agent starts Baton's CLI: the program, its arguments before Baton's own, and the
 * environment it needs. Agents keep what Baton writes (hook commands, MCP server entries) for as long
 * as the project lives, so the launcher must outlive the process that wrote it:
 *
 * 1. `baton` when that name on PATH is this very installation (short, survives upgrades);
 * 2. run from a terminal: the Node that runs the CLI now (`process.execPath`) and the CLI script;
 * 3. run from the editor: never the editor's own binary (VS Code's Electron needs
 *    `ELECTRON_RUN_AS_NODE` and moves on every update; code-server's Node lives inside its install),
 *    but the first `node` on PATH that is at least Node 20;
 * 4. no such `node`: for an editor built on Electron outside Windows, `env ELECTRON_RUN_AS_NODE=1
 *    "<editor binary>"` with a warning (it breaks when the editor moves); otherwise an error that
 *    says what to install. A launcher that is not kept (`persistent: false`, the MCP server the
 *    extension hands VS Code for this window only) uses the editor's binary without a warning, marked
 *    with `BATON_EDITOR_NODE=1` when it is not Electron, so a daemon its CLI starts knows whose Node it
 *    runs on (`runsOnEditorBinary`).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../errors';

interface LauncherInput {
	/** The CLI script (`dist/cli.js`). */
	cliPath: string;
	/** The binary running Baton now. */
	execPath: string;
	env: NodeJS.ProcessEnv;
	/** Set when `execPath` is the editor's own binary; `electron` when it is VS Code's Electron. */
	editor?: { electron: boolean };
	/** False: the launcher is used now and not written anywhere. Default true. */
	persistent?: boolean;
	platform?: NodeJS.Platform;
	/** The major version of a `node` binary (null when it does not run); injectable for tests. */
	nodeMajor?: (file: string) => number | null;
}

type LauncherKind = 'baton-on-path' | 'node' | 'node-on-path' | 'editor-as-node';

export interface BatonLauncher {
	kind: LauncherKind;
	command: string;
	/** Arguments before Baton's own: the CLI script, or nothing for `baton`. */
	args: string[];
	/** Variables the command needs (`ELECTRON_RUN_AS_NODE` for the editor's Electron). */
	env: Record<string, string>;
	/** Set when the launcher works now but may break later: tell the person. */
	warning?: string;
}

const minimumNodeMajor = 20;

/**
 * Set (`1`) in the environment of a process an editor-as-node launcher starts on a Node that is not
 * Electron (code-server's, VS Code Server's): a daemon such a client spawns then knows its Node is the
 * editor's and moves with it, as an Electron one knows from `process.versions.electron`.
 */
export const editorNodeEnv = 'BATON_EDITOR_NODE';

/** This process runs on the editor's own binary: Electron, or a Node an editor-as-node launcher marked. */
export function runsOnEditorBinary(env: NodeJS.ProcessEnv = process.env): boolean {
	return process.versions.electron !== undefined || env[editorNodeEnv] === '1';
}

export function batonLauncher(input: LauncherInput): BatonLauncher {
	const platform = input.platform ?? process.platform;
	const cli = realpath(input.cliPath);
	const dirs = (input.env['PATH'] ?? input.env['Path'] ?? '').split(platform === 'win32' ? ';' : ':').filter(Boolean);
	for (const dir of dirs) {
		for (const name of platform === 'win32' ? ['baton.cmd', 'baton.exe'] : ['baton']) {
			const candidate = path.join(dir, name);
			if (isFile(candidate) && realpath(candidate) === cli) {
				return { kind: 'baton-on-path', command: 'baton', args: [], env: {} };
			}
		}
	}
	if (!input.editor) {
		return { kind: 'node', command: input.execPath, args: [cli], env: {} };
	}
	const editorBinary = realpath(input.execPath);
	const major = input.nodeMajor ?? nodeMajorOf;
	const tooOld: string[] = [];
	for (const dir of dirs) {
		const candidate = path.join(dir, platform === 'win32' ? 'node.exe' : 'node');
		if (!isFile(candidate) || realpath(candidate) === editorBinary) {
			continue;
		}
		const version = major(candidate);
		if (version !== null && version >= minimumNodeMajor) {
			return { kind: 'node-on-path', command: candidate, args: [cli], env: {} };
		}
		tooOld.push(`${candidate} (${version === null ? 'does not run' : `Node ${version}`})`);
	}
	const electronEnv: Record<string, string> = input.editor.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {};
	if (input.persistent === false) {
		return { kind: 'editor-as-node', command: input.execPath, args: [cli], env: input.editor.electron ? electronEnv : { [editorNodeEnv]: '1' } };
	}
	const found = tooOld.length ? ` (found only ${tooOld.join(', ')})` : '';
	if (input.editor.electron && platform !== 'win32') {
		return {
			kind: 'editor-as-node',
			command: input.execPath,
			args: [cli],
			env: electronEnv,
			warning: `No Node.js ${minimumNodeMajor}+ on PATH${found}: the agent runs Baton with VS Code's own binary as Node, which stops working when VS Code is updated or moved. Install Node.js ${minimumNodeMajor}+ and connect again.`,
		};
	}
	throw new BatonError(
		'invalidInput',
		`No Node.js ${minimumNodeMajor}+ on PATH${found}, and the editor's own binary (${input.execPath}) cannot be written into an agent's configuration: it moves when the editor is updated. Install Node.js ${minimumNodeMajor}+ (on PATH), or run \`baton connect <agent>\` from a terminal.`,
	);
}

/** The launcher as one shell command line (hooks run through `sh -c`, or PowerShell on Windows). */
export function shellCommandOf(launcher: BatonLauncher, platform: NodeJS.Platform = process.platform): string {
	const words = [launcher.command, ...launcher.args].map((w) => (launcher.kind === 'baton-on-path' && w === 'baton' ? w : quote(w, platform)));
	// `env` rather than a `VAR=1 cmd` prefix: Cline's scripts `exec` the command, and exec takes no assignments.
	const env = Object.entries(launcher.env).map(([k, v]) => `${k}=${v}`);
	return [...(env.length ? ['env', ...env] : []), ...words].join(' ');
}

/** Double quotes for sh (escaping what sh expands inside them); Windows shells take the path as is. */
function quote(value: string, platform: NodeJS.Platform = process.platform): string {
	return platform === 'win32' ? `"${value}"` : `"${value.replace(/(["\\$`])/g, '\\$1')}"`;
}

function nodeMajorOf(file: string): number | null {
	try {
		const out = execFileSync(file, ['--version'], {
			encoding: 'utf8',
			timeout: 5_000,
			stdio: ['ignore', 'pipe', 'ignore'],
			env: { ...process.env, ELECTRON_RUN_AS_NODE: undefined },
		});
		const match = /^v(\d+)\./.exec(out.trim());
		return match ? Number(match[1]) : null;
	} catch {
		return null;
	}
}

function isFile(file: string): boolean {
	try {
		return fs.statSync(file).isFile();
	} catch {
		return false;
	}
}

function realpath(file: string): string {
	try {
		return fs.realpathSync(file);
	} catch {
		return path.resolve(file);
	}
}
