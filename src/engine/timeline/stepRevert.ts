/**
 * Undoing one step (docs/replay.md): the reverse of the step's diff, applied to the working tree per
 * file with a three-way merge — `git merge-file -p <current> <step's after> <step's before>` — so a
 * line is restored only where it is still as the step left it. Lines a person (or a later step)
 * changed since are never overwritten: a file whose merge conflicts is left alone and reported. A file
 * the step added is deleted only when unchanged since; a file it deleted is restored only when still
 * absent. Never a whole-tree reset. Nothing is written, created or removed below a folder that is a
 * symbolic link (`workspacePaths.ts`): the whole revert is refused first, and each write checked again.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ShadowRepo } from '../shadow/shadowRepo';
import type { FileChange } from '../shadow/treeDiff';
import { assertRealFolders, assertWorkspacePaths, folderProblem, workspaceFile, workspacePathProblem } from '../shadow/workspacePaths';
import type { FileNow, RevertOutcome } from './timelineShapes';

export type { FileNow } from './timelineShapes';

/** Git's blob id of `bytes`, in the store's hash (sha1, or sha256 for a sha256 store). */
export function blobId(bytes: Buffer, like: string): string {
	return createHash(like.length === 64 ? 'sha256' : 'sha1')
		.update(`blob ${bytes.length}\0`)
		.update(bytes)
		.digest('hex');
}

function readCurrent(root: string, rel: string): Buffer | null {
	try {
		if (workspacePathProblem(rel) || folderProblem(root, rel)) {
			return null; // Not a file of the workspace (a name made elsewhere, or below a link): nothing there is read.
		}
		const file = path.join(root, rel);
		const stat = fs.lstatSync(file);
		if (stat.isSymbolicLink()) {
			return Buffer.from(fs.readlinkSync(file));
		}
		return stat.isFile() ? fs.readFileSync(file) : null;
	} catch {
		return null;
	}
}

async function blob(shadow: ShadowRepo, sha: string): Promise<Buffer> {
	return (await shadow.git(['cat-file', 'blob', sha])).stdout;
}

/** For each of the step's files: unchanged since the step, changed later, or deleted. */
export function filesNow(shadow: ShadowRepo, changes: readonly FileChange[]): { path: string; now: FileNow }[] {
	return changes.map((c) => {
		const current = readCurrent(shadow.workTree, c.path);
		if (c.change === 'deleted') {
			return { path: c.path, now: current === null ? 'unchanged' : 'changed' };
		}
		if (current === null) {
			return { path: c.path, now: 'deleted' };
		}
		return { path: c.path, now: c.newSha && blobId(current, c.newSha) === c.newSha ? 'unchanged' : 'changed' };
	});
}

/** `changes`: the step's files with their blob ids (stepTrees.ts `stepChanges`). */
export async function revertStep(shadow: ShadowRepo, changes: readonly FileChange[], options: { dryRun: boolean }): Promise<RevertOutcome> {
	const paths = changes.map((c) => c.path);
	assertWorkspacePaths(paths, 'the step');
	assertRealFolders(shadow.workTree, paths, 'the step');
	const outcome: RevertOutcome = { reverted: [], skipped: [] };
	const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-revert-'));
	try {
		for (const change of changes) {
			const result = await revertFile(shadow, change, temp, options.dryRun);
			if (result === null) {
				outcome.reverted.push(change.path);
			} else {
				outcome.skipped.push({ path: change.path, reason: result });
			}
		}
	} finally {
		fs.rmSync(temp, { recursive: true, force: true });
	}
	return outcome;
}

/** Reverts one file; returns null when done (or doable, in a dry run), else why it was left alone. */
async function revertFile(shadow: ShadowRepo, change: FileChange, temp: string, dryRun: boolean): Promise<string | null> {
	const root = shadow.workTree;
	const current = readCurrent(root, change.path);
	const symlink = change.oldMode === '120000' || change.newMode === '120000';
	if (change.change === 'added') {
		if (current === null) {
			return 'already deleted since the step';
		}
		if (!change.newSha || blobId(current, change.newSha) !== change.newSha) {
			return 'changed since the step added it; delete it yourself if it should go';
		}
		if (!dryRun) {
			fs.rmSync(workspaceFile(root, change.path));
		}
		return null;
	}
	const beforeBytes = await blob(shadow, change.oldSha as string);
	if (change.change === 'deleted') {
		if (current !== null || fs.existsSync(workspaceFile(root, change.path))) {
			return 'exists again since the step deleted it';
		}
		if (!dryRun) {
			// Checked again right before the write (as below): nothing on the way may have become a link.
			const file = workspaceFile(root, change.path);
			fs.mkdirSync(path.dirname(file), { recursive: true });
			if (symlink) {
				fs.symlinkSync(beforeBytes.toString('utf8'), file);
			} else {
				fs.writeFileSync(file, beforeBytes, { mode: change.oldMode === '100755' ? 0o755 : 0o644 });
			}
		}
		return null;
	}
	if (current === null) {
		return 'deleted since the step';
	}
	const unchangedSince = !!change.newSha && blobId(current, change.newSha) === change.newSha;
	let result: Buffer;
	if (unchangedSince) {
		result = beforeBytes;
	} else if (change.binary || symlink) {
		return 'changed since the step (no line-by-line merge for a binary file or a link)';
	} else {
		const base = path.join(temp, 'after');
		const other = path.join(temp, 'before');
		const ours = path.join(temp, 'current');
		fs.writeFileSync(base, await blob(shadow, change.newSha as string));
		fs.writeFileSync(other, beforeBytes);
		fs.writeFileSync(ours, current);
		// Exit 0: clean; 1–127: that many conflicts; the rest: an error (raised by git()).
		const merged = await shadow.git(['merge-file', '-p', '-q', ours, base, other], { okCodes: Array.from({ length: 127 }, (_, i) => i + 1) });
		if (merged.code !== 0) {
			return `lines the step changed were edited since (${merged.code} conflicting ${merged.code === 1 ? 'hunk' : 'hunks'}); left as it is`;
		}
		result = merged.stdout;
	}
	if (result.equals(current)) {
		return 'already as it was before the step';
	}
	if (!dryRun) {
		const file = workspaceFile(root, change.path);
		if (symlink) {
			fs.rmSync(file);
			fs.symlinkSync(result.toString('utf8'), file);
		} else {
			fs.writeFileSync(file, result);
		}
	}
	return null;
}
