/** What connecting an agent reports of each file, as the CLI prints it and the editor receives it. */
export interface WrittenFile {
	/** Relative to the workspace (absolute for files outside it). */
	path: string;
	action: 'created' | 'updated' | 'unchanged' | 'removed' | 'skipped';
	/** Relative like `path`: the copy made before the file was changed. */
	backup?: string;
	/** Why a file was skipped. */
	reason?: string;
}
