/**
 * The lines two versions start and end with: `a[0, start)` equals `b[0, start)`, and `a[endA, …)`
 * equals `b[endB, …)`, the suffix taken only from what the prefix left. What lies between is what a
 * diff has to look at (git sets these aside the same way).
 */
interface CommonEnds {
	start: number;
	endA: number;
	endB: number;
}

export function commonEnds(a: readonly string[], b: readonly string[]): CommonEnds {
	let start = 0;
	while (start < a.length && start < b.length && a[start] === b[start]) {
		start++;
	}
	let endA = a.length;
	let endB = b.length;
	while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
		endA--;
		endB--;
	}
	return { start, endA, endB };
}
