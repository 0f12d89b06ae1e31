/**
 * What line provenance answers (docs/provenance.md): who wrote one line, as far as Baton can tell, and
 * a file's blame. A shape file (docs/architecture.md §2, "One shape per record"): types only, so the
 * protocol names them with `import type`.
 */

type Origin = 'agent' | 'human' | 'unknown';

/** Who wrote one line, as far as Baton can tell. */
export interface LineOrigin {
	origin: Origin;
	/** Baton's session id. */
	session: string | null;
	agent: string | null;
	model: string | null;
	turn: string | null;
	/** An excerpt of the prompt that started the turn. */
	prompt: string | null;
	/** The timeline step that last wrote the line. */
	step: number | null;
	/** Placed by matching content after a rewrite, not by git's own rewrite pairs or the capture. */
	recovered: boolean;
}

export interface BlameLine extends LineOrigin {
	line: number;
	/** null for a line not committed yet. */
	commit: string | null;
	author: string | null;
	/** When the commit was authored (ISO), null when uncommitted. */
	time: string | null;
	text: string;
}

export interface BlameResult {
	file: string;
	rev: string | null;
	lines: BlameLine[];
}

/** A file's blame as the editor reads it: the lines without their text (the editor has the file). */
export interface BlameView {
	file: string;
	lines: Omit<BlameLine, 'text'>[];
}
