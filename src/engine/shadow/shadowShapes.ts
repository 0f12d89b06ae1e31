/**
 * What a diff of the shadow store returns, declared once for the engine, the CLI's JSON and the wire
 * (a comparison's files, a timeline step's changes). A leaf on purpose: it imports nothing, so the
 * protocol (and with it the extension and the webviews) can use these types without pulling the
 * engine in (docs/architecture.md §2).
 */

export type ChangeKind = 'added' | 'modified' | 'deleted';

export interface FileChange {
	path: string;
	change: ChangeKind;
	/** Lines added and removed; null for binary files. */
	additions: number | null;
	deletions: number | null;
	binary: boolean;
	/** Git modes (`100644`, `100755`, `120000` for a symlink); null on the side where the file is absent. */
	oldMode: string | null;
	newMode: string | null;
	oldSha: string | null;
	newSha: string | null;
}
