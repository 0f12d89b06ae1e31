/**
 * Where Claude Code keeps a workspace's transcripts:
 * `<claude home>/projects/<cwd with every non-alphanumeric character as '-'>/<sessionId>.jsonl`,
 * subagents under `<sessionId>/subagents/agent-<id>.jsonl` with an `agent-<id>.meta.json` beside.
 * A session's folder that is a symlink is followed, under the rule for links agent history keeps
 * (agentFiles.ts): a subagent transcript whose real path leads out of the project folder is not listed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isFileEntry, isFolder, linkProblem } from './agentFiles';
import { openRegularFile, type FileBytes } from '../storage/regularFile';
import { pushAll } from '../arrays';

export interface DiscoveredTranscript {
	/** `<sessionId>` for a main transcript, `<sessionId>/agent-<id>` for a subagent's. */
	id: string;
	agentSessionId: string;
	parentAgentSessionId: string | null;
	sourcePath: string;
	agentType: string | null;
	description: string | null;
	/** The file's bytes as the agent-history discovery read them (a small file, read whole): the archive parses these. */
	whole?: FileBytes;
}

/** `/home/u/my.project` → `-home-u-my-project`; `C:\Code\x` → `C--Code-x`. */
export function encodeClaudeProjectDir(cwd: string): string {
	return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

export function claudeProjectDir(claudeHome: string, cwd: string): string {
	return path.join(claudeHome, 'projects', encodeClaudeProjectDir(cwd));
}

/** Every main and subagent transcript in the workspace's Claude project folder (none when there is no folder). */
export function discoverClaudeTranscripts(claudeHome: string, workspaceRoot: string): DiscoveredTranscript[] {
	const dir = claudeProjectDir(claudeHome, workspaceRoot);
	const out: DiscoveredTranscript[] = [];
	for (const entry of readDir(dir)) {
		if (entry.name.endsWith('.jsonl') && isFileEntry(dir, entry)) {
			if (entry.isSymbolicLink() && linkProblem(path.join(dir, entry.name), dir) !== null) continue;
			const id = entry.name.slice(0, -'.jsonl'.length);
			out.push({ id, agentSessionId: id, parentAgentSessionId: null, sourcePath: path.join(dir, entry.name), agentType: null, description: null });
		} else if (isFolder(dir, entry)) {
			// Dirent.isDirectory() is false for a symlink: a linked session folder was never found.
			pushAll(
				out,
				subagentTranscripts(path.join(dir, entry.name), entry.name).filter((t) => linkProblem(t.sourcePath, dir) === null),
			);
		}
	}
	return out.sort((a, b) => a.id.localeCompare(b.id));
}

/** The subagent transcripts of one session (`<session dir>/subagents/agent-*.jsonl`). */
export function subagentTranscripts(sessionDir: string, parentId: string): DiscoveredTranscript[] {
	const subDir = path.join(sessionDir, 'subagents');
	const out: DiscoveredTranscript[] = [];
	for (const entry of readDir(subDir)) {
		if (entry.name.startsWith('agent-') && entry.name.endsWith('.jsonl') && isFileEntry(subDir, entry)) {
			// A linked file stays in the project folder (the session folder's parent); callers check folders on the way.
			if (entry.isSymbolicLink() && linkProblem(path.join(subDir, entry.name), path.dirname(sessionDir)) !== null) continue;
			const agentId = entry.name.slice(0, -'.jsonl'.length);
			const meta = readMeta(path.join(subDir, `${agentId}.meta.json`));
			out.push({
				id: `${parentId}/${agentId}`,
				agentSessionId: agentId,
				parentAgentSessionId: parentId,
				sourcePath: path.join(subDir, entry.name),
				agentType: meta.agentType,
				description: meta.description,
			});
		}
	}
	return out;
}

const headBytes = 64 * 1024;

/**
 * A bootstrap transcript: the file exists and every record in it is Claude's own
 * `file-history-snapshot` bookkeeping (a session id Claude created and then left, e.g. before
 * switching to a resumed conversation). A missing or empty file is not one: a brand-new session's
 * transcript is written only with its first message.
 */
export function isBootstrapTranscript(file: string): boolean {
	const records = headRecords(file, 1024 * 1024);
	return records !== null && records.length > 0 && records.every((r) => r['type'] === 'file-history-snapshot');
}

/**
 * The `sessionId`s that the first records of a transcript carry, other than `exceptId`: a resumed
 * conversation written under a new id starts with the records of the one it continues.
 */
export function earlierSessionIds(file: string, exceptId: string): string[] {
	return sessionIdsOf(headRecords(file, headBytes) ?? [], exceptId);
}

/** The `sessionId`s `records` (a transcript's first) carry, other than `exceptId`, in order. */
export function sessionIdsOf(records: readonly Record<string, unknown>[], exceptId: string): string[] {
	const out: string[] = [];
	for (const record of records) {
		const id = record['sessionId'];
		if (typeof id === 'string' && id && id !== exceptId && !out.includes(id)) {
			out.push(id);
		}
	}
	return out;
}

/** The complete records in the first `limit` bytes, or null when the file cannot be read. */
function headRecords(file: string, limit: number): Record<string, unknown>[] | null {
	let bytes: Buffer;
	try {
		const { fd, stat } = openRegularFile(file);
		try {
			bytes = Buffer.alloc(Math.min(limit, stat.size));
			fs.readSync(fd, bytes, 0, bytes.length, 0);
		} finally {
			fs.closeSync(fd);
		}
	} catch {
		return null;
	}
	const out: Record<string, unknown>[] = [];
	const end = bytes.lastIndexOf(10);
	for (const line of bytes.toString('utf8', 0, end + 1).split('\n')) {
		if (!line.trim()) {
			continue;
		}
		try {
			const value: unknown = JSON.parse(line);
			if (value && typeof value === 'object') {
				out.push(value as Record<string, unknown>);
			}
		} catch {
			// A torn line says nothing about the session.
		}
	}
	return out;
}

function readMeta(file: string): { agentType: string | null; description: string | null } {
	try {
		const meta = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
		return {
			agentType: typeof meta['agentType'] === 'string' ? meta['agentType'] : null,
			description: typeof meta['description'] === 'string' ? meta['description'] : null,
		};
	} catch {
		return { agentType: null, description: null };
	}
}

function readDir(dir: string): fs.Dirent[] {
	try {
		return fs.readdirSync(dir, { withFileTypes: true });
	} catch {
		return [];
	}
}
