/**
 * Leverage of every task in one pass: how many counted tasks transitively wait on each task.
 *
 * A plain sum over dependents double counts through diamonds, so each strongly connected component
 * (a dependency cycle, or a single task) carries the exact set of counted tasks reachable from it as a
 * bitset. Components are finished in reverse topological order (Tarjan emits a component only after
 * everything it reaches), so each set is the union of its successors' sets plus its own members. A
 * component's set is dropped as soon as its last predecessor has read it, which keeps memory to the
 * frontier of the walk rather than one set per task. A component with a single successor (chains and
 * trees, the usual shapes) takes its count from that successor and, as its last reader, its set too:
 * no copy and no popcount, which is what a cold process (no JIT yet) pays for most.
 */
import { Places } from '../arrays';

/** `dependents.get(x)`: the tasks that wait on x. `counted(x)`: whether x counts when it waits. */
export function computeLeverage(
	ids: Iterable<string>,
	dependents: ReadonlyMap<string, readonly string[]>,
	counted: (id: string) => boolean,
): Map<string, number> {
	const places = new Places<string>();
	const names = places.values;
	for (const id of ids) {
		places.of(id);
	}
	const from: number[] = [];
	const to: number[] = [];
	for (const [on, list] of dependents) {
		const f = places.of(on);
		for (const waiting of list) {
			from.push(f);
			to.push(places.of(waiting));
		}
	}
	const isCounted = new Uint8Array(names.length);
	for (let i = 0; i < names.length; i++) {
		isCounted[i] = counted(names[i] as string) ? 1 : 0;
	}
	const values = leverageOfEdges(names.length, Int32Array.from(from), Int32Array.from(to), isCounted);
	const result = new Map<string, number>();
	for (let i = 0; i < names.length; i++) {
		result.set(names[i] as string, values[i] as number);
	}
	return result;
}

/**
 * The same over tasks numbered 0..n-1: edge k says task `to[k]` waits on task `from[k]`;
 * `counted[x]` is 1 when x counts. Returns each task's leverage.
 */
export function leverageOfEdges(n: number, from: Int32Array, to: Int32Array, counted: Uint8Array): Int32Array {
	const { start, edges } = adjacency(n, from, to);
	const { bit, words } = waitingBits(n, edges, counted);
	const { of: compOf, count: comps, members, memberStart } = tarjan(n, start, edges);
	const walk: Walk = {
		start,
		edges,
		compOf,
		members,
		memberStart,
		bit,
		words,
		readers: readerCounts(n, start, edges, compOf, comps),
		sets: new Array<Uint32Array | undefined>(comps),
		full: new Int32Array(comps),
		pool: [],
	};
	const result = new Int32Array(n);
	const shape: SuccessorShape = { cyclic: false, only: -1, many: false, toOnly: 0 };
	// Components are numbered in Tarjan's emission order: successors first.
	for (let c = 0; c < comps; c++) {
		scanSuccessors(walk, c, shape);
		const cyclic = shape.cyclic;
		let set: Uint32Array | undefined;
		let value: number;
		if (!cyclic && !shape.many) {
			// One successor (or none): this component reaches exactly what it stores, so its count is
			// known without a popcount, and its last reader takes the set over instead of copying it.
			value = shape.only === -1 ? 0 : (walk.full[shape.only] as number);
			set = shape.only === -1 ? undefined : inheritSet(walk, shape.only, shape.toOnly);
		} else {
			set = unionSuccessors(walk, c);
			// In a cycle every member reaches itself and the others, so they count for each other.
			if (cyclic) {
				set = addOwn(walk, set, c);
			}
			value = set ? popcount(set) : 0;
		}
		for (let m = memberStart[c] as number; m < (memberStart[c + 1] as number); m++) {
			result[members[m] as number] = value;
		}
		// An acyclic component's own tasks are not in what it reaches (that would be a cycle): they add.
		walk.full[c] = cyclic ? value : value + ownCount(walk, c);
		if (!cyclic) {
			set = addOwn(walk, set, c);
		}
		keepOrRecycle(walk, c, set);
	}
	return result;
}

/** The graph, its components and the sets being carried while components are finished one by one. */
interface Walk {
	start: Int32Array;
	edges: Int32Array;
	compOf: Int32Array;
	members: Int32Array;
	memberStart: Int32Array;
	/** Each task's bit in a set: -1 or -2 when it has none (it waits on nothing, or does not count). */
	bit: Int32Array;
	/** Words in a set. */
	words: number;
	/** How many cross-component edges still have to read each component's set. */
	readers: Int32Array;
	sets: (Uint32Array | undefined)[];
	/** How many counted tasks a component's stored set holds: a component with one successor reuses it. */
	full: Int32Array;
	/** Zeroed sets whose components have no readers left, for reuse. */
	pool: Uint32Array[];
}

/** A component's successor components: whether it is a cycle, and its one successor (with the edges to it) unless it has many. */
interface SuccessorShape {
	cyclic: boolean;
	only: number;
	many: boolean;
	toOnly: number;
}

/**
 * Adjacency in compressed rows: `from[k]`'s row lists `to[k]`, each row in edge order (a stable
 * counting sort). With the edges as the graph keeps them, from a task to the tasks waiting on it;
 * swapped, from a task to the tasks it waits on (taskGraph.ts).
 */
export function adjacency(n: number, from: Int32Array, to: Int32Array): { start: Int32Array; edges: Int32Array } {
	const start = new Int32Array(n + 1);
	for (let k = 0; k < from.length; k++) {
		const at = (from[k] as number) + 1;
		start[at] = (start[at] as number) + 1;
	}
	for (let i = 0; i < n; i++) {
		start[i + 1] = (start[i + 1] as number) + (start[i] as number);
	}
	const edges = new Int32Array(from.length);
	const fill = start.slice(0, n);
	for (let k = 0; k < from.length; k++) {
		const f = from[k] as number;
		edges[fill[f] as number] = to[k] as number;
		fill[f] = (fill[f] as number) + 1;
	}
	return { start, edges };
}

/** Only tasks that wait on something can ever be counted, so only they get a bit. */
function waitingBits(n: number, edges: Int32Array, counted: Uint8Array): { bit: Int32Array; words: number } {
	const bit = new Int32Array(n).fill(-1);
	let bits = 0;
	for (let e = 0; e < edges.length; e++) {
		const w = edges[e] as number;
		if (bit[w] === -1) {
			bit[w] = counted[w] === 1 ? bits++ : -2;
		}
	}
	return { bit, words: (bits + 31) >>> 5 };
}

/** How many cross-component edges read each component's set. */
function readerCounts(n: number, start: Int32Array, edges: Int32Array, compOf: Int32Array, comps: number): Int32Array {
	const readers = new Int32Array(comps);
	for (let u = 0; u < n; u++) {
		for (let e = start[u] as number; e < (start[u + 1] as number); e++) {
			const c = compOf[edges[e] as number] as number;
			if (c !== compOf[u]) {
				readers[c] = (readers[c] as number) + 1;
			}
		}
	}
	return readers;
}

/** Fills `shape` with component c's successors, to spot the common shapes (chains, trees) that need no bitset work. */
function scanSuccessors(walk: Walk, c: number, shape: SuccessorShape): void {
	const { start, edges, compOf, members, memberStart } = walk;
	shape.cyclic = (memberStart[c + 1] as number) - (memberStart[c] as number) > 1;
	shape.only = -1;
	shape.many = false;
	shape.toOnly = 0;
	for (let m = memberStart[c] as number; m < (memberStart[c + 1] as number); m++) {
		const u = members[m] as number;
		for (let e = start[u] as number; e < (start[u + 1] as number); e++) {
			const s = compOf[edges[e] as number] as number;
			if (s === c) {
				shape.cyclic = true;
			} else if (shape.only === -1 || shape.only === s) {
				shape.only = s;
				shape.toOnly++;
			} else {
				shape.many = true;
			}
		}
	}
}

/** The set of a component's one successor: taken over by its last reader, copied for the others. */
function inheritSet(walk: Walk, only: number, toOnly: number): Uint32Array | undefined {
	const { readers, sets } = walk;
	const other = sets[only];
	readers[only] = (readers[only] as number) - toOnly;
	if (readers[only] === 0) {
		sets[only] = undefined;
		return other;
	}
	if (!other) {
		return undefined;
	}
	const set = walk.pool.pop() ?? new Uint32Array(walk.words);
	set.set(other);
	return set;
}

/** The union of the sets of component c's successors; a successor whose last reader this is gives its set back to the pool. */
function unionSuccessors(walk: Walk, c: number): Uint32Array | undefined {
	const { start, edges, compOf, members, memberStart, readers, sets, pool } = walk;
	let set: Uint32Array | undefined;
	for (let m = memberStart[c] as number; m < (memberStart[c + 1] as number); m++) {
		const u = members[m] as number;
		for (let e = start[u] as number; e < (start[u + 1] as number); e++) {
			const s = compOf[edges[e] as number] as number;
			if (s === c) {
				continue;
			}
			const other = sets[s];
			if (other) {
				set ??= pool.pop() ?? new Uint32Array(walk.words);
				orInto(set, other);
			}
			readers[s] = (readers[s] as number) - 1;
			if (readers[s] === 0 && other) {
				other.fill(0);
				pool.push(other);
				sets[s] = undefined;
			}
		}
	}
	return set;
}

/** Adds component c's counted tasks to `target` (a set from the pool when there is none yet and one counts). */
function addOwn(walk: Walk, target: Uint32Array | undefined, c: number): Uint32Array | undefined {
	const { members, memberStart, bit } = walk;
	for (let m = memberStart[c] as number; m < (memberStart[c + 1] as number); m++) {
		const b = bit[members[m] as number] as number;
		if (b >= 0) {
			target ??= walk.pool.pop() ?? new Uint32Array(walk.words);
			target[b >>> 5] = (target[b >>> 5] as number) | (1 << (b & 31));
		}
	}
	return target;
}

/** How many of component c's own tasks count. */
function ownCount(walk: Walk, c: number): number {
	const { members, memberStart, bit } = walk;
	let own = 0;
	for (let m = memberStart[c] as number; m < (memberStart[c + 1] as number); m++) {
		own += (bit[members[m] as number] as number) >= 0 ? 1 : 0;
	}
	return own;
}

/** Keeps component c's set while readers remain, else zeroes it back into the pool. */
function keepOrRecycle(walk: Walk, c: number, set: Uint32Array | undefined): void {
	if ((walk.readers[c] as number) > 0) {
		walk.sets[c] = set;
	} else if (set) {
		set.fill(0);
		walk.pool.push(set);
	}
}

function orInto(target: Uint32Array, other: Uint32Array): void {
	for (let w = 0; w < target.length; w++) {
		target[w] = (target[w] as number) | (other[w] as number);
	}
}

function popcount(set: Uint32Array): number {
	let total = 0;
	for (let w = 0; w < set.length; w++) {
		let x = set[w] as number;
		if (x !== 0) {
			x -= (x >>> 1) & 0x55555555;
			x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
			total += Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
		}
	}
	return total;
}

/** Iterative Tarjan (no recursion: chains of 20k tasks would overflow the stack). */
function tarjan(n: number, start: Int32Array, edges: Int32Array): { of: Int32Array; count: number; members: Int32Array; memberStart: Int32Array } {
	const order = new Int32Array(n).fill(-1);
	const low = new Int32Array(n);
	const of = new Int32Array(n).fill(-1);
	const cursor = new Int32Array(n);
	const stack = new Int32Array(n);
	const call = new Int32Array(n);
	const members = new Int32Array(n);
	const memberStart: number[] = [0];
	let sp = 0;
	let next = 0;
	let count = 0;
	let filled = 0;
	for (let root = 0; root < n; root++) {
		if (order[root] !== -1) {
			continue;
		}
		let depth = 0;
		call[depth++] = root;
		order[root] = low[root] = next++;
		cursor[root] = start[root] as number;
		stack[sp++] = root;
		while (depth > 0) {
			const u = call[depth - 1] as number;
			if ((cursor[u] as number) < (start[u + 1] as number)) {
				const v = edges[cursor[u] as number] as number;
				cursor[u] = (cursor[u] as number) + 1;
				if (order[v] === -1) {
					order[v] = low[v] = next++;
					cursor[v] = start[v] as number;
					stack[sp++] = v;
					call[depth++] = v;
				} else if (of[v] === -1 && (order[v] as number) < (low[u] as number)) {
					low[u] = order[v] as number;
				}
				continue;
			}
			depth--;
			if (depth > 0) {
				const parent = call[depth - 1] as number;
				if ((low[u] as number) < (low[parent] as number)) {
					low[parent] = low[u] as number;
				}
			}
			if (low[u] === order[u]) {
				let w: number;
				do {
					w = stack[--sp] as number;
					of[w] = count;
					members[filled++] = w;
				} while (w !== u);
				count++;
				memberStart.push(filled);
			}
		}
	}
	return { of, count, members, memberStart: Int32Array.from(memberStart) };
}
