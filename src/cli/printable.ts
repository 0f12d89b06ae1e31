/**
 * What the CLI prints is shown, never obeyed (docs/architecture.md §2, "Stored text is shown, never
 * obeyed"): every line for a person goes through `escapeControls` in main.ts, every --json line
 * through `jsonLine`, so a new command is covered without doing anything.
 */

/**
 * JSON.stringify escapes C0 itself; DEL, C1, the bidirectional controls and the line separators
 * it leaves raw inside strings. Written as `\uXXXX` they parse back to the same text, and a
 * terminal showing the line obeys none of them.
 */
export function jsonLine(value: unknown): string {
	return JSON.stringify(value).replace(
		/[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
		(c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
	);
}
