/**
 * VS Code's own chat sessions of a workspace (Copilot Chat's panel and agent mode, and any chat
 * participant), read-only.
 *
 * Where (microsoft/vscode, `src/vs/workbench/contrib/chat/common/chatSessionStore.ts` at
 * 0392c00f89c71301610dd176ee0571cdc43562a9, and `common/model/chatSessionStore.ts`):
 * `<user data>/User/workspaceStorage/<workspace id>/chatSessions/<sessionId>.json` (the older form,
 * `JSON.stringify(session)` rewritten whole) or `<sessionId>.jsonl` (the newer). The folder's
 * `workspace.json` names the workspace (`{"folder": "file:///…"}`); the id is a hash and is never
 * used to match. A window without a folder keeps its chats under `globalStorage/emptyWindowChatSessions`,
 * which no workspace owns, so they are not read here. A workspace folder or its `chatSessions/` that is
 * a symlink is followed under the one rule for links (agentFiles.ts): one whose real path leads out of
 * `workspaceStorage/` is skipped with a warning.
 *
 * The JSONL form is an ObjectMutationLog (`common/model/objectMutationLog.ts` at
 * 047238f9fe1b7661362b3f27cfbddd503339cb1b): a line is `{kind, k?, v?, i?}` with kind 0 Initial (the
 * whole state, valid as the first line), 1 Set (replace the value at path `k`), 2 Push (append `v` to
 * the array at `k`, after cutting it to length `i` when given) and 3 Delete (the value at `k`). The state
 * is ISerializableChatData version 3 (`common/model/chatSessionOperationLog.ts` at
 * 03d43368c3ce601d54d8eceb01b11cf9758b9e4a, `storageSchema`): `sessionId`, `creationDate`,
 * `customTitle`, `requests[]` of `{requestId, timestamp, message: {text, parts}, modelId, response[],
 * result, editedFileEvents, modelState, …}`. After 1,024 lines VS Code writes the file again as one
 * Initial line, so it is replayed from its first line on every change (`replay`).
 *
 * A response part is a markdown string (`{value}`, or `{kind: 'markdownContent', content}`), a
 * `toolInvocationSerialized` (`toolId`, `toolCallId`, `invocationMessage`, `toolSpecificData`), a
 * `textEditGroup` (`uri`: a file the response edited), or one of some twenty kinds that carry nothing
 * a session keeps (progress, references, thinking, undo stops…), which are counted.
 */
import path from 'node:path';
import { pushAll } from '../arrays';
import {
	countKind,
	emptyRead,
	isFolder,
	isoTime,
	isSafeId,
	linkProblem,
	listDir,
	pathOfFileUri,
	readJsonFile,
	regularFileStat,
	sameWorkspace,
	seeTime,
	vscodeUserDataDirs,
	workspaceForms,
	type AgentDiscovery,
	type AgentFileOptions,
	type AgentFileRead,
	type DiscoveredAgentFile,
	type Json,
} from './agentFiles';

/** Every chat session file of the workspace in every VS Code user data folder (or `options.dirs`). */
export function discoverVscodeChatSessions(workspaceRoot: string, options: AgentFileOptions): AgentDiscovery {
	const warnings: string[] = [];
	const files: DiscoveredAgentFile[] = [];
	const forms = workspaceForms(workspaceRoot);
	for (const userData of vscodeUserDataDirs(options)) {
		const storage = path.join(userData, 'User', 'workspaceStorage');
		for (const entry of listDir(storage, warnings)) {
			if (!isFolder(storage, entry)) {
				continue;
			}
			const dir = path.join(storage, entry.name);
			const chats = path.join(dir, 'chatSessions');
			if (listDir(chats, warnings).length === 0) {
				continue;
			}
			// Dirent.isDirectory() is false for a symlink: what a linked folder holds is read when it lies in workspaceStorage/.
			const leadsOut = linkProblem(chats, storage);
			if (leadsOut) {
				warnings.push(`${chats}: ${leadsOut}, skipped`);
				continue;
			}
			const folder = workspaceFolder(path.join(dir, 'workspace.json'), warnings);
			if (!folder || !sameWorkspace(forms, folder)) {
				continue;
			}
			pushAll(files, sessionFiles(chats, folder, warnings));
		}
	}
	return { files: files.sort((a, b) => a.path.localeCompare(b.path)), warnings };
}

function workspaceFolder(file: string, warnings: string[]): string | null {
	if (!regularFileStat(file, warnings)) {
		return null;
	}
	const value = readJsonFile(file, 1024 * 1024, warnings) as Json | null;
	// A multi-root workspace names its .code-workspace file (`workspace`), not a folder: no single root to match.
	return value && typeof value === 'object' ? pathOfFileUri(value['folder']) : null;
}

function sessionFiles(dir: string, folder: string, warnings: string[]): DiscoveredAgentFile[] {
	const byId = new Map<string, DiscoveredAgentFile>();
	for (const entry of listDir(dir, warnings)) {
		const match = /^([\s\S]*)\.(jsonl|json)$/.exec(entry.name);
		if (!match) {
			continue;
		}
		const id = match[1] as string;
		const file = path.join(dir, entry.name);
		if (!isSafeId(id)) {
			warnings.push(`${file}: a session id VS Code does not write, skipped`);
			continue;
		}
		const stat = regularFileStat(file, warnings);
		if (!stat) {
			continue;
		}
		const jsonl = match[2] === 'jsonl';
		const found: DiscoveredAgentFile = {
			agent: 'copilot',
			product: 'vscode',
			agentSessionId: id,
			path: file,
			writes: jsonl ? 'append' : 'rewrite',
			replay: jsonl,
			related: {},
			workspace: folder,
			cwd: folder,
			size: stat.size,
			mtimeMs: stat.mtimeMs,
		};
		const other = byId.get(id);
		// Both forms of one session after VS Code moved it to JSONL: the JSONL is the one it writes now.
		if (!other || jsonl) {
			if (other) {
				found.related['json'] = other.path;
			}
			byId.set(id, found);
		} else {
			other.related['json'] = file;
		}
	}
	return [...byId.values()];
}

const unsafeKeys = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The session state of a chat session file: the JSON form as it is, the JSONL form replayed. A line
 * that is not JSON, or names a path the state does not have, is skipped with a warning (VS Code
 * itself gives up on the whole file); an entry kind it does not know is counted.
 */
export function vscodeChatState(content: string, jsonl: boolean, read: AgentFileRead = emptyRead()): Json | null {
	if (!jsonl) {
		try {
			const value = JSON.parse(content) as unknown;
			return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;
		} catch (error) {
			read.warnings.push(`not JSON (${error instanceof Error ? error.message : String(error)})`);
			return null;
		}
	}
	let state: Json | null = null;
	let lineNo = 0;
	for (const line of content.split('\n')) {
		lineNo++;
		if (!line.trim()) {
			continue;
		}
		let entry: Json;
		try {
			entry = JSON.parse(line) as Json;
		} catch {
			read.warnings.push(`line ${lineNo}: not JSON, skipped`);
			continue;
		}
		const problem = applyEntry(entry, state, (next) => (state = next));
		if (problem === 'unknown') {
			countKind(read, `entry kind ${String(entry?.['kind'])}`);
		} else if (problem) {
			read.warnings.push(`line ${lineNo}: ${problem}, skipped`);
		}
	}
	return state;
}

/** Applies one mutation; returns what was wrong with it, 'unknown' for a kind it does not know, or null. */
function applyEntry(entry: Json, state: Json | null, setState: (next: Json) => void): string | null {
	if (!entry || typeof entry !== 'object') {
		return 'not an entry';
	}
	const kind = entry['kind'];
	if (kind === 0) {
		const v = entry['v'];
		if (!v || typeof v !== 'object' || Array.isArray(v)) {
			return 'an initial entry without a state';
		}
		setState(v as Json);
		return null;
	}
	if (kind !== 1 && kind !== 2 && kind !== 3) {
		return 'unknown';
	}
	if (!state) {
		return 'a change before the initial entry';
	}
	const keys = entry['k'];
	if (!Array.isArray(keys) || keys.length === 0 || keys.some((k) => (typeof k !== 'string' && typeof k !== 'number') || unsafeKeys.has(String(k)))) {
		return 'a change without a usable path';
	}
	let holder: unknown = state;
	for (const key of keys.slice(0, -1)) {
		holder = holder && typeof holder === 'object' ? (holder as Json)[String(key)] : undefined;
	}
	if (!holder || typeof holder !== 'object') {
		return `a change under ${keys.join('.')}, which the state does not have`;
	}
	const last = String(keys[keys.length - 1]);
	const target = holder as Json;
	if (kind === 1) {
		target[last] = entry['v'];
	} else if (kind === 3) {
		delete target[last];
	} else {
		const array = Array.isArray(target[last]) ? (target[last] as unknown[]) : [];
		if (typeof entry['i'] === 'number' && entry['i'] >= 0) {
			array.length = Math.min(array.length, entry['i']);
		}
		if (Array.isArray(entry['v'])) {
			pushAll(array, entry['v'] as unknown[]);
		}
		target[last] = array;
	}
	return null;
}

/** One chat session file's content (`jsonl`: the mutation log form) as Claude-shaped records. */
export function readVscodeChatSession(content: string, jsonl: boolean): AgentFileRead {
	const read = emptyRead();
	const state = vscodeChatState(content, jsonl, read);
	if (!state) {
		read.warnings.push('no session state in the file');
		return read;
	}
	seeTime(read, isoTime(state['creationDate']));
	const requests = Array.isArray(state['requests']) ? (state['requests'] as unknown[]) : [];
	for (const request of requests) {
		if (request && typeof request === 'object') {
			readRequest(request as Json, read);
		}
	}
	const custom = state['customTitle'];
	read.title = typeof custom === 'string' && custom.trim() ? custom.trim() : read.title;
	return read;
}

function readRequest(request: Json, read: AgentFileRead): void {
	const at = isoTime(request['timestamp']);
	seeTime(read, at);
	const model = typeof request['modelId'] === 'string' ? request['modelId'] : null;
	read.model = model ?? read.model;
	const message = request['message'] as Json | undefined;
	const text = typeof message?.['text'] === 'string' ? message['text'] : '';
	if (text.trim()) {
		read.title ??= text.trim().split('\n')[0]?.slice(0, 200) ?? null;
		read.records.push({ type: 'user', timestamp: at, message: { role: 'user', content: text } });
	}
	const content: Json[] = [];
	const response = Array.isArray(request['response']) ? (request['response'] as unknown[]) : [];
	for (const part of response) {
		responsePart(part, content, read);
	}
	const result = request['result'] as Json | undefined;
	const elapsed = (result?.['timings'] as Json | undefined)?.['totalElapsed'];
	const doneAt =
		isoTime((request['modelState'] as Json | undefined)?.['completedAt']) ??
		(typeof elapsed === 'number' && typeof request['timestamp'] === 'number' ? isoTime(request['timestamp'] + elapsed) : null);
	seeTime(read, doneAt);
	if (content.length > 0) {
		read.records.push({
			type: 'assistant',
			timestamp: doneAt ?? at,
			message: { id: request['responseId'] ?? request['requestId'] ?? null, model, content },
		});
	}
	const error = (result?.['errorDetails'] as Json | undefined)?.['message'];
	if (typeof error === 'string' && error.trim()) {
		read.records.push({ type: 'system', level: 'error', timestamp: doneAt ?? at, content: error });
	}
}

/** Response part kinds that carry nothing a session keeps (progress, references, reasoning, UI state). */
const passedOver = new Set([
	'inlineReference',
	'codeblockUri',
	'undoStop',
	'progressMessage',
	'progressTaskSerialized',
	'prepareToolInvocation',
	'thinking',
	'mcpServersStarting',
	'confirmation',
	'elicitationSerialized',
	'warning',
	'command',
	'extensions',
	'treeData',
	'pullRequest',
	'multiDiffData',
	'markdownVuln',
	'clearToPreviousToolInvocation',
	'questionCarousel',
	'hook',
	'disabledClaudeHooks',
	'notebookEditGroup',
	'workspaceEdit',
]);

function responsePart(part: unknown, content: Json[], read: AgentFileRead): void {
	if (!part || typeof part !== 'object') {
		return;
	}
	const p = part as Json;
	const kind = p['kind'];
	if (kind === undefined || kind === 'markdownContent') {
		const value = kind === undefined ? p['value'] : (p['content'] as Json | undefined)?.['value'];
		if (typeof value === 'string' && value.trim()) {
			const last = content[content.length - 1];
			// Streaming writes one answer as many markdown parts: they are one text.
			if (last?.['type'] === 'text') {
				last['text'] = `${String(last['text'])}${value}`;
			} else {
				content.push({ type: 'text', text: value });
			}
		}
		return;
	}
	if (kind === 'toolInvocationSerialized') {
		content.push({ type: 'tool_use', id: p['toolCallId'] ?? null, name: typeof p['toolId'] === 'string' ? p['toolId'] : 'tool', input: toolInput(p) });
		return;
	}
	if (kind === 'textEditGroup') {
		const file = uriPath(p['uri']);
		if (file) {
			content.push({ type: 'tool_use', id: null, name: 'edit', input: { file_path: file } });
		}
		return;
	}
	if (typeof kind !== 'string' || !passedOver.has(kind)) {
		countKind(read, `response part ${String(kind)}`);
	}
}

/** What a tool call did, from what VS Code kept of it: a terminal's command, the files its messages link. */
function toolInput(part: Json): Json {
	const input: Json = {};
	const specific = part['toolSpecificData'] as Json | undefined;
	if (specific?.['kind'] === 'terminal') {
		const line = specific['commandLine'] as Json | undefined;
		const command = line?.['userEdited'] ?? line?.['toolEdited'] ?? line?.['original'] ?? specific['command'];
		if (typeof command === 'string') {
			input['command'] = command;
		}
	}
	const files: string[] = [];
	for (const key of ['invocationMessage', 'pastTenseMessage']) {
		const uris = (part[key] as Json | undefined)?.['uris'];
		if (uris && typeof uris === 'object') {
			for (const uri of Object.values(uris as Json)) {
				const file = uriPath(uri);
				if (file && !files.includes(file)) {
					files.push(file);
				}
			}
		}
	}
	if (files.length > 0) {
		input['files'] = files;
	}
	const message = part['invocationMessage'];
	const description = typeof message === 'string' ? message : (message as Json | undefined)?.['value'];
	if (typeof description === 'string') {
		input['description'] = description;
	}
	return input;
}

/** A revived or serialised URI (`{scheme, path}`, `{fsPath}`, a `file://` string) → a path. */
function uriPath(uri: unknown): string | null {
	if (typeof uri === 'string') {
		return pathOfFileUri(uri);
	}
	if (!uri || typeof uri !== 'object') {
		return null;
	}
	const u = uri as Json;
	if (typeof u['fsPath'] === 'string') {
		return u['fsPath'];
	}
	if (u['scheme'] === 'file' && typeof u['path'] === 'string') {
		const p = u['path'];
		return /^\/[A-Za-z]:/.test(p) ? p.slice(1) : p;
	}
	return null;
}
