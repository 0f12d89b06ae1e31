/**
 * Line matching between two versions of a file (Myers' O(ND) diff on interned lines, common prefix
 * and suffix trimmed first). Provenance carries a line's origin only along a match, so a diff too
 * large to compute exactly reports that it gave up instead of guessing: the caller marks the
 * unmatched lines `unknown`.
 */
import { commonEnds } from '../text/commonEnds';

/** Edits beyond this are not searched (memory grows with the square of the edit distance). */
const maxEditDistance = 3000;

/** Up to this many edits the lines themselves are compared; beyond it, numbers standing for them. */
const directEdits = 64;

interface LineMatch {
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
	// Few edits (the usual step or commit): the lines are compared as they are, which costs about one
	// comparison per line. Past `directEdits` the search starts again on numbered lines, so that the
	// many comparisons of a large edit are integer ones; each line is hashed once for that. Either way
	// the same lines are equal, so the matches are the same.
	let pairs = myers(a, start, endA, b, start, endB, Math.min(directEdits, maxEditDistance));
	if (!pairs && maxEditDistance > directEdits) {
		const ids = new Map<string, number>();
		const number = (lines: readonly string[], from: number, to: number): Int32Array => {
			const out = new Int32Array(to - from);
			for (let i = from; i < to; i++) {
				const line = lines[i]!;
				let id = ids.get(line);
				if (id === undefined) {
					id = ids.size;
					ids.set(line, id);
				}
				out[i - from] = id;
			}
			return out;
		};
		const x = number(a, start, endA);
		const y = number(b, start, endB);
		pairs = myers(x, 0, x.length, y, 0, y.length, maxEditDistance);
	}
	if (!pairs) {
		return { bToA, exact: false };
	}
	for (let i = 0; i < pairs.length; i += 2) {
		bToA[start + pairs[i + 1]!] = start + pairs[i]!;
	}
	return { bToA, exact: true };
}

/**
 * Matched (i, j) pairs of `a[aFrom, aTo)` and `b[bFrom, bTo)`, flattened and counted from `aFrom` and
 * `bFrom`, or undefined past `limit` edits.
 */
function myers<T>(a: ArrayLike<T>, aFrom: number, aTo: number, b: ArrayLike<T>, bFrom: number, bTo: number, limit: number): number[] | undefined {
	const n = aTo - aFrom;
	const m = bTo - bFrom;
	const max = Math.min(n + m, limit);
	const offset = max + 1;
	const v = new Int32Array(2 * max + 3);
	const trace: Int32Array[] = [];
	let found = -1;
	for (let d = 0; d <= max && found < 0; d++) {
		trace.push(v.slice(offset - d - 1, offset + d + 2));
		for (let k = -d; k <= d; k += 2) {
			let xPos = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
			let yPos = xPos - k;
			while (xPos < n && yPos < m && a[aFrom + xPos] === b[bFrom + yPos]) {
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
