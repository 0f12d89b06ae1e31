/**
 * The hook spool: where a hook puts an event it could not hand over within its budget (daemon
 * stopped or dead, journal lock held too long), so that it is recorded later instead of lost. Node
 * built-ins only: dist/cli.js (the hook client, which bundles no engine code) writes it too.
 *
 * `.baton/hook-spool/` holds one file per event, `<ms>-<pid>-<seq>-<rand>.rec`, written as a temp
 * file, fsynced, renamed into place and the folder fsynced, before the hook exits. A file per record
 * rather than one appended file: concurrent hooks never interleave (a payload is often larger than
 * PIPE_BUF), a writer never waits on a lock another hook or a stopped daemon holds, and a drained
 * record is removed by deleting its file. Each file is a header line `baton-spool 1 <bytes>
 * <sha256>` and the body (JSON); a file whose body does not match (torn by a crash or a power loss)
 * is dropped with a warning. Names sort by the instant they were spooled: the drain follows them.
 *
 * Bounded: past `BATON_HOOK_SPOOL_MAX_BYTES` (16 MB) waiting, a hook drops its event instead and
 * says so. Counts for `baton doctor`: waiting = the record files; drained in `counts.json` (written
 * by the one drainer, under `drain.lock`); dropped = the lines of `dropped.log` (one short O_APPEND
 * write per drop, by hooks and the drainer).
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pidAlive } from './pidAlive';

const defaultSpoolMaxBytes = 16 * 1024 * 1024;
const magic = 'baton-spool 1';
/** A temp file this old was left by a hook that died while spooling (a live one renames it within milliseconds). */
const tornTempMs = 60_000;

/** One hook call as the client received it: what runs it again later, exactly as it would have run. */
export interface SpoolRecord {
	/** The client's id for this call (the event id when the payload names none). */
	eventId: string;
	/** When the hook received it (ms since the epoch). */
	at: number;
	argv: string[];
	cwd: string;
	/** The hook's environment, without what looks like a secret (see spoolEnv). */
	env: Record<string, string>;
	stdin: string;
}

interface SpoolCounts {
	spooled: number;
	drained: number;
	dropped: number;
	/** Bytes of the records waiting. */
	bytes: number;
}

export function spoolDir(workspaceRoot: string): string {
	return path.join(workspaceRoot, '.baton', 'hook-spool');
}

export function spoolMaxBytes(env: NodeJS.ProcessEnv): number {
	const n = Number(env['BATON_HOOK_SPOOL_MAX_BYTES'] ?? '');
	return Number.isFinite(n) && n > 0 ? n : defaultSpoolMaxBytes;
}

/**
 * What a hook reads from its environment (agent homes, Copilot CLI's marker, Baton's own settings),
 * never a variable whose name says it holds a secret: the spool is a file, and hooks deliver nothing.
 */
export function spoolEnv(env: NodeJS.ProcessEnv): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [key, value] of Object.entries(env)) {
		if (
			value !== undefined &&
			/^(BATON_|COPILOT_|CLAUDE_|GEMINI_|CODEX_|CLINE_|XDG_|HOME$|USERPROFILE$|PATH$)/.test(key) &&
			!/TOKEN|SECRET|PASSWORD|PASSWD|KEY|WEBHOOK|CREDENTIAL|AUTH/i.test(key)
		) {
			out[key] = value;
		}
	}
	return out;
}

let sequence = 0;

type SpoolResult = { ok: true; file: string } | { ok: false; reason: string };

/** Writes one record durably (fsynced, renamed, folder fsynced); never throws. */
export function appendSpool(workspaceRoot: string, record: SpoolRecord, maxBytes: number): SpoolResult {
	const dir = spoolDir(workspaceRoot);
	const body = Buffer.from(JSON.stringify(record), 'utf8');
	const data = Buffer.concat([Buffer.from(`${magic} ${body.length} ${sha256(body)}\n`, 'utf8'), body]);
	try {
		fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
		const waiting = spoolBytes(dir);
		if (waiting + data.length > maxBytes) {
			return { ok: false, reason: `the spool is full (${waiting} bytes waiting, this event ${data.length} bytes, limit ${maxBytes} bytes)` };
		}
		const name = `${String(Date.now()).padStart(14, '0')}-${String(process.pid).padStart(8, '0')}-${String(sequence++).padStart(6, '0')}-${randomBytes(4).toString('hex')}`;
		const temp = path.join(dir, `${name}.tmp`);
		const file = path.join(dir, `${name}.rec`);
		const fd = fs.openSync(temp, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o600);
		try {
			fs.writeSync(fd, data);
			fs.fsyncSync(fd);
		} catch (error) {
			fs.closeSync(fd);
			fs.rmSync(temp, { force: true });
			throw error;
		}
		fs.closeSync(fd);
		fs.renameSync(temp, file);
		syncDir(dir);
		return { ok: true, file };
	} catch (error) {
		return { ok: false, reason: `could not write the spool (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
	}
}

/** Counts one dropped event (best effort: a full disk may refuse this line too). */
export function countDropped(workspaceRoot: string, eventId: string, reason: string): void {
	try {
		const dir = spoolDir(workspaceRoot);
		fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
		fs.appendFileSync(path.join(dir, 'dropped.log'), `${new Date().toISOString()} ${eventId} ${reason.replace(/\s+/g, ' ').slice(0, 200)}\n`, {
			mode: 0o600,
		});
	} catch {
		// Said on stderr and in the hook log already.
	}
}

/** The records waiting, oldest first (file names), and the temp files torn by a hook that died writing them. */
export function listSpool(workspaceRoot: string, now = Date.now()): { records: string[]; torn: string[] } {
	let names: string[];
	try {
		names = fs.readdirSync(spoolDir(workspaceRoot));
	} catch {
		return { records: [], torn: [] };
	}
	const records = names.filter((n) => n.endsWith('.rec')).sort();
	const torn = names.filter((n) => n.endsWith('.tmp') && isOlderThan(path.join(spoolDir(workspaceRoot), n), now - tornTempMs)).sort();
	return { records, torn };
}

/** Reads one record file: the record, or why it cannot be trusted (torn, damaged). */
export function readSpoolRecord(file: string): { record: SpoolRecord } | { problem: string } {
	let data: Buffer;
	try {
		data = fs.readFileSync(file);
	} catch (error) {
		return { problem: `unreadable (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
	}
	const newline = data.indexOf(0x0a);
	const header = newline < 0 ? '' : data.subarray(0, newline).toString('utf8');
	const match = /^baton-spool 1 (\d+) ([0-9a-f]{64})$/.exec(header);
	if (!match) {
		return { problem: `no valid header (${data.length} bytes)` };
	}
	const body = data.subarray(newline + 1);
	if (body.length !== Number(match[1]) || sha256(body) !== match[2]) {
		return { problem: `torn: ${body.length} of ${match[1]} bytes, checksum ${sha256(body) === match[2] ? 'matches' : 'does not match'}` };
	}
	try {
		const record = JSON.parse(body.toString('utf8')) as SpoolRecord;
		if (typeof record.eventId !== 'string' || !Array.isArray(record.argv) || typeof record.stdin !== 'string' || typeof record.cwd !== 'string') {
			return { problem: 'not a hook record' };
		}
		return { record: { ...record, env: record.env && typeof record.env === 'object' ? record.env : {} } };
	} catch {
		return { problem: 'body is not JSON' };
	}
}

export function spoolCounts(workspaceRoot: string): SpoolCounts {
	const dir = spoolDir(workspaceRoot);
	const { records } = listSpool(workspaceRoot);
	let dropped = 0;
	try {
		dropped = fs.readFileSync(path.join(dir, 'dropped.log'), 'utf8').split('\n').filter(Boolean).length;
	} catch {
		// None dropped.
	}
	return { spooled: records.length, drained: readDrained(dir), dropped, bytes: spoolBytes(dir) };
}

/** Adds to the drained count (the drainer only, under drain.lock): temp file and rename. */
export function addDrained(workspaceRoot: string, n: number): void {
	const dir = spoolDir(workspaceRoot);
	const file = path.join(dir, 'counts.json');
	const temp = `${file}.${process.pid}.tmp`;
	fs.writeFileSync(temp, JSON.stringify({ drained: readDrained(dir) + n }), { mode: 0o600 });
	fs.renameSync(temp, file);
}

/**
 * One drainer at a time: `drain.lock` holds the drainer's pid, taken with O_EXCL; a lock whose pid
 * is gone is taken over. Returns the release, or undefined when another live process drains.
 */
export function takeDrainLock(workspaceRoot: string): (() => void) | undefined {
	const dir = spoolDir(workspaceRoot);
	const file = path.join(dir, 'drain.lock');
	for (let attempt = 0; attempt < 2; attempt++) {
		try {
			fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
			fs.writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
			return () => fs.rmSync(file, { force: true });
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
				return undefined;
			}
			const holder = Number(fs.readFileSync(file, { encoding: 'utf8', flag: 'r' }).trim());
			if (holder === process.pid || (Number.isInteger(holder) && holder > 0 && pidAlive(holder))) {
				return undefined;
			}
			// A drainer that died: its lock goes (a concurrent taker's wx then fails, and it backs off).
			fs.rmSync(file, { force: true });
		}
	}
	return undefined;
}

function readDrained(dir: string): number {
	try {
		const n = (JSON.parse(fs.readFileSync(path.join(dir, 'counts.json'), 'utf8')) as { drained?: unknown }).drained;
		return typeof n === 'number' && Number.isFinite(n) ? n : 0;
	} catch {
		return 0;
	}
}

function spoolBytes(dir: string): number {
	let total = 0;
	let names: string[];
	try {
		names = fs.readdirSync(dir);
	} catch {
		return 0;
	}
	for (const name of names) {
		if (name.endsWith('.rec') || name.endsWith('.tmp')) {
			total += fs.statSync(path.join(dir, name), { throwIfNoEntry: false })?.size ?? 0;
		}
	}
	return total;
}

function isOlderThan(file: string, beforeMs: number): boolean {
	const stat = fs.statSync(file, { throwIfNoEntry: false });
	return !!stat && stat.mtimeMs < beforeMs;
}

function syncDir(dir: string): void {
	if (process.platform === 'win32') {
		return;
	}
	const fd = fs.openSync(dir, 'r');
	try {
		fs.fsyncSync(fd);
	} finally {
		fs.closeSync(fd);
	}
}

function sha256(data: Buffer): string {
	return createHash('sha256').update(data).digest('hex');
}

/**
 * The hook client's own spooling (dist/cli.js, no engine): after its daemon took the event and did
 * not answer within the budget (stopped, or busy past it). Returns what to say on stderr ('' when spooled).
 */
export function spoolFromClient(workspaceRoot: string, record: SpoolRecord, env: NodeJS.ProcessEnv, why: string): string {
	const label = `hook ${record.argv.filter((a) => !a.startsWith('-') && a !== 'hook')[0] ?? ''} (${record.eventId})`;
	const result = appendSpool(workspaceRoot, record, spoolMaxBytes(env));
	if (result.ok) {
		hookLogLine(workspaceRoot, 'warn', `${label}: spooled (${why}); the daemon or the next command records it`);
		return '';
	}
	hookLogLine(workspaceRoot, 'error', `${label}: event dropped (${why}, and ${result.reason})`);
	countDropped(workspaceRoot, record.eventId, result.reason);
	return `baton: hook event not recorded: ${result.reason}\n`;
}

/** One line of `.baton/logs/hooks.log` in HookLog's format (engine/hooks/hookLog.ts), for the engine-free client. */
function hookLogLine(workspaceRoot: string, level: 'warn' | 'error', message: string): void {
	try {
		const dir = path.join(workspaceRoot, '.baton', 'logs');
		fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
		fs.appendFileSync(
			path.join(dir, 'hooks.log'),
			`${new Date().toISOString()} ${level} pid=${process.pid} ${message.replace(/[\r\n]+/g, ' ').slice(0, 2_000)}\n`,
			{ mode: 0o600 },
		);
	} catch {
		// A full disk: stderr says it.
	}
}
