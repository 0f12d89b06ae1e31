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

/** `dependents.get(x)`: the tasks that wait on x. `counted(x)`: whether x counts when it waits. */
export function computeLeverage(ids: Iterable<string>, dependents: ReadonlyMap<string, readonly string[]>, counted: (id: string) => boolean): Map<string, number> {
	const index = new Map<string, number>();
	const names: string[] = [];
	const add = (id: string): number => {
		let i = index.get(id);
		if (i === undefined) {
			i = names.length;
			index.set(id, i);
			names.push(id);
		}
		return i;
	};
	for (const id of ids) {
		add(id);
	}
	const from: number[] = [];
	const to: number[] = [];
	for (const [on, list] of dependents) {
		const f = add(on);
		for (const waiting of list) {
			from.push(f);
			to.push(add(waiting));
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
	// Adjacency in compressed rows: edges from a task to the tasks waiting on it.
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
	// Only tasks that wait on something can ever be counted, so only they get a bit.
	const bit = new Int32Array(n).fill(-1);
	let bits = 0;
	for (let e = 0; e < edges.length; e++) {
		const w = edges[e] as number;
		if (bit[w] === -1) {
			bit[w] = counted[w] === 1 ? bits++ : -2;
		}
	}
	const words = (bits + 31) >>> 5;

	const comp = tarjan(n, start, edges);
	const { of: compOf, count: comps, members, memberStart } = comp;
	// How many cross-component edges still have to read each component's set.
	const readers = new Int32Array(comps);
	for (let u = 0; u < n; u++) {
		for (let e = start[u] as number; e < (start[u + 1] as number); e++) {
			const c = compOf[edges[e] as number] as number;
			if (c !== compOf[u]) {
				readers[c] = (readers[c] as number) + 1;
			}
		}
	}
	const sets: (Uint32Array | undefined)[] = new Array(comps);
	/** How many counted tasks a component's stored set holds: a component with one successor reuses it. */
	const full = new Int32Array(comps);
	const pool: Uint32Array[] = [];
	const result = new Int32Array(n);
	// Kept out of the loop body as plain functions: a closure over `set` would slow every access to it.
	const addOwn = (target: Uint32Array | undefined, c: number): Uint32Array | undefined => {
		for (let m = memberStart[c] as number; m < (memberStart[c + 1] as number); m++) {
			const b = bit[members[m] as number] as number;
			if (b >= 0) {
				target ??= pool.pop() ?? new Uint32Array(words);
				target[b >>> 5] = (target[b >>> 5] as number) | (1 << (b & 31));
			}
		}
		return target;
	};
	const ownCount = (c: number): number => {
		let own = 0;
		for (let m = memberStart[c] as number; m < (memberStart[c + 1] as number); m++) {
			own += (bit[members[m] as number] as number) >= 0 ? 1 : 0;
		}
		return own;
	};
	// Components are numbered in Tarjan's emission order: successors first.
	for (let c = 0; c < comps; c++) {
		let set: Uint32Array | undefined;
		let cyclic = (memberStart[c + 1] as number) - (memberStart[c] as number) > 1;
		// The successor components, to spot the common shapes (chains, trees) that need no bitset work.
		let only = -1;
		let many = false;
		let toOnly = 0;
		for (let m = memberStart[c] as number; m < (memberStart[c + 1] as number); m++) {
			const u = members[m] as number;
			for (let e = start[u] as number; e < (start[u + 1] as number); e++) {
				const s = compOf[edges[e] as number] as number;
				if (s === c) {
					cyclic = true;
				} else if (only === -1 || only === s) {
					only = s;
					toOnly++;
				} else {
					many = true;
				}
			}
		}
		let value: number;
		if (!cyclic && !many) {
			// One successor (or none): this component reaches exactly what it stores, so its count is
			// known without a popcount, and its last reader takes the set over instead of copying it.
			value = only === -1 ? 0 : (full[only] as number);
			if (only !== -1) {
				const other = sets[only];
				readers[only] = (readers[only] as number) - toOnly;
				if (readers[only] === 0) {
					set = other;
					sets[only] = undefined;
				} else if (other) {
					set = pool.pop() ?? new Uint32Array(words);
					set.set(other);
				}
			}
		} else {
			for (let m = memberStart[c] as number; m < (memberStart[c + 1] as number); m++) {
				const u = members[m] as number;
				for (let e = start[u] as number; e < (start[u + 1] as number); e++) {
					const s = compOf[edges[e] as number] as number;
					if (s === c) {
						continue;
					}
					const other = sets[s];
					if (other) {
						set ??= pool.pop() ?? new Uint32Array(words);
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
			// In a cycle every member reaches itself and the others, so they count for each other.
			if (cyclic) {
				set = addOwn(set, c);
			}
			value = set ? popcount(set) : 0;
		}
		for (let m = memberStart[c] as number; m < (memberStart[c + 1] as number); m++) {
			result[members[m] as number] = value;
		}
		// An acyclic component's own tasks are not in what it reaches (that would be a cycle): they add.
		full[c] = cyclic ? value : value + ownCount(c);
		if (!cyclic) {
			set = addOwn(set, c);
		}
		if ((readers[c] as number) > 0) {
			sets[c] = set;
		} else if (set) {
			set.fill(0);
			pool.push(set);
		}
	}
	return result;
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
