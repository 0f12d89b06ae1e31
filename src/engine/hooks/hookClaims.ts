/**
 * One agent event, one effect. VS Code's agent hooks load every `*.json` in `.github/hooks/` (Copilot
 * CLI files included, their events renamed) and Claude Code's `.claude/settings.json` as well, so a
 * workspace connected for Claude Code and for Copilot runs Baton's hook up to three times for one
 * event, with one payload. Copilot CLI runs every file too — `baton.json` and `baton-cli.json` — and
 * sends each its own dialect of one event: snake_case with an ISO `timestamp` to the first,
 * camelCase with the same instant in epoch milliseconds to the second. The first process to claim
 * the event handles it; the others record nothing.
 *
 * An event is claimed only when the payload names it: a tool call by its `tool_use_id`, anything
 * else by its session and `timestamp` (the instant, however written: one event across dialects).
 * Claude Code's own prompt payloads carry neither, and a person who types "continue" twice sends two
 * identical payloads that are two events.
 *
 * Claims are files created with O_EXCL in a folder per ten minutes (`.baton/hook-claims/`), each
 * naming the process that handles the event (a claim whose process died is taken over: see
 * claimHookEvent); the first claim of a folder removes the folders before the previous one. Anything that goes wrong
 * here lets the call through: an event recorded twice is better than an event lost.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { HookEvent } from '../hookEvent';
import { isAlive } from '../storage/processAlive';
import { batonDir, mkdirPrivate, privateFileMode } from '../workspace';

type Claim = 'first' | 'duplicate' | 'unnamed';

const windowMs = 10 * 60_000;

/**
 * The id an event is recorded under exactly once (the hook host's hookOnce.ts): its name
 * (`eventKey`), or, for a payload that names none (Claude Code's prompts), the id the client gave
 * the call.
 */
export function hookEventId(event: HookEvent, raw: unknown, clientId: string): string {
	return `hook:${eventKey(event, raw) ?? clientId}`;
}

/** The name of one event, or undefined when the payload does not name it. */
export function eventKey(event: HookEvent, raw: unknown): string | undefined {
	const payload = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
	const toolUseId = typeof payload['tool_use_id'] === 'string' ? payload['tool_use_id'] : undefined;
	const stamp = payload['timestamp'];
	const instant = typeof stamp === 'number' && Number.isFinite(stamp) ? stamp : typeof stamp === 'string' ? Date.parse(stamp) : Number.NaN;
	let name: string;
	if (toolUseId && (event.kind === 'preToolUse' || event.kind === 'postToolUse')) {
		// Pre and post of one call share the id; the kind tells them apart.
		name = JSON.stringify([event.agent, event.agentSessionId, event.kind, toolUseId]);
	} else if (event.agentSessionId && Number.isFinite(instant)) {
		// One event in two dialects names the same session and the same instant; the agent's label may differ.
		name = JSON.stringify([event.agentSessionId, event.kind, instant]);
	} else if (stamp !== undefined && stamp !== null) {
		name = JSON.stringify([event.kind, stableJson(payload)]);
	} else {
		return undefined;
	}
	return createHash('sha256').update(name).digest('hex').slice(0, 40);
}

/**
 * Claims `event` for this process. A claim names its process (its pid, written after the O_EXCL
 * create: a claim still empty is taken as live): a claim whose process died (a daemon killed in the
 * middle of the event) did not see it through, so the event is not a duplicate of it — the claim is
 * taken over, by one taker (an O_EXCL marker per dead claimant), and the event runs again. Whether it
 * was recorded after all is the journal's to say (hookOnce.ts: the event's claim is part of its one
 * record, and a second recording is refused).
 */
export function claimHookEvent(workspaceRoot: string, event: HookEvent, raw: unknown, nowMs = Date.now()): Claim {
	const key = eventKey(event, raw);
	if (!key) {
		return 'unnamed';
	}
	const root = path.join(batonDir(workspaceRoot), 'hook-claims');
	const bucket = Math.floor(nowMs / windowMs);
	try {
		const earlier = path.join(root, String(bucket - 1), key);
		if (fs.existsSync(earlier)) {
			return takeOver(earlier);
		}
		const folder = path.join(root, String(bucket));
		if (!fs.existsSync(folder)) {
			mkdirPrivate(folder);
			prune(root, bucket);
		}
		const file = path.join(folder, key);
		let fd: number;
		try {
			fd = fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, privateFileMode);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
				return takeOver(file);
			}
			throw error;
		}
		try {
			fs.writeSync(fd, String(process.pid));
		} finally {
			fs.closeSync(fd);
		}
		return 'first';
	} catch {
		return 'first';
	}
}

/** A claim that exists: a duplicate while its process lives (or the claim is still being written); else this process's now. */
function takeOver(file: string): Claim {
	const holder = Number(fs.readFileSync(file, 'utf8').trim() || Number.NaN);
	if (!Number.isInteger(holder) || holder <= 0 || holder === process.pid || isAlive(holder)) {
		return 'duplicate';
	}
	try {
		fs.closeSync(fs.openSync(`${file}.after-${holder}`, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, privateFileMode));
	} catch {
		// Another process took it over first: it runs the event.
		return 'duplicate';
	}
	const temp = `${file}.${process.pid}.tmp`;
	fs.writeFileSync(temp, String(process.pid), { mode: privateFileMode });
	fs.renameSync(temp, file);
	return 'first';
}

function prune(root: string, bucket: number): void {
	for (const name of fs.readdirSync(root)) {
		const n = Number(name);
		if (!Number.isInteger(n) || n < bucket - 1) {
			fs.rmSync(path.join(root, name), { recursive: true, force: true });
		}
	}
}

/** JSON with object keys sorted, so two serialisations of one payload name one event. */
function stableJson(value: unknown): string {
	if (Array.isArray(value)) {
		return `[${value.map(stableJson).join(',')}]`;
	}
	if (value && typeof value === 'object') {
		const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}
