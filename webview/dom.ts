/**
 * Small DOM helpers for the webviews. Everything is built with `createElement` and text nodes, never
 * `innerHTML`, so data from the workspace (task titles, notes) can never become markup; and its
 * text and the attributes a person reads show control characters escaped, so a bidirectional
 * override in a name cannot reorder what the view shows (docs/architecture.md §2).
 */
import { escapeControls } from '../src/protocol/displayText';

export type Child = Node | string | number | null | undefined | false;
type AttrValue = string | number | boolean | null | undefined;
type Listener = (event: Event) => void;
type Attrs = Record<string, AttrValue | Listener>;

const svgNs = 'http://www.w3.org/2000/svg';

/** Attributes people read or hear; others (ids, focus keys, classes) are matched by code and stay as they are. */
const readAttributes = new Set(['title', 'aria-label', 'aria-description', 'aria-valuetext', 'placeholder', 'alt', 'label']);

function apply(node: Element, attrs: Attrs | undefined, children: readonly (Child | readonly Child[])[]): void {
	for (const [key, value] of Object.entries(attrs ?? {})) {
		if (typeof value === 'function') {
			node.addEventListener(key.replace(/^on/, '').toLowerCase(), value);
		} else if (value === true) {
			node.setAttribute(key, '');
		} else if (value !== false && value !== null && value !== undefined) {
			node.setAttribute(key, readAttributes.has(key) ? escapeControls(String(value)) : String(value));
		}
	}
	for (const child of children.flat()) {
		if (child === null || child === undefined || child === false) {
			continue;
		}
		node.append(typeof child === 'object' ? child : escapeControls(String(child)));
	}
}

/** `el('a', { class: 'x', onClick: fn }, 'text', other)`; `on*` functions become listeners. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs, ...children: (Child | readonly Child[])[]): HTMLElementTagNameMap[K];
export function el(tag: string, attrs?: Attrs, ...children: (Child | readonly Child[])[]): HTMLElement;
export function el(tag: string, attrs?: Attrs, ...children: (Child | readonly Child[])[]): HTMLElement {
	const node = document.createElement(tag);
	apply(node, attrs, children);
	return node;
}

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs?: Attrs, ...children: (Child | readonly Child[])[]): SVGElementTagNameMap[K] {
	const node = document.createElementNS(svgNs, tag);
	apply(node, attrs, children);
	return node;
}

/** Cuts text to `max` characters with an ellipsis; the full text belongs in a title or aria-label. */
export function truncate(text: string, max: number): string {
	return text.length <= max ? text : `${text.slice(0, Math.max(1, max - 1)).trimEnd()}…`;
}

const units: readonly [limitSeconds: number, divisor: number, unit: string][] = [
	[60 * 60, 60, 'min'],
	[24 * 60 * 60, 60 * 60, 'h'],
	[30 * 24 * 60 * 60, 24 * 60 * 60, 'd'],
	[365 * 24 * 60 * 60, 30 * 24 * 60 * 60, 'mo'],
	[Number.POSITIVE_INFINITY, 365 * 24 * 60 * 60, 'y'],
];

/** "just now", "5 min ago", "3 h ago", "in 2 d"; an unparsable time is returned as given. */
export function relativeTime(iso: string, now: number = Date.now()): string {
	const then = Date.parse(iso);
	if (Number.isNaN(then)) {
		return iso;
	}
	const seconds = Math.round((now - then) / 1000);
	const abs = Math.abs(seconds);
	if (abs < 45) {
		return 'just now';
	}
	for (const [limit, divisor, unit] of units) {
		if (abs < limit) {
			const value = Math.max(1, Math.round(abs / divisor));
			return seconds >= 0 ? `${value} ${unit} ago` : `in ${value} ${unit}`;
		}
	}
	return iso;
}

/** A `<time>` showing relative time, with the ISO time in its title; main.ts refreshes the text. */
export function timeEl(iso: string | null | undefined, fallback = '—'): HTMLElement {
	if (!iso) {
		return el('span', { class: 'muted' }, fallback);
	}
	return el('time', { datetime: iso, title: iso, 'data-relative': '' }, relativeTime(iso));
}

const absoluteFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** "Mar 11, 2025, 9:30 AM · 1 d ago": for facts where the exact moment matters. */
export function dateTimeEl(iso: string | null | undefined, fallback = '—'): HTMLElement {
	const time = iso ? Date.parse(iso) : Number.NaN;
	if (!iso || Number.isNaN(time)) {
		return el('span', { class: 'muted' }, iso ?? fallback);
	}
	return el(
		'span',
		{ class: 'datetime', title: iso },
		absoluteFormat.format(time),
		el('span', { class: 'muted' }, ' · ', el('time', { datetime: iso, 'data-relative': '' }, relativeTime(iso))),
	);
}

/** Re-renders every relative time on the page (they go stale while a panel stays open). */
export function refreshRelativeTimes(root: ParentNode, now: number = Date.now()): void {
	for (const node of root.querySelectorAll<HTMLTimeElement>('time[data-relative]')) {
		node.textContent = relativeTime(node.dateTime, now);
	}
}

/** 45 → "45 min", 125 → "2 h 5 min", 3000 → "2 d 2 h". */
export function formatDuration(minutes: number | null | undefined): string {
	if (minutes === null || minutes === undefined || !Number.isFinite(minutes)) {
		return '—';
	}
	const total = Math.max(0, Math.round(minutes));
	if (total < 60) {
		return `${total} min`;
	}
	const days = Math.floor(total / 1440);
	const hours = Math.floor((total % 1440) / 60);
	const mins = total % 60;
	if (days > 0) {
		return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
	}
	return mins > 0 ? `${hours} h ${mins} min` : `${hours} h`;
}

export function minutesBetween(fromIso: string, toIso: string | null, now: number = Date.now()): number | null {
	const from = Date.parse(fromIso);
	const to = toIso ? Date.parse(toIso) : now;
	return Number.isNaN(from) || Number.isNaN(to) ? null : Math.max(0, (to - from) / 60_000);
}

export function plural(count: number, one: string, many = `${one}s`): string {
	return `${count} ${count === 1 ? one : many}`;
}
