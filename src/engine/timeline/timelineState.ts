/**
 * What the timeline remembers between two hook processes of a session: the tree after its last step
 * (to see a person's edits before the next one) and the tool calls whose PreToolUse was captured and
 * whose PostToolUse has not come yet. Local bookkeeping only (`.baton/timeline/<session>.json`, never
 * shared); read and written under the shadow store's lock. A lost or garbled file costs one step its
 * `treeBefore`, nothing more.
 */
import fs from 'node:fs';
import path from 'node:path';
import { batonDir, mkdirPrivate, privateFileMode } from '../workspace';
import { writeAll } from '../storage/fsUtil';

export interface PendingCall {
	toolUseId: string | null;
	tool: string;
	summary: string;
	startedAt: string;
	startedMs: number;
	treeBefore: string | null;
	reason: string | null;
}

/** A blob a step wrote, and the file path it was written for (`[blob, path]`). */
export type KeptBlob = [string, string];

export interface TimelineState {
	/** The workspace tree after the session's last captured step; null when unknown. */
	lastTree: string | null;
	/** The head of the session's timeline ref and the tree it holds. */
	refCommit: string | null;
	refTree: string | null;
	/**
	 * The tree after the session's last recorded step: a step starting from another tree cannot be
	 * rebuilt through the steps before it, so its tree becomes a keyframe.
	 */
	chainTree: string | null;
	/** Steps recorded since the last keyframe, and the blobs they wrote (kept alive at the next keyframe). */
	sinceKey: number;
	unkept: KeptBlob[];
	pending: PendingCall[];
}

/**
 * A call whose PostToolUse never came (the person denied it, the agent was killed) is dropped after
 * this long; until then it keeps a person's edits from being told apart from the agent's.
 */
const pendingLifetimeMs = 10 * 60_000;
const maxPending = 64;

function stateFile(workspaceRoot: string, sessionId: string): string {
	return path.join(batonDir(workspaceRoot), 'timeline', `${sessionId.replace(/[^A-Za-z0-9_.-]/g, '_')}.json`);
}

export function readState(workspaceRoot: string, sessionId: string, nowMs: number): TimelineState {
	const empty: TimelineState = { lastTree: null, refCommit: null, refTree: null, chainTree: null, sinceKey: 0, unkept: [], pending: [] };
	let parsed: Partial<TimelineState>;
	try {
		parsed = JSON.parse(fs.readFileSync(stateFile(workspaceRoot, sessionId), 'utf8')) as Partial<TimelineState>;
	} catch {
		return empty;
	}
	const sha = (v: unknown): string | null => (typeof v === 'string' && /^[0-9a-f]{40,64}$/.test(v) ? v : null);
	const pending = Array.isArray(parsed.pending)
		? parsed.pending.filter((p): p is PendingCall => !!p && typeof p === 'object' && typeof p.tool === 'string' && typeof p.startedMs === 'number')
		: [];
	return {
		lastTree: sha(parsed.lastTree),
		refCommit: sha(parsed.refCommit),
		refTree: sha(parsed.refTree),
		chainTree: sha(parsed.chainTree),
		sinceKey: typeof parsed.sinceKey === 'number' && parsed.sinceKey >= 0 ? parsed.sinceKey : 0,
		unkept: Array.isArray(parsed.unkept)
			? parsed.unkept.filter((b): b is KeptBlob => Array.isArray(b) && sha(b[0]) !== null && typeof b[1] === 'string' && b[1] !== '')
			: [],
		pending: pending.filter((p) => nowMs - p.startedMs < pendingLifetimeMs).slice(-maxPending),
	};
}

/** The sessions that have a state file here. */
export function stateSessions(workspaceRoot: string): string[] {
	try {
		return fs
			.readdirSync(path.join(batonDir(workspaceRoot), 'timeline'))
			.filter((f) => f.endsWith('.json') && f !== 'pruned.json')
			.map((f) => f.slice(0, -'.json'.length));
	} catch {
		return [];
	}
}

/**
 * Written in place (its bytes at the start, then cut to their length), not as a temp file renamed over
 * it: ext4 (`auto_da_alloc`, on by default) writes a file renamed over another out to the disk at the
 * rename, 0.6–1.7 ms here, and a tool call writes this file twice (PreToolUse, PostToolUse) while the
 * agent waits. A write cut short, or two writers outside the lock (its timeout path), can leave bytes
 * that are no JSON, which `readState` takes as no state: what the comment at the top allows. A JSON
 * text followed by another's tail is no JSON either, so no mix of two states is ever read as one. A
 * symlink put in its place is refused (`O_NOFOLLOW`), not written through.
 */
export function writeState(workspaceRoot: string, sessionId: string, state: TimelineState): void {
	const file = stateFile(workspaceRoot, sessionId);
	mkdirPrivate(path.dirname(file));
	const bytes = Buffer.from(`${JSON.stringify(state)}\n`);
	const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | (fs.constants.O_NOFOLLOW ?? 0), privateFileMode);
	try {
		writeAll(fd, bytes, 0);
		fs.ftruncateSync(fd, bytes.length);
	} finally {
		fs.closeSync(fd);
	}
}

/**
 * The pending call a PostToolUse completes: the same tool-use id when the dialect has one, else the
 * oldest call of the same tool (Cline and Copilot CLI name no id; their calls run one at a time).
 */
export function takePending(state: TimelineState, tool: string, toolUseId: string | null): PendingCall | null {
	let index = toolUseId ? state.pending.findIndex((p) => p.toolUseId === toolUseId) : -1;
	if (index < 0) {
		index = state.pending.findIndex((p) => p.tool === tool && (!toolUseId || !p.toolUseId));
	}
	if (index < 0) {
		return null;
	}
	return state.pending.splice(index, 1)[0] ?? null;
}
