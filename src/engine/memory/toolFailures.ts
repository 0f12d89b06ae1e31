/**
 * The failed tool calls of an archived transcript, each tied to the call that failed (its files and
 * what it ran) and to whether the same tool later succeeded on the same file. The raw material of a
 * summary's "failed approaches" and of the gotchas extracted from transcripts.
 *
 * Conservative by design: a failure is tied to its call only through the tool-use id the archive
 * keeps on errors (older archives have none: their failures are listed, never turned into facts),
 * and a later call counts as a successful retry only when no error names its id. Errors about the
 * agent's own mechanics (an edit whose old text was not found, a file not read before writing, a
 * refused permission, an interruption) say nothing about the project and are marked as such.
 */
import type { Excerpt } from '../transcripts/transcriptExcerpts';

export interface ToolFailure {
	tool: string;
	at: string | null;
	/** The error's first meaningful line. */
	reason: string;
	/** The failed call's files and detail (command, pattern), when the archive ties the error to it. */
	files: string[];
	detail: string | null;
	/** An error about the agent's use of its tools rather than about the project. */
	mechanics: boolean;
	/** The same tool later succeeded on the (single) file this call named. */
	retriedOk: boolean;
}

const mechanicsPatterns: RegExp[] = [
	/string to replace not found/i,
	/has not been read yet/i,
	/modified since (it was )?(last )?read/i,
	/found \d+ matches of the string/i,
	/no changes to make/i,
	/old_string and new_string are/i,
	/file does not exist/i,
	/\bEISDIR\b|is a directory/i,
	/exceeds maximum allowed/i,
	/user (rejected|denied|doesn't want)|tool use was rejected|permission to use .* (was|has been) denied/i,
	/interrupted by (the )?user|request interrupted/i,
	/InputValidationError|invalid (tool )?(input|parameters)/i,
];

type ToolExcerpt = Extract<Excerpt, { type: 'tool' }>;

export function toolFailures(excerpts: readonly Excerpt[]): ToolFailure[] {
	const calls = new Map<string, { call: ToolExcerpt; index: number }>();
	const failedIds = new Set<string>();
	for (const e of excerpts) {
		if (e.type === 'error' && e.toolId) {
			failedIds.add(e.toolId);
		}
	}
	const out: ToolFailure[] = [];
	excerpts.forEach((e, index) => {
		if (e.type === 'tool') {
			if (e.id) {
				calls.set(e.id, { call: e, index });
			}
			return;
		}
		if (e.type !== 'error' || !e.tool) {
			// Errors without a tool are the agent's own (API overload, hooks): not an approach that failed.
			return;
		}
		const reason = firstLine(e.text);
		const found = e.toolId ? calls.get(e.toolId) : undefined;
		const files = found?.call.files ?? [];
		const file = files.length === 1 ? (files[0] as string) : null;
		const retriedOk =
			file !== null &&
			excerpts.some(
				(later, j) =>
					j > index &&
					later.type === 'tool' &&
					later.name.toLowerCase() === e.tool?.toLowerCase() &&
					later.files.includes(file) &&
					!!later.id &&
					!failedIds.has(later.id),
			);
		out.push({
			tool: e.tool,
			at: e.at,
			reason,
			files,
			detail: found?.call.detail ?? null,
			mechanics: mechanicsPatterns.some((p) => p.test(e.text)),
			retriedOk,
		});
	});
	return out;
}

function firstLine(text: string): string {
	const line =
		text
			.replace(/<\/?tool_use_error>/g, '')
			.split('\n')
			.map((l) => l.trim())
			.find(Boolean) ?? '';
	return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
