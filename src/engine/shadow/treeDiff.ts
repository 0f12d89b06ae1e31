/**
 * Differences between snapshots (or a snapshot and the working tree) and file contents at a
 * snapshot, read from the shadow store. One `diff-tree --raw --numstat -z` call gives both the change
 * kind and the line counts; binary files have no line counts.
 */
import type { ChangeKind, FileChange } from './shadowShapes';
import type { ShadowRepo } from './shadowRepo';

export type { FileChange } from './shadowShapes';

const emptyTreeSha = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const zeroSha = /^0+$/;

/** Parses `--raw` (and optionally `--numstat`) output produced with `-z --no-renames`. */
function parseRawNumstat(fields: readonly string[]): FileChange[] {
	const byPath = new Map<string, FileChange>();
	const out: FileChange[] = [];
	let i = 0;
	for (; i + 1 < fields.length && (fields[i] as string).startsWith(':'); i += 2) {
		const [oldMode, newMode, oldSha, newSha, status] = (fields[i] as string).slice(1).split(' ');
		const file = fields[i + 1] as string;
		const change: ChangeKind = status === 'A' ? 'added' : status === 'D' ? 'deleted' : 'modified';
		const entry: FileChange = {
			path: file,
			change,
			additions: 0,
			deletions: 0,
			binary: false,
			oldMode: change === 'added' ? null : (oldMode ?? null),
			newMode: change === 'deleted' ? null : (newMode ?? null),
			oldSha: oldSha && !zeroSha.test(oldSha) ? oldSha : null,
			newSha: newSha && !zeroSha.test(newSha) ? newSha : null,
		};
		byPath.set(file, entry);
		out.push(entry);
	}
	for (; i < fields.length; i++) {
		const field = fields[i] as string;
		const first = field.indexOf('\t');
		const second = field.indexOf('\t', first + 1);
		if (first < 0 || second < 0) {
			continue;
		}
		const entry = byPath.get(field.slice(second + 1));
		if (!entry) {
			continue;
		}
		const added = field.slice(0, first);
		const removed = field.slice(first + 1, second);
		if (added === '-' || removed === '-') {
			entry.binary = true;
			entry.additions = null;
			entry.deletions = null;
		} else {
			entry.additions = Number(added);
			entry.deletions = Number(removed);
		}
	}
	return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Files changed from tree-ish `from` to tree-ish `to` (commits or trees; `from` null = nothing). */
export async function diffTrees(repo: ShadowRepo, from: string | null, to: string, options: { lines?: boolean } = {}): Promise<FileChange[]> {
	const args = ['diff-tree', '-r', '-z', '--no-renames', '--raw', ...(options.lines === false ? [] : ['--numstat']), from ?? emptyTreeSha, to];
	const result = await repo.git(args);
	return parseRawNumstat(splitFields(result.stdout));
}

/** Files changed from tree-ish `from` to the shadow index (call after syncIndex: the working tree as Baton sees it). */
export async function diffIndex(repo: ShadowRepo, from: string): Promise<FileChange[]> {
	const result = await repo.git(['diff-index', '--cached', '-r', '-z', '--no-renames', '--raw', '--numstat', from]);
	return parseRawNumstat(splitFields(result.stdout));
}

/** The bytes of `file` in snapshot `commit`, or null when the snapshot does not hold it. */
export async function readFileAt(repo: ShadowRepo, commit: string, file: string): Promise<Buffer | null> {
	const clean = file.replace(/\\/g, '/').replace(/^\.?\/+/, '');
	const result = await repo.git(['cat-file', 'blob', `${commit}:${clean}`], { okCodes: [128] });
	return result.code === 0 ? result.stdout : null;
}

function splitFields(buffer: Buffer): string[] {
	const parts = buffer.toString('utf8').split('\0');
	if (parts[parts.length - 1] === '') {
		parts.pop();
	}
	return parts;
}
