/**
 * Files an export kept off the remote (sharedTrees.ts) wait in `.baton/sync/left-out.json` until a
 * push reports them: an export the backend runs ahead of the push (`exportAhead`) has no one to tell.
 * A file that cannot be read or parsed is reported as empty and replaced: the findings are also in
 * the log, and the next checkpoint with the same file finds it again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { atomicWriteFile } from '../storage/fsUtil';
import { mkdirPrivate } from '../workspace';
import type { LeftOutFile } from './sharedTrees';
import { syncDir } from './syncState';

const leftOutSchema = z.array(
	z.object({ snapshot: z.string().optional(), step: z.object({ sessionId: z.string(), step: z.number() }).optional(), path: z.string(), reason: z.string() }),
);
/** At most this many wait (the first ones: a person fixes the cause, not each copy). */
const kept = 1_000;

function file(workspaceRoot: string): string {
	return path.join(syncDir(workspaceRoot), 'left-out.json');
}

function read(workspaceRoot: string): LeftOutFile[] {
	try {
		const parsed = leftOutSchema.safeParse(JSON.parse(fs.readFileSync(file(workspaceRoot), 'utf8')));
		return parsed.success ? parsed.data : [];
	} catch {
		return [];
	}
}

/** Adds findings to those waiting. The caller holds the shadow lock (exports are serialised by it). */
export function keepLeftOut(workspaceRoot: string, found: readonly LeftOutFile[]): void {
	mkdirPrivate(syncDir(workspaceRoot));
	atomicWriteFile(file(workspaceRoot), Buffer.from(JSON.stringify([...read(workspaceRoot), ...found].slice(0, kept))));
}

/** The findings waiting, which are then no longer waiting. */
export function takeLeftOut(workspaceRoot: string): LeftOutFile[] {
	const found = read(workspaceRoot);
	if (found.length > 0) {
		fs.rmSync(file(workspaceRoot), { force: true });
	}
	return found;
}
