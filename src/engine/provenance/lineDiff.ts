/**
 * Line matching between two versions of a file (Myers' O(ND) diff on interned lines, common prefix
 * and suffix trimmed first). Provenance carries a line's origin only along a match, so a diff too
 * large to compute exactly reports that it gave up instead of guessing: the caller marks the
 * unmatched lines `unknown`.
 */
import { commonEnds } from '../text/commonEnds';

/** Edits beyond this are not searched (memory grows with the square of the edit distance). */
const maxEditDistance = 3000;

export interface LineMatch {
	/** For each line of `b`, the index of the line of `a` it is, or -1 when it is new in `b`. */
	bToA: Int32Array;
	/** False when the edit distance was over the limit: only the common prefix and suffix are matched. */
	exact: boolean;
}

export function matchLines(a: readonly string[], b: readonly string[]): LineMatch {
	const bToA = new Int32Array(b.length).fill(-1);
	const { start, endA, endB } = commonEnds(a, b);
	for (let i = 0; i < start; i++) {
		bToA[i] = i;
	}
	for (let k = 0; endB + k < b.length; k++) {
		bToA[endB + k] = endA + k;
	}
	if (endA === start || endB === start) {
		return { bToA, exact: true };
	}
	const ids = new Map<string, number>();
	const intern = (line: string): number => {
		let id = ids.get(line);
		if (id === undefined) {
			id = ids.size;
			ids.set(line, id);
		}
		return id;
	};
	const x = Int32Array.from(a.slice(start, endA), intern);
	const y = Int32Array.from(b.slice(start, endB), intern);
	const pairs = myers(x, y);
	if (!pairs) {
		return { bToA, exact: false };
	}
	for (let i = 0; i < pairs.length; i += 2) {
		bToA[start + pairs[i + 1]!] = start + pairs[i]!;
	}
	return { bToA, exact: true };
}

/** Matched (i, j) pairs, flattened, or undefined past the edit limit. */
function myers(a: Int32Array, b: Int32Array): number[] | undefined {
	const n = a.length;
	const m = b.length;
	const max = Math.min(n + m, maxEditDistance);
	const offset = max + 1;
	const v = new Int32Array(2 * max + 3);
	const trace: Int32Array[] = [];
	let found = -1;
	for (let d = 0; d <= max && found < 0; d++) {
		trace.push(v.slice(offset - d - 1, offset + d + 2));
		for (let k = -d; k <= d; k += 2) {
			let xPos = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
			let yPos = xPos - k;
			while (xPos < n && yPos < m && a[xPos] === b[yPos]) {
				xPos++;
				yPos++;
			}
			v[offset + k] = xPos;
			if (xPos >= n && yPos >= m) {
				found = d;
				break;
			}
		}
	}
	if (found < 0) {
		return undefined;
	}
	// Walk back through the saved frontiers, collecting the diagonal (matching) moves.
	const pairs: number[] = [];
	let xPos = n;
	let yPos = m;
	for (let d = found; d > 0; d--) {
		const saved = trace[d]!;
		const at = (k: number): number => saved[k + d + 1]!;
		const k = xPos - yPos;
		const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
		const prevX = at(prevK);
		const prevY = prevX - prevK;
		// The edit move ends here; the snake after it is matched lines.
		const startX = prevK === k + 1 ? prevX : prevX + 1;
		const startY = prevK === k + 1 ? prevY + 1 : prevY;
		while (xPos > startX && yPos > startY) {
			xPos--;
			yPos--;
			pairs.push(xPos, yPos);
		}
		xPos = prevX;
		yPos = prevY;
	}
	while (xPos > 0 && yPos > 0) {
		xPos--;
		yPos--;
		pairs.push(xPos, yPos);
	}
	return pairs;
}
