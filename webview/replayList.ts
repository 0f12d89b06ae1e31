/**
 * The Replay view's timeline: a virtualised list (fixed row height; only the rows in view, plus a
 * margin, are in the DOM), so a session of thousands of steps scrolls as smoothly as one of ten.
 * Arrow keys move between steps (prompts, checkpoints and approvals are passed over), Home/End jump,
 * Enter opens the selected step's diff.
 */
import { replayRowHeight as rowHeight, replayRowView } from '../src/ui/replayRows';
import type { TimelineEntryDto } from '../src/protocol/timelineRpc';
import { el } from './dom';
const overscan = 8;

interface ListEvents {
	onSelect(entry: Extract<TimelineEntryDto, { type: 'step' }>): void;
	onOpen(entry: Extract<TimelineEntryDto, { type: 'step' }>): void;
}

export class ReplayList {
	readonly element: HTMLElement;
	private readonly spacer: HTMLElement;
	private entries: TimelineEntryDto[] = [];
	/** This machine's user, so its approvals read "by you". */
	private you: string | null = null;
	private selected = -1;
	private drawn = '';

	constructor(private readonly events: ListEvents) {
		this.spacer = el('div', { class: 'spacer' });
		this.element = el('div', { class: 'rows', role: 'listbox', tabindex: 0, 'aria-label': 'Timeline' }, this.spacer);
		this.element.addEventListener('scroll', () => this.draw());
		this.element.addEventListener('keydown', (event) => this.onKey(event));
		new ResizeObserver(() => this.draw(true)).observe(this.element);
	}

	set(entries: TimelineEntryDto[], selectedId: string | null, you: string | null = null): void {
		this.you = you;
		this.entries = entries;
		const index = selectedId ? entries.findIndex((e) => e.id === selectedId) : -1;
		this.selected = index;
		this.spacer.style.height = `${entries.length * rowHeight}px`;
		this.draw(true);
	}

	get selectedEntry(): TimelineEntryDto | undefined {
		return this.entries[this.selected];
	}

	/** Rows in the DOM now (the test checks the list stays virtual). */
	get renderedRows(): number {
		return this.spacer.childElementCount;
	}

	private onKey(event: KeyboardEvent): void {
		const steps = (from: number, direction: 1 | -1): number => {
			for (let i = from + direction; i >= 0 && i < this.entries.length; i += direction) {
				if (this.entries[i]?.type === 'step') {
					return i;
				}
			}
			return -1;
		};
		let target: number;
		if (event.key === 'ArrowDown') {
			target = steps(this.selected, 1);
		} else if (event.key === 'ArrowUp') {
			target = steps(this.selected < 0 ? this.entries.length : this.selected, -1);
		} else if (event.key === 'Home') {
			target = steps(-1, 1);
		} else if (event.key === 'End') {
			target = steps(this.entries.length, -1);
		} else if (event.key === 'Enter') {
			const entry = this.entries[this.selected];
			if (entry?.type === 'step') {
				this.events.onOpen(entry);
			}
			event.preventDefault();
			return;
		} else {
			return;
		}
		event.preventDefault();
		if (target >= 0) {
			this.select(target);
		}
	}

	select(index: number): void {
		const entry = this.entries[index];
		if (entry?.type !== 'step') {
			return;
		}
		this.selected = index;
		const top = index * rowHeight;
		const view = this.element;
		if (top < view.scrollTop) {
			view.scrollTop = top;
		} else if (top + rowHeight > view.scrollTop + view.clientHeight) {
			view.scrollTop = top + rowHeight - view.clientHeight;
		}
		this.draw(true);
		this.events.onSelect(entry);
	}

	private draw(force = false): void {
		const view = this.element;
		const first = Math.max(0, Math.floor(view.scrollTop / rowHeight) - overscan);
		const last = Math.min(this.entries.length, Math.ceil((view.scrollTop + Math.max(view.clientHeight, rowHeight * 10)) / rowHeight) + overscan);
		const key = `${first}:${last}:${this.selected}`;
		if (!force && key === this.drawn) {
			return;
		}
		this.drawn = key;
		const rows = document.createDocumentFragment();
		for (let i = first; i < last; i++) {
			const entry = this.entries[i];
			if (entry) {
				const row = this.row(entry, i);
				// Through the CSSOM: the page's CSP refuses style attributes.
				row.style.top = `${i * rowHeight}px`;
				row.style.height = `${rowHeight}px`;
				rows.append(row);
			}
		}
		this.spacer.replaceChildren(rows);
	}

	/** The same row the extension writes into the page's first screen (src/ui/replayRows.ts), as DOM. */
	private row(entry: TimelineEntryDto, index: number): HTMLElement {
		const view = replayRowView(entry, this.you);
		const selected = index === this.selected;
		const attrs = {
			class: `${view.className}${selected ? ' selected' : ''}`,
			role: 'option',
			'aria-selected': selected ? 'true' : 'false',
			'data-index': index,
			...(entry.type === 'step' ? { onClick: () => this.select(index), onDblclick: () => this.events.onOpen(entry) } : {}),
		};
		return el(
			'div',
			attrs,
			el('span', { class: 'marker' }, view.marker),
			el('span', { class: 'label' }, view.label),
			el('span', { class: 'text', title: view.title }, view.text),
			view.stats !== undefined ? el('span', { class: 'stats' }, view.stats) : null,
		);
	}
}
