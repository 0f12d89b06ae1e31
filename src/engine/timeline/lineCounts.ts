/**
 * A file's added and deleted lines between two versions, as `git diff --numstat` counts them, without
 * a git process, where the answer cannot depend on the diff algorithm: a file with a NUL byte in its
 * first 8,000 bytes is binary (no counts); lines keep their line break (a last line that gains one
 * counts as changed); git, like this, sets aside the lines both versions start and end with, and when
 * none of the lines left on one side occurs among those left on the other, every one of them is
 * changed whatever the algorithm. Otherwise (lines moved or kept between changed ones, where git's
 * heuristics decide) the answer is null: ask git.
 */
import { commonEnds } from '../text/commonEnds';

const binaryProbe = 8_000;

export type LineCount = { binary: true } | { binary: false; additions: number; deletions: number };

function isBinary(content: Buffer): boolean {
	return content.subarray(0, binaryProbe).includes(0);
}

/** The counts, or null when git's diff must decide them. */
export function lineCounts(before: Buffer, after: Buffer): LineCount | null {
	if (isBinary(before) || isBinary(after)) {
		return { binary: true };
	}
	const a = splitLines(before);
	const b = splitLines(after);
	const { start, endA, endB } = commonEnds(a, b);
	const left = new Set(a.slice(start, endA));
	for (let i = start; i < endB; i++) {
		if (left.has(b[i] as string)) {
			return null;
		}
	}
	return { binary: false, additions: endB - start, deletions: endA - start };
}

function splitLines(content: Buffer): string[] {
	const text = content.toString('latin1');
	const lines: string[] = [];
	let at = 0;
	for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', at)) {
		lines.push(text.slice(at, nl + 1));
		at = nl + 1;
	}
	if (at < text.length) {
		lines.push(text.slice(at));
	}
	return lines;
}
