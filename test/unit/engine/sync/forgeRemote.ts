/**
 * Writing straight into a bare remote with git plumbing, as anyone who can push could: the hostile
 * sync tests build what Baton itself never writes (batches of forged events, refs at blobs, trees
 * that fan out) and check what a pull does with it.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** git in the bare remote (`input` on stdin), its output trimmed. */
export function inBare(w: { dir: string; bare: string }, args: readonly string[], input?: string | Buffer): string {
	return execFileSync('git', [...args], {
		cwd: w.dir,
		input,
		encoding: 'utf8',
		maxBuffer: 64 * 1024 * 1024,
		env: {
			PATH: process.env['PATH'],
			GIT_DIR: w.bare,
			GIT_INDEX_FILE: path.join(w.dir, 'forge.index'),
			GIT_AUTHOR_NAME: 't',
			GIT_AUTHOR_EMAIL: 't@t',
			GIT_COMMITTER_NAME: 't',
			GIT_COMMITTER_EMAIL: 't@t',
		},
	}).trim();
}

/** A commit on top of `ref` (or a first one when the ref does not exist) whose tree adds `batches/<name>` → `oid` (`mode` 100644 or 040000). */
export function forgeEntry(w: { dir: string; bare: string }, ref: string, name: string, oid: string, mode = '100644'): string {
	let tip = '';
	try {
		tip = inBare(w, ['rev-parse', '--verify', '-q', ref]);
	} catch {
		// A new ref.
	}
	inBare(w, tip ? ['read-tree', tip] : ['read-tree', '--empty']);
	inBare(w, ['update-index', '--add', '--cacheinfo', `${mode},${oid},batches/${name}`]);
	const commit = inBare(w, ['commit-tree', inBare(w, ['write-tree']), ...(tip ? ['-p', tip] : []), '-m', 'baton events: 1']);
	inBare(w, tip ? ['update-ref', ref, commit, tip] : ['update-ref', ref, commit]);
	return commit;
}

/** A batch of `lines` added on top of `ref` in the remote; returns its blob. */
export function forgeBatch(w: { dir: string; bare: string }, ref: string, lines: readonly string[]): string {
	const blob = inBare(w, ['hash-object', '-w', '--stdin'], `${lines.join('\n')}\n`);
	forgeEntry(w, ref, `zz-forged-${blob.slice(0, 8)}.jsonl`, blob);
	return blob;
}

/** A wire event line as a writer that is not Baton could put it (every field given). */
export function eventLine(id: string, machine: string, kind: string, subject: string, body: Record<string, unknown>): string {
	return JSON.stringify({
		id,
		kind,
		subject,
		sessionId: subject.startsWith('ses_') ? subject : null,
		actor: 'agent:x',
		machine,
		machineName: 'forger',
		author: null,
		at: '2026-03-01T10:00:00.000Z',
		body,
	});
}
