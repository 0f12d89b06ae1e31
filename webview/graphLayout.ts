import type { SessionDto } from '../src/protocol/dto';

export interface GraphNode {
	session: SessionDto;
	lane: number;
	column: number;
}

interface GraphLane {
	scopeKey: string;
	index: number;
	/** Nodes of this lane, left to right. */
	nodes: GraphNode[];
}

export interface GraphEdge {
	from: GraphNode;
	to: GraphNode;
	kind: 'chain' | 'fork';
}

export interface GraphLayout {
	lanes: GraphLane[];
	nodes: GraphNode[];
	edges: GraphEdge[];
	columns: number;
}

/** Milliseconds; an unparsable time sorts first instead of poisoning the sort with NaN. */
function time(iso: string): number {
	const t = Date.parse(iso);
	return Number.isNaN(t) ? 0 : t;
}

function endOf(s: SessionDto): number {
	return Math.max(time(s.startedAt), time(s.endedAt ?? s.suspendedAt ?? s.lastActivity));
}

/**
 * Places sessions on a grid: one lane (row) per scope key, in the order scopes first appear. Within a
 * lane sessions go left to right by start time, and every session sits right of its chain predecessor
 * and its fork parent, so edges always point right. That compact layout keeps a few hundred sessions
 * a few dozen columns wide. With `alignTime`, a session also sits right of every session (in any
 * lane) that had finished before it started: columns then read as time, at the cost of width, and
 * sessions that overlapped in time may still share a column. O(n log n) either way: two sorts and
 * one sweep.
 */
export function layoutGraph(sessions: readonly SessionDto[], options: { alignTime: boolean }): GraphLayout {
	const byStart = [...sessions].sort((a, b) => time(a.startedAt) - time(b.startedAt) || a.id.localeCompare(b.id));
	const byEnd = [...byStart].sort((a, b) => endOf(a) - endOf(b));
	const nodeOf = new Map<string, GraphNode>();
	const lanes: GraphLane[] = [];
	const laneOf = new Map<string, GraphLane>();
	const nodes: GraphNode[] = [];
	let endCursor = 0;
	// Highest column among sessions that ended before the current one started.
	let finishedFrontier = -1;
	let columns = 0;

	for (const session of byStart) {
		const start = time(session.startedAt);
		while (options.alignTime && endCursor < byEnd.length && endOf(byEnd[endCursor] as SessionDto) < start) {
			const done = nodeOf.get((byEnd[endCursor] as SessionDto).id);
			if (done) {
				finishedFrontier = Math.max(finishedFrontier, done.column);
			}
			endCursor++;
		}
		let lane = laneOf.get(session.scopeKey);
		if (!lane) {
			lane = { scopeKey: session.scopeKey, index: lanes.length, nodes: [] };
			laneOf.set(session.scopeKey, lane);
			lanes.push(lane);
		}
		const last = lane.nodes[lane.nodes.length - 1];
		let column = Math.max(finishedFrontier + 1, last ? last.column + 1 : 0);
		for (const linked of [session.previousSessionId, session.parentSessionId]) {
			const other = linked ? nodeOf.get(linked) : undefined;
			if (other) {
				column = Math.max(column, other.column + 1);
			}
		}
		const node: GraphNode = { session, lane: lane.index, column };
		lane.nodes.push(node);
		nodes.push(node);
		nodeOf.set(session.id, node);
		columns = Math.max(columns, column + 1);
	}

	const edges: GraphEdge[] = [];
	for (const node of nodes) {
		const previous = node.session.previousSessionId ? nodeOf.get(node.session.previousSessionId) : undefined;
		if (previous) {
			edges.push({ from: previous, to: node, kind: 'chain' });
		}
		const parent = node.session.parentSessionId ? nodeOf.get(node.session.parentSessionId) : undefined;
		if (parent) {
			edges.push({ from: parent, to: node, kind: 'fork' });
		}
	}
	return { lanes, nodes, edges, columns };
}
