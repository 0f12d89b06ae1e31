/**
 * Loops in place of spreading an array into a call. `f(...xs)` puts every element on the stack as an
 * argument, so past roughly 100,000 elements it throws `RangeError: Maximum call stack size exceeded`
 * (seen at 100k sessions in `Math.max(0, ...takenSeqs)` and `out.push(...events)`). eslint.config.mjs
 * forbids spread arguments in src/; these are what to write instead. A leaf: it imports nothing.
 */

/** Appends every item to `target` (what `target.push(...items)` does, at any size); returns `target`. */
export function pushAll<T>(target: T[], items: Iterable<T>): T[] {
	for (const item of items) target.push(item);
	return target;
}

/** The largest of `items` and `init` (`Math.max(init, ...items)` at any size). */
export function maxOf(items: Iterable<number>, init: number): number {
	let max = init;
	for (const item of items) if (item > max || Number.isNaN(item)) max = item;
	return max;
}

/** The smallest of `items` and `init` (`Math.min(init, ...items)` at any size). */
export function minOf(items: Iterable<number>, init: number): number {
	let min = init;
	for (const item of items) if (item < min || Number.isNaN(item)) min = item;
	return min;
}

/** Each distinct value's place, in the order first seen: dense numbers for ids (typed arrays, columns of a file). */
export class Places<T> {
	/** The values by place. */
	readonly values: T[] = [];
	private readonly at = new Map<T, number>();

	/** The place of `value`, given the next one when it is new. */
	of(value: T): number {
		let at = this.at.get(value);
		if (at === undefined) {
			at = this.values.length;
			this.at.set(value, at);
			this.values.push(value);
		}
		return at;
	}
}

/** The next `count` items of `stream` (fewer at its end). */
export function take<T>(stream: Iterator<T>, count: number): T[] {
	const out: T[] = [];
	while (out.length < count) {
		const next = stream.next();
		if (next.done) {
			break;
		}
		out.push(next.value);
	}
	return out;
}
