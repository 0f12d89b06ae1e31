import type { SessionDto, SessionStatusDto } from '../src/protocol/dto';
import type { WebviewToHost } from '../src/protocol/webview';
import { el, plural, relativeTime, svg, truncate } from './dom';
import { layoutGraph, type GraphEdge, type GraphLayout, type GraphNode } from './graphLayout';
import { button, empty, pageHeader, statusLabel } from './widgets';

interface GraphData {
	sessions: SessionDto[];
	focusId: string | null;
}

const columnWidth = 150;
const laneHeight = 78;
const padX = 84;
const padY = 6;
const nodeY = 28;
const radius = 8;
const labelChars = 20;

const x = (n: GraphNode): number => padX + n.column * columnWidth;
const y = (n: GraphNode): number => padY + n.lane * laneHeight + nodeY;

// The focus (and layout) the graph last scrolled to: a re-render for fresh data keeps the user's
// scroll position, a new focus scrolls to it.
let scrolledTo: string | undefined;

/**
 * The chain graph: one lane per scope, sessions left to right in time, solid chain edges
 * (predecessor → successor) and dashed fork edges (orchestrator → worker). Nodes are buttons: click,
 * Enter or Space opens the session; arrow keys move along a lane and between lanes.
 */
interface GraphOptions {
	/** Columns follow time across lanes (wider) instead of the compact chain layout. */
	alignTime: boolean;
	onAlignTimeChange(alignTime: boolean): void;
}

export function graphView({ sessions, focusId }: GraphData, send: (message: WebviewToHost) => void, options: GraphOptions): HTMLElement {
	const layout = layoutGraph(sessions, { alignTime: options.alignTime });
	const active = sessions.filter((s) => s.status === 'active').length;
	const align = el('vscode-checkbox', {
		label: 'Align to time',
		title: 'Place sessions by time across all lanes (wider) instead of compactly along their chains',
		checked: options.alignTime,
		'data-focus-key': 'align',
		onChange: (event: Event) => options.onAlignTimeChange((event.currentTarget as HTMLElement & { checked: boolean }).checked),
	});
	const header = pageHeader(
		[el('h1', {}, 'Chain graph')],
		[sessions.length === 0 ? 'No sessions yet' : `${plural(sessions.length, 'session')} in ${plural(layout.lanes.length, 'scope')} · ${active} active`],
		[sessions.length > 0 ? align : null, button('Refresh', () => send({ type: 'refresh' }), { secondary: true, icon: 'refresh', focusKey: 'refresh' })],
		'Graph actions',
	);
	if (sessions.length === 0) {
		return el('div', { class: 'view graph' }, header, empty('No sessions yet. Start one and it appears here, in a lane for its scope.'));
	}
	const open = (id: string): void => send({ type: 'openSession', sessionId: id });
	const scroller = el('div', { class: 'graph-scroll', 'data-keep-scroll': `graph:${options.alignTime ? 'time' : 'compact'}` }, canvas(layout, focusId, open));
	requestAnimationFrame(() => {
		const key = `${focusId ?? ''}:${options.alignTime}`;
		if (scrolledTo === key || !scroller.isConnected) {
			return;
		}
		scrolledTo = key;
		const target = layout.nodes.find((n) => n.session.id === focusId);
		if (target) {
			const labels = scroller.querySelector<HTMLElement>('.lane-labels')?.offsetWidth ?? 0;
			scroller.scrollLeft = Math.max(0, x(target) - (scroller.clientWidth - labels) / 2);
			scroller.scrollTop = Math.max(0, y(target) - scroller.clientHeight / 2);
		}
	});
	return el('div', { class: 'view graph' }, header, legend(), scroller);
}

function canvas(layout: GraphLayout, focusId: string | null, open: (id: string) => void): HTMLElement {
	const width = padX + Math.max(0, layout.columns - 1) * columnWidth + columnWidth / 2 + 16;
	const height = padY * 2 + layout.lanes.length * laneHeight;
	const labels = el(
		'div',
		{ class: 'lane-labels' },
		layout.lanes.map((lane) => {
			const label = el(
				'div',
				{ class: `lane-label ${lane.index % 2 === 1 ? 'odd' : ''}`.trim(), title: lane.scopeKey },
				el('span', { class: 'lane-scope' }, lane.scopeKey),
				el('span', { class: 'lane-count' }, plural(lane.nodes.length, 'session')),
			);
			// Positions go through CSSOM: the CSP allows no inline style attributes.
			label.style.top = `${padY + lane.index * laneHeight}px`;
			label.style.height = `${laneHeight}px`;
			return label;
		}),
	);
	labels.style.height = `${height}px`;

	const byId = new Map(layout.nodes.map((n) => [n.session.id, n]));
	// No viewBox: user units stay pixels, so the SVG can stretch to the panel (lane bands at 100%)
	// while the drawing keeps its size.
	const graph = svg(
		'svg',
		{ class: 'graph-svg', width: '100%', height, role: 'group', 'aria-label': 'Session chain graph' },
		defs(),
		layout.lanes.map((lane) =>
			svg('rect', {
				class: `lane-band ${lane.index % 2 === 1 ? 'odd' : ''}`.trim(),
				x: 0,
				y: padY + lane.index * laneHeight,
				width: '100%',
				height: laneHeight,
			}),
		),
		layout.lanes.map((lane) => {
			const first = lane.nodes[0];
			const last = lane.nodes[lane.nodes.length - 1];
			return first && last ? svg('line', { class: 'lane-line', x1: x(first) - 24, x2: x(last) + 24, y1: y(first), y2: y(first) }) : null;
		}),
		layout.edges.map(edgePath),
		layout.nodes.map((n) => nodeEl(n, n.session.id === focusId)),
	);
	graph.style.minWidth = `${width}px`;
	graph.addEventListener('click', (event) => {
		const id = nodeIdOf(event.target);
		if (id) {
			open(id);
		}
	});
	graph.addEventListener('keydown', (event) => {
		const id = nodeIdOf(event.target);
		const node = id ? byId.get(id) : undefined;
		if (!node) {
			return;
		}
		if (event.key === 'Enter' || event.key === ' ') {
			event.preventDefault();
			open(node.session.id);
			return;
		}
		const next = neighbour(layout, node, event.key);
		if (next) {
			event.preventDefault();
			graph.querySelector<SVGGElement>(`[data-session-id="${CSS.escape(next.session.id)}"]`)?.focus();
		}
	});
	const inner = el('div', { class: 'graph-canvas' }, labels, graph);
	return inner;
}

function nodeIdOf(target: EventTarget | null): string | undefined {
	return target instanceof Element ? (target.closest('[data-session-id]')?.getAttribute('data-session-id') ?? undefined) : undefined;
}

/** Arrow keys: along the lane, or to the nearest column in the lane above or below. */
function neighbour(layout: GraphLayout, node: GraphNode, key: string): GraphNode | undefined {
	const lane = layout.lanes[node.lane];
	if (!lane) {
		return undefined;
	}
	const index = lane.nodes.indexOf(node);
	switch (key) {
		case 'ArrowRight':
			return lane.nodes[index + 1];
		case 'ArrowLeft':
			return lane.nodes[index - 1];
		case 'Home':
			return lane.nodes[0];
		case 'End':
			return lane.nodes[lane.nodes.length - 1];
		case 'ArrowUp':
		case 'ArrowDown': {
			const other = layout.lanes[node.lane + (key === 'ArrowUp' ? -1 : 1)];
			let best: GraphNode | undefined;
			for (const candidate of other?.nodes ?? []) {
				if (!best || Math.abs(candidate.column - node.column) < Math.abs(best.column - node.column)) {
					best = candidate;
				}
			}
			return best;
		}
		default:
			return undefined;
	}
}

function defs(): SVGDefsElement {
	const marker = (id: string, className: string) =>
		svg(
			'marker',
			{ id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse', markerUnits: 'userSpaceOnUse' },
			svg('path', { d: 'M0 1 L10 5 L0 9 z', class: className }),
		);
	return svg('defs', {}, marker('arrow-chain', 'arrow arrow-chain'), marker('arrow-fork', 'arrow arrow-fork'));
}

function edgePath(edge: GraphEdge): SVGPathElement {
	const x1 = x(edge.from);
	const y1 = y(edge.from);
	const x2 = x(edge.to);
	const y2 = y(edge.to);
	const gap = radius + 4;
	let d: string;
	if (edge.from.lane === edge.to.lane && edge.kind === 'chain') {
		d = `M${x1 + gap} ${y1} L${x2 - gap} ${y2}`;
	} else if (edge.from.lane === edge.to.lane) {
		// A fork inside one lane arcs over the chain line instead of hiding under it.
		const lift = laneHeight * 0.36;
		d = `M${x1 + radius * 0.7} ${y1 - radius * 0.7} C${x1 + columnWidth * 0.3} ${y1 - lift}, ${x2 - columnWidth * 0.3} ${y2 - lift}, ${x2 - radius * 0.7 - 2} ${y2 - radius * 0.7 - 2}`;
	} else {
		const bend = Math.min(columnWidth * 0.6, Math.max(40, (x2 - x1) / 2));
		d = `M${x1 + radius} ${y1} C${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2 - gap} ${y2}`;
	}
	return svg(
		'path',
		{ class: `edge edge-${edge.kind}`, d, 'marker-end': `url(#arrow-${edge.kind})` },
		svg('title', {}, `${edge.kind === 'chain' ? 'Chain' : 'Fork'}: ${edge.from.session.name} → ${edge.to.session.name}`),
	);
}

function nodeEl(node: GraphNode, focused: boolean): SVGGElement {
	const s = node.session;
	const label = `${s.name}, ${statusLabel(s.status).toLowerCase()}, scope ${s.scopeKey}, started ${relativeTime(s.startedAt)}${focused ? ', focused' : ''}`;
	return svg(
		'g',
		{
			class: `node status-${s.status}${focused ? ' is-focus' : ''}`,
			transform: `translate(${x(node)} ${y(node)})`,
			tabindex: 0,
			role: 'button',
			'aria-label': label,
			'aria-current': focused ? 'true' : undefined,
			'data-session-id': s.id,
			'data-focus-key': `node:${s.id}`,
		},
		svg('title', {}, `${s.name}\n${statusLabel(s.status)} · ${s.scopeKey}\nstarted ${s.startedAt}\n${s.id}`),
		svg('rect', { class: 'node-hit', x: -columnWidth / 2 + 6, y: -nodeY + 4, width: columnWidth - 12, height: laneHeight - 8, rx: 4 }),
		svg('circle', { class: 'node-halo', r: radius + 5 }),
		svg('circle', { class: 'node-dot', r: radius }),
		glyph(s.status),
		svg('text', { class: 'node-label', y: radius + 15, 'text-anchor': 'middle' }, truncate(s.name, labelChars)),
		svg('text', { class: 'node-time', y: radius + 29, 'text-anchor': 'middle' }, relativeTime(s.startedAt)),
	);
}

/** A shape inside the dot, so status does not rest on colour alone. */
function glyph(status: SessionStatusDto): SVGElement | null {
	switch (status) {
		case 'active':
			return svg('circle', { class: 'node-glyph', r: 3 });
		case 'suspended':
			return svg('path', { class: 'node-glyph', d: 'M-3.5 -4h2.5v8h-2.5zM1 -4h2.5v8h-2.5z' });
		case 'ended':
			return svg('path', { class: 'node-glyph-stroke', d: 'M-3.5 0.5l2.3 2.3 4.4-4.8' });
		default:
			return null;
	}
}

function legend(): HTMLElement {
	const statuses: SessionStatusDto[] = ['active', 'suspended', 'ended', 'orphaned'];
	return el(
		'ul',
		{ class: 'legend', 'aria-label': 'Legend' },
		statuses.map((status) =>
			el(
				'li',
				{},
				svg(
					'svg',
					{ width: 18, height: 18, viewBox: '-10 -10 20 20', 'aria-hidden': 'true', class: `legend-node status-${status}` },
					svg('circle', { class: 'node-dot', r: radius }),
					glyph(status),
				),
				statusLabel(status),
			),
		),
		el(
			'li',
			{},
			svg('svg', { width: 28, height: 10, 'aria-hidden': 'true' }, svg('line', { class: 'edge edge-chain', x1: 1, x2: 27, y1: 5, y2: 5 })),
			'chain',
		),
		el(
			'li',
			{},
			svg('svg', { width: 28, height: 10, 'aria-hidden': 'true' }, svg('line', { class: 'edge edge-fork', x1: 1, x2: 27, y1: 5, y2: 5 })),
			'fork',
		),
	);
}
