/**
 * Stored text is data, never control (docs/architecture.md §2, "Stored text is shown, never obeyed").
 * What an agent or an import wrote (a session name, a note, a prompt, a memory) can hold bytes a
 * terminal obeys (ESC and CSI sequences, CR over a line) or that reorder what an editor shows (the
 * bidirectional overrides of "Trojan Source"). Every text output shows them escaped with
 * `escapeControls`, and NUL is dropped where text comes in (`withoutNul`).
 *
 * This file imports nothing: the protocol re-exports it, so the CLI, the engine's markdown, the
 * editor's trees and the webviews escape with this one function.
 */

/**
 * C0 but tab and newline (CR included: alone it rewrites a terminal line), DEL, C1, and the
 * bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E,
 * U+2066–U+2069).
 */
// eslint-disable-next-line no-control-regex -- matching them is the point
const controls = /\r\n|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The text with each control character shown as its escape (`\x1b`, `\x9b`, `\u202e`); tab and
 * newline are kept, CRLF is shown as a newline, everything else (emoji, CJK, accents) is untouched.
 * Escaping twice gives the same as once. Not a round trip: a backslash is not doubled, so Windows
 * paths read as they are; `--json` keeps the original text.
 */
export function escapeControls(text: string): string {
	return text.replace(controls, (c) => {
		if (c === '\r\n') {
			return '\n';
		}
		const code = c.charCodeAt(0);
		return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
	});
}

/** A string, array or plain object with every NUL removed from its strings and keys (other values as they are). */
export function withoutNul<T>(value: T): T {
	return dropNul(value) as T;
}

function dropNul(value: unknown): unknown {
	if (typeof value === 'string') {
		return value.includes('\0') ? value.replaceAll('\0', '') : value;
	}
	if (Array.isArray(value)) {
		return value.map(dropNul);
	}
	if (value !== null && typeof value === 'object' && isPlain(value)) {
		const out: Record<string, unknown> = Object.getPrototypeOf(value) === null ? Object.create(null) : {};
		for (const [key, inner] of Object.entries(value)) {
			Object.defineProperty(out, dropNul(key) as string, { value: dropNul(inner), enumerable: true, writable: true, configurable: true });
		}
		return out;
	}
	return value;
}

function isPlain(value: object): boolean {
	const proto: unknown = Object.getPrototypeOf(value);
	return proto === null || proto === Object.prototype;
}

/**
 * A warning's or an error's line as the CLI prints it (its stderr logger, and the daemon for a command):
 * prefixed, its control characters escaped — a message can quote what an agent, an import or a teammate
 * wrote (a name, a path, an event's kind).
 */
export function logLine(level: 'warning' | 'error', message: string): string {
	return `baton: ${level}: ${escapeControls(message)}\n`;
}
