/**
 * Cline's and Roo Code's tasks of a workspace, read-only. Both are read as agent kind `cline` (Roo
 * Code is a fork of Cline with the same task files; `product` tells them apart, so adding a kind that
 * every Record<AgentKind, …> would have to name is not needed to keep them apart).
 *
 * Where (cline/cline at 21cb8d2525bcedf1f4b6890b27a74a14fe7451e4, `apps/vscode/src/core/storage/disk.ts`
 * GlobalFileNames, `apps/vscode/src/sdk/legacy-state-reader.ts`; RooCodeInc/Roo-Code at
 * cb836567180a3ff1da6d082f3178b90c3bd22a70, `src/shared/globalFileNames.ts`,
 * `src/core/task-persistence/TaskHistoryStore.ts`):
 * - the VS Code extensions' global storage, `<user data>/User/globalStorage/saoudrizwan.claude-dev/` and
 *   `…/rooveterinaryinc.roo-cline/`, and Cline's own data folder (`CLINE_DATA_DIR`, else
 *   `CLINE_DIR/data`, else `~/.cline/data`): `tasks/<taskId>/` with `api_conversation_history.json`,
 *   `ui_messages.json`, `task_metadata.json`, each written whole on every change;
 * - Cline SDK sessions (`CLINE_SESSION_DATA_DIR`, else `<data>/sessions`, per
 *   `sdk/packages/shared/src/storage/paths.ts`): `<sessionId>/<sessionId>.json`, a manifest
 *   (`sdk/packages/core/src/session/models/session-manifest.ts`: version 1, `cwd`, `workspace_root`,
 *   `model`, `started_at`, `messages_path`, …) and `<sessionId>.messages.json`.
 *
 * The workspace a task ran in: Cline's `state/taskHistory.json` (HistoryItem `cwdOnTaskInitialization`),
 * Roo Code's `tasks/<id>/history_item.json` and `tasks/_index.json` (HistoryItem `workspace`), an SDK
 * manifest's `cwd`/`workspace_root`; when none of them names the task, the working directory its first
 * request told the model (`# Current Working Directory (…) Files` in `<environment_details>`).
 *
 * A task's or SDK session's folder that is a symlink is followed under the one rule for links
 * (agentFiles.ts): one whose real path leads out of `tasks/` (`sessions/`) is skipped with a warning.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
	defaultMaxBytes,
	isFolder,
	isSafeId,
	linkProblem,
	listDir,
	readJsonFile,
	regularFileStat,
	sameWorkspace,
	vscodeUserDataDirs,
	workspaceForms,
	type AgentDiscovery,
	type AgentFileOptions,
	type DiscoveredAgentFile,
	type Json,
} from './agentFiles';
import { cwdInText } from './clineRecords';
import { openRegularFile } from '../storage/regularFile';
import { ownMap } from '../storage/ownRecord';

const extensionIds: [string, string][] = [
	['saoudrizwan.claude-dev', 'cline'],
	['rooveterinaryinc.roo-cline', 'roo-code'],
];

interface StorageRoot {
	dir: string;
	product: string;
}

/** The folders Cline and Roo Code keep tasks in; `options.dirs` in place of them (a `roo-cline` in the name is Roo Code's). */
function clineStorageRoots(options: AgentFileOptions): StorageRoot[] {
	if (options.dirs) {
		return options.dirs.map((dir) => ({ dir, product: /roo-cline/i.test(dir) ? 'roo-code' : 'cline' }));
	}
	const roots: StorageRoot[] = [];
	for (const userData of vscodeUserDataDirs({ ...options, dirs: undefined })) {
		for (const [id, product] of extensionIds) {
			roots.push({ dir: path.join(userData, 'User', 'globalStorage', id), product });
		}
	}
	const env = options.env;
	const dataDir = env['CLINE_DATA_DIR']?.trim() || path.join(env['CLINE_DIR']?.trim() || path.join(options.homeDir, '.cline'), 'data');
	roots.push({ dir: dataDir, product: 'cline' });
	return roots;
}

/** Every Cline or Roo Code task and Cline SDK session of the workspace. */
export function discoverClineTasks(workspaceRoot: string, options: AgentFileOptions): AgentDiscovery {
	const warnings: string[] = [];
	const files: DiscoveredAgentFile[] = [];
	const forms = workspaceForms(workspaceRoot);
	const maxBytes = options.maxBytes ?? defaultMaxBytes;
	const sessionDirs = new Set<string>();
	for (const root of clineStorageRoots(options)) {
		const workspaces = recordedWorkspaces(root, warnings);
		const tasksDir = path.join(root.dir, 'tasks');
		for (const entry of listDir(tasksDir, warnings)) {
			if (!isFolder(tasksDir, entry)) {
				continue;
			}
			if (!isSafeId(entry.name)) {
				warnings.push(`${path.join(tasksDir, entry.name)}: a task id Cline does not write, skipped`);
				continue;
			}
			if (leadsOut(tasksDir, entry, warnings)) {
				continue;
			}
			const task = taskFile(root, entry.name, workspaces, maxBytes, warnings);
			if (task && sameWorkspace(forms, task.workspace)) {
				files.push(task);
			}
		}
		sessionDirs.add(path.join(root.dir, 'sessions'));
	}
	if (!options.dirs && options.env['CLINE_SESSION_DATA_DIR']?.trim()) {
		sessionDirs.add(options.env['CLINE_SESSION_DATA_DIR'].trim());
	}
	for (const dir of sessionDirs) {
		for (const session of sdkSessions(dir, warnings)) {
			if (sameWorkspace(forms, session.workspace) || sameWorkspace(forms, session.cwd)) {
				files.push(session);
			}
		}
	}
	return { files: files.sort((a, b) => a.path.localeCompare(b.path)), warnings };
}

/**
 * Whether `entry`, a folder of `dir`, is a symlink whose real path leads out of `dir` (then said in a
 * warning). Dirent.isDirectory() is false for a symlink, so such a folder was never listed; a folder
 * that is no link lies in `dir` and costs no realpath.
 */
function leadsOut(dir: string, entry: fs.Dirent, warnings: string[]): boolean {
	const folder = path.join(dir, entry.name);
	const problem = entry.isSymbolicLink() ? linkProblem(folder, dir) : null;
	if (problem) {
		warnings.push(`${folder}: ${problem}, skipped`);
	}
	return problem !== null;
}

/** Task id → the workspace the product's own history recorded for it. */
function recordedWorkspaces(root: StorageRoot, warnings: string[]): Record<string, string> {
	const out = ownMap<string>();
	const lists: [string, string][] = [
		[path.join(root.dir, 'state', 'taskHistory.json'), 'cwdOnTaskInitialization'],
		[path.join(root.dir, 'tasks', '_index.json'), 'workspace'],
	];
	for (const [file, key] of lists) {
		if (!regularFileStat(file, warnings)) {
			continue;
		}
		const value = readJsonFile(file, defaultMaxBytes, warnings) as Json | unknown[] | null;
		const items = Array.isArray(value) ? value : Array.isArray((value as Json | null)?.['entries']) ? ((value as Json)['entries'] as unknown[]) : [];
		for (const item of items) {
			const id = (item as Json | null)?.['id'];
			const workspace = (item as Json | null)?.[key] ?? (item as Json | null)?.['workspace'];
			if (typeof id === 'string' && typeof workspace === 'string' && workspace.trim()) {
				out[id] = workspace;
			}
		}
	}
	return out;
}

const taskFileNames = {
	ui_messages: 'ui_messages.json',
	api_conversation_history: 'api_conversation_history.json',
	task_metadata: 'task_metadata.json',
	history_item: 'history_item.json',
};

function taskFile(root: StorageRoot, id: string, workspaces: Record<string, string>, maxBytes: number, warnings: string[]): DiscoveredAgentFile | null {
	const dir = path.join(root.dir, 'tasks', id);
	const related = ownMap<string>();
	let main: { path: string; stat: fs.Stats } | null = null;
	for (const [kind, name] of Object.entries(taskFileNames)) {
		const file = path.join(dir, name);
		const stat = regularFileStat(file, warnings);
		if (!stat) {
			continue;
		}
		related[kind] = file;
		if (!main && (kind === 'ui_messages' || kind === 'api_conversation_history')) {
			main = { path: file, stat };
		}
	}
	if (!main) {
		return null;
	}
	let workspace = workspaces[id] ?? null;
	if (!workspace && related['history_item']) {
		const item = readJsonFile(related['history_item'], 1024 * 1024, warnings) as Json | null;
		workspace = typeof item?.['workspace'] === 'string' ? item['workspace'] : null;
	}
	workspace ??= cwdOfHead(related['ui_messages'] ?? related['api_conversation_history'] ?? main.path, maxBytes, warnings);
	if (!workspace) {
		return null;
	}
	return {
		agent: 'cline',
		product: root.product,
		agentSessionId: id,
		path: main.path,
		writes: 'rewrite',
		replay: true,
		related,
		workspace,
		cwd: workspace,
		size: main.stat.size,
		mtimeMs: main.stat.mtimeMs,
	};
}

const headBytes = 512 * 1024;

/** The working directory the task's first request named, from the file's first 512 KiB. */
function cwdOfHead(file: string, maxBytes: number, warnings: string[]): string | null {
	try {
		const { fd, stat } = openRegularFile(file);
		try {
			const buffer = Buffer.alloc(Math.min(stat.size, headBytes, maxBytes));
			fs.readSync(fd, buffer, 0, buffer.length, 0);
			return cwdInText(buffer.toString('utf8'));
		} finally {
			fs.closeSync(fd);
		}
	} catch (error) {
		warnings.push(`${file}: not read (${error instanceof Error ? error.message : String(error)})`);
		return null;
	}
}

/**
 * A session's messages: `<id>.messages.json` beside its manifest, where the Cline CLI writes it (its
 * `messages_path` names that file absolutely, so a sessions folder restored under another home
 * names a path that is gone); another file the manifest names is read only inside the session's folder.
 */
function messagesFile(folder: string, id: string, named: unknown): string {
	const own = path.join(folder, `${id}.messages.json`);
	if (typeof named !== 'string' || fs.existsSync(own)) {
		return own;
	}
	const resolved = path.resolve(folder, named);
	return path.dirname(resolved) === folder ? resolved : own;
}

/** Cline SDK sessions: each `<dir>/<id>/<id>.json` manifest with its messages file. */
function sdkSessions(dir: string, warnings: string[]): DiscoveredAgentFile[] {
	const out: DiscoveredAgentFile[] = [];
	for (const entry of listDir(dir, warnings)) {
		if (!isFolder(dir, entry) || !isSafeId(entry.name) || leadsOut(dir, entry, warnings)) {
			continue;
		}
		const manifestPath = path.join(dir, entry.name, `${entry.name}.json`);
		if (!regularFileStat(manifestPath, warnings)) {
			continue;
		}
		const manifest = readJsonFile(manifestPath, 1024 * 1024, warnings) as Json | null;
		if (!manifest || manifest['version'] !== 1 || typeof manifest['session_id'] !== 'string') {
			warnings.push(`${manifestPath}: not a Cline session manifest (version 1), skipped`);
			continue;
		}
		const messages = messagesFile(path.join(dir, entry.name), entry.name, manifest['messages_path']);
		const stat = regularFileStat(messages, warnings);
		if (!stat) {
			continue;
		}
		const workspace =
			typeof manifest['workspace_root'] === 'string' ? manifest['workspace_root'] : typeof manifest['cwd'] === 'string' ? manifest['cwd'] : '';
		const related = ownMap<string>();
		related['manifest'] = manifestPath;
		out.push({
			agent: 'cline',
			product: 'cline-sdk',
			agentSessionId: manifest['session_id'],
			path: messages,
			writes: 'rewrite',
			replay: true,
			related,
			workspace,
			cwd: typeof manifest['cwd'] === 'string' ? manifest['cwd'] : null,
			size: stat.size,
			mtimeMs: stat.mtimeMs,
		});
	}
	return out;
}
