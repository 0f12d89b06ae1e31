/**
 * The workspace's hook endpoint as agents see it: the backend's HTTP hook endpoint on 127.0.0.1
 * (src/server/hookHttp.ts) and what a host needs to call it — its port and the secret that
 * authenticates the call. Both are this machine's and this workspace's: `.baton/hook-http.json`
 * (the port, kept so Claude Code's `.claude/settings.local.json` stays true from one daemon to the
 * next) and `.baton/hook-secret` (0600, in the 0700 `.baton/`: no other local user can read it).
 * docs/daemon.md, "HTTP hooks", says why this shape.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { readOwnPrivateFile } from '../ownFiles';
import { atomicWriteFile } from '../storage/fsUtil';
import { batonDir, mkdirPrivate, privateFileMode } from '../workspace';

/** The path every Baton hook URL starts with; the event word follows (`/baton/hook/post-tool-use`). */
export const hookUrlPath = '/baton/hook/';

function hookSecretFile(workspaceRoot: string): string {
	return path.join(batonDir(workspaceRoot), 'hook-secret');
}

function hookPortFile(workspaceRoot: string): string {
	return path.join(batonDir(workspaceRoot), 'hook-http.json');
}

/**
 * The workspace's hook secret, made on first use (32 random bytes, hex, in a 0600 file created
 * exclusively). Only a file this user wrote privately is one (ownFiles.ts): a secret a repository
 * carried is known to whoever committed it, so it is replaced by a new one.
 */
export function hookSecret(workspaceRoot: string): string {
	const file = hookSecretFile(workspaceRoot);
	let refused = false;
	const read = (): string | undefined => {
		const text = readOwnPrivateFile(file, () => (refused = true))?.trim();
		return text !== undefined && /^[0-9a-f]{64}$/.test(text) ? text : undefined;
	};
	const found = read();
	if (found) {
		return found;
	}
	if (refused) {
		fs.rmSync(file, { force: true });
	}
	mkdirPrivate(path.dirname(file));
	const secret = newSecret();
	try {
		// Created exclusively and whole in one write: a racing process reads either nothing or this.
		fs.writeFileSync(file, `${secret}\n`, { mode: privateFileMode, flag: 'wx' });
		return secret;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
			throw error;
		}
	}
	const theirs = read();
	if (!theirs) {
		throw new Error(`${file} does not hold a hook secret (64 hex digits): remove it and Baton makes a new one`);
	}
	return theirs;
}

/** 32 random bytes, hex: what a hook secret is. */
function newSecret(): string {
	return crypto.randomBytes(32).toString('hex');
}

/** Replaces the workspace's hook secret with a new one (its kept port was taken: whoever holds it may have learnt the old one). */
export function renewHookSecret(workspaceRoot: string): string {
	const file = hookSecretFile(workspaceRoot);
	mkdirPrivate(path.dirname(file));
	const secret = newSecret();
	atomicWriteFile(file, Buffer.from(`${secret}\n`));
	return secret;
}

/** The port a workspace asks for first: kept in hook-http.json (when this user wrote it: ownFiles.ts), else one derived from its path (20000–49999). */
export function hookPort(workspaceRoot: string): number {
	try {
		const port = (JSON.parse(readOwnPrivateFile(hookPortFile(workspaceRoot)) ?? 'null') as { port?: unknown } | null)?.port;
		if (typeof port === 'number' && Number.isInteger(port) && port > 0 && port < 65536) {
			return port;
		}
	} catch {
		// None kept yet (or unreadable): the derived one.
	}
	const hash = crypto.createHash('sha256').update(path.resolve(workspaceRoot)).digest();
	return 20_000 + (hash.readUInt32BE(0) % 30_000);
}

/** Keeps the port the endpoint listens on (the next daemon asks for it first). */
export function keepHookPort(workspaceRoot: string, port: number): void {
	const file = hookPortFile(workspaceRoot);
	mkdirPrivate(path.dirname(file));
	atomicWriteFile(file, Buffer.from(`${JSON.stringify({ port })}\n`));
}

export function hookUrl(port: number, event: string): string {
	return `http://127.0.0.1:${port}${hookUrlPath}${event}`;
}

/** A hook URL Baton wrote (any port): what connect updates and `--remove` takes out. */
export function isBatonHookUrl(url: unknown): boolean {
	return typeof url === 'string' && /^http:\/\/127\.0\.0\.1:\d+\/baton\/hook\/[a-z-]+$/.test(url);
}
