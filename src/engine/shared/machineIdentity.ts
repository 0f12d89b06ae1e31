/**
 * This machine as shared events name it: a random 8-hex id kept in `.baton/machine.json` (created on
 * first use; never derived from a hostname, MAC or path), and display-only fields — a machine name and
 * an author — that a teammate sees beside sessions from here. `BATON_MACHINE_NAME` and
 * `BATON_AUTHOR` override them (a CI runner names itself); otherwise the host's short name and the
 * repository's `git config user.name` (read, never written).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { batonDir, mkdirPrivate, privateFileMode } from '../workspace';
import { readOwnPrivateFile } from '../ownFiles';

export interface MachineIdentity {
	/** 8 hex digits; the suffix of every event id this machine writes. */
	id: string;
	name: string | null;
	author: string | null;
}

const cache = new Map<string, MachineIdentity>();

export function machineIdentity(workspaceRoot: string, env: NodeJS.ProcessEnv = process.env): MachineIdentity {
	const cached = cache.get(workspaceRoot);
	if (cached) {
		return cached;
	}
	// The author is read when first asked for: `git config` is a process (~35 ms here), and most
	// readers of the identity (a window's first status among them) want its id alone.
	let author: { value: string | null } | undefined;
	const identity: MachineIdentity = {
		id: machineId(workspaceRoot),
		name: displayName(env['BATON_MACHINE_NAME'] ?? os.hostname().split('.')[0] ?? null),
		get author(): string | null {
			author ??= { value: displayName(env['BATON_AUTHOR'] ?? gitUserName(workspaceRoot)) };
			return author.value;
		},
	};
	cache.set(workspaceRoot, identity);
	return identity;
}

/** The id `file` holds, when this user wrote it privately (ownFiles.ts: a repository can carry another machine's `.baton/machine.json`). */
function keptId(file: string): string | undefined {
	try {
		const parsed = JSON.parse(readOwnPrivateFile(file) ?? 'null') as { id?: unknown } | null;
		return typeof parsed?.id === 'string' && /^[0-9a-f]{8}$/.test(parsed.id) ? parsed.id : undefined;
	} catch {
		return undefined;
	}
}

function machineId(workspaceRoot: string): string {
	const file = path.join(batonDir(workspaceRoot), 'machine.json');
	const kept = keptId(file);
	if (kept) {
		return kept;
	}
	// Missing, unreadable, garbled or not this user's own: a new one, written below (it replaces the file).

	const id = randomBytes(4).toString('hex');
	const temp = `${file}.${process.pid}.tmp`;
	try {
		mkdirPrivate(path.dirname(file));
		// The first writer wins: a concurrent process that lost the race reads the winner's id.
		fs.writeFileSync(temp, `${JSON.stringify({ id }, null, 2)}\n`, { mode: privateFileMode });
		fs.linkSync(temp, file);
	} catch {
		try {
			const theirs = keptId(file);
			if (theirs) {
				return theirs;
			}
			fs.renameSync(temp, file);
		} catch {
			// Read-only workspace: the id lives for this process only.
		}
	} finally {
		fs.rmSync(temp, { force: true });
	}
	return id;
}

function gitUserName(workspaceRoot: string): string | null {
	try {
		return (
			execFileSync('git', ['config', '--get', 'user.name'], {
				cwd: workspaceRoot,
				encoding: 'utf8',
				stdio: ['ignore', 'pipe', 'ignore'],
				timeout: 2000,
			}).trim() || null
		);
	} catch {
		return null;
	}
}

function displayName(value: string | null): string | null {
	// Control characters (a terminal escape in a hostname) are dropped: the name is shown in the editor.
	const clean = [...(value ?? '')]
		.filter((ch) => ch.charCodeAt(0) >= 0x20 && ch.charCodeAt(0) !== 0x7f)
		.join('')
		.trim()
		.slice(0, 100);
	return clean ? clean : null;
}
