import type { ComparisonDto, FileChangeDto } from '../../src/protocol/checkpointDto';
import { formatCount, modeChange, type FileCounts } from '../compareModel';
import { el, plural } from '../dom';
import { button, card, empty } from '../widgets';
import { checkpointName, fromName, type Send } from './compareShared';

/** Rows drawn before "Show all": a comparison of thousands of files stays quick to draw and to scroll. */
const initialFileRows = 200;
/** Below this many files the filter box is clutter. */
const filterFrom = 10;

// What the user did to the file list of the comparison on screen (filter text, "Show all"). It
// outlives re-renders for fresh data of the same comparison and resets for another one.
let fileState = { key: '', query: '', expanded: false };

/** Keeps the filter and "Show all" while the same comparison re-renders; resets them for another. */
export function keepFileState(key: string): void {
	if (fileState.key !== key) {
		fileState = { key, query: '', expanded: false };
	}
}

export function filesCard(comparison: ComparisonDto, counts: FileCounts, send: Send): HTMLElement {
	const { files, to, from } = comparison;
	if (files.length === 0) {
		const none =
			!from && to
				? `${checkpointName(to)} holds no files.`
				: to
					? 'No file changes between these checkpoints.'
					: `The working tree matches ${fromName(comparison)}.`;
		return card('Files', { count: 0, headingId: 'files-heading' }, empty(none));
	}
	const tbody = el('tbody', {});
	const status = el('p', { class: 'hint file-status', role: 'status' });
	const more = el('div', { class: 'file-more' });
	const open = (path: string): void => send({ type: 'openFileDiff', path });

	// One listener for every row: clicking anywhere on a row opens its diff; the path is a real
	// <button>, so Tab, Enter and Space work and screen readers announce it.
	tbody.addEventListener('click', (event) => {
		const row = event.target instanceof Element ? event.target.closest<HTMLElement>('tr[data-path]') : null;
		const path = row?.dataset['path'];
		if (path !== undefined && !window.getSelection()?.toString()) {
			open(path);
		}
	});

	const draw = (focusFirstNew = false): void => {
		const query = fileState.query.trim().toLowerCase();
		const matches = query ? files.filter((f) => f.path.toLowerCase().includes(query)) : files;
		const limit = fileState.expanded ? matches.length : Math.min(matches.length, initialFileRows);
		const before = tbody.rows.length;
		if (focusFirstNew && before <= limit) {
			// "Show all": keep the rows already there and append the rest.
			tbody.append(rowsOf(matches, before, limit));
			tbody.rows[before]?.querySelector<HTMLElement>('button')?.focus();
		} else {
			tbody.replaceChildren(rowsOf(matches, 0, limit));
		}
		status.textContent =
			matches.length === 0
				? `No changed file matches “${fileState.query.trim()}”.`
				: limit < matches.length
					? `Showing ${formatCount(limit)} of ${formatCount(matches.length)} ${query ? 'matching files' : 'files'}.`
					: query
						? `${plural(matches.length, 'file')} of ${formatCount(files.length)} match.`
						: '';
		status.hidden = status.textContent === '';
		more.replaceChildren(
			limit < matches.length
				? button(
						`Show all ${formatCount(matches.length)}`,
						() => {
							fileState.expanded = true;
							draw(true);
						},
						{ secondary: true, focusKey: 'show-all-files', ariaLabel: `Show all ${formatCount(matches.length)} ${query ? 'matching ' : ''}files` },
					)
				: '',
		);
	};

	const filter =
		files.length >= filterFrom
			? el('input', {
					type: 'search',
					class: 'file-filter',
					placeholder: 'Filter by path',
					'aria-label': 'Filter changed files by path',
					'aria-controls': 'file-table',
					spellcheck: 'false',
					autocomplete: 'off',
					value: fileState.query,
					'data-focus-key': 'file-filter',
					onInput: (event: Event) => {
						fileState.query = (event.currentTarget as HTMLInputElement).value;
						draw();
					},
				})
			: null;
	draw();

	return card(
		'Files',
		{ count: files.length, headingId: 'files-heading' },
		el(
			'ul',
			{ class: 'stats file-stats', 'aria-label': 'Change summary' },
			stat(counts.added, 'added', 'change-added'),
			stat(counts.modified, 'modified', 'change-modified'),
			stat(counts.deleted, 'deleted', 'change-deleted'),
			stat(counts.linesAdded, counts.linesAdded === 1 ? 'line added' : 'lines added', 'lines-added', '+'),
			stat(counts.linesRemoved, counts.linesRemoved === 1 ? 'line removed' : 'lines removed', 'lines-removed', '−'),
			counts.binary > 0 ? stat(counts.binary, counts.binary === 1 ? 'binary file' : 'binary files', 'binary') : null,
		),
		filter ? el('div', { class: 'file-tools' }, filter) : null,
		status,
		el(
			'div',
			{ class: 'file-table-wrap', 'data-keep-scroll': 'files' },
			el(
				'table',
				{ class: 'file-table', id: 'file-table', 'aria-describedby': 'file-table-hint' },
				el('caption', { class: 'visually-hidden' }, `Changed files from ${fromName(comparison)} to ${to ? checkpointName(to) : 'the working tree'}`),
				el(
					'thead',
					{},
					el(
						'tr',
						{},
						el('th', { scope: 'col', class: 'col-change' }, 'Change'),
						el('th', { scope: 'col', class: 'col-path' }, 'File'),
						el('th', { scope: 'col', class: 'col-lines' }, 'Lines'),
						el('th', { scope: 'col', class: 'col-mode' }, 'Mode'),
					),
				),
				tbody,
			),
		),
		el('p', { class: 'hint', id: 'file-table-hint' }, 'Select a file to open its diff.'),
		more,
	);
}

function stat(value: number, label: string, className: string, prefix = ''): HTMLElement {
	return el(
		'li',
		{ class: className },
		el('span', { class: 'stat-value' }, `${value > 0 ? prefix : ''}${formatCount(value)}`),
		el('span', { class: 'stat-label' }, label),
	);
}

const changeLabels: Record<string, string> = { added: 'Added', modified: 'Modified', deleted: 'Deleted' };

/** The rows of `files[from..to)` in one fragment: a spread of thousands of rows into append() overflows the stack. */
function rowsOf(files: readonly FileChangeDto[], from: number, to: number): DocumentFragment {
	const rows = document.createDocumentFragment();
	for (let i = from; i < to; i++) rows.append(fileRow(files[i]!));
	return rows;
}

function fileRow(f: FileChangeDto): HTMLTableRowElement {
	const slash = f.path.lastIndexOf('/');
	const dir = slash >= 0 ? f.path.slice(0, slash + 1) : '';
	const name = f.path.slice(slash + 1);
	const mode = modeChange(f);
	const lines = f.binary ? 'binary' : `${f.additions ?? 0} ${f.additions === 1 ? 'line' : 'lines'} added, ${f.deletions ?? 0} removed`;
	const kind = changeLabels[f.change] ?? f.change;
	return el(
		'tr',
		{ class: `file-row change-${f.change}`, 'data-path': f.path },
		el('td', { class: 'col-change' }, el('span', { class: `pill change change-${f.change}` }, kind)),
		el(
			'td',
			{ class: 'col-path' },
			el(
				'button',
				{
					type: 'button',
					class: 'link file-link',
					title: f.path,
					'aria-label': `${f.path}: ${kind.toLowerCase()}, ${lines}${mode ? `, ${mode.spoken}` : ''}. Open diff`,
					'data-focus-key': `file:${f.path}`,
				},
				// <wbr> after each slash: a long path wraps between folders, not inside a name.
				dir
					? el(
							'span',
							{ class: 'file-dir' },
							dir.split('/').flatMap((part, i) => (i === 0 ? [part] : ['/', el('wbr'), part])),
						)
					: null,
				el('span', { class: 'file-name' }, name),
			),
		),
		el(
			'td',
			{ class: 'col-lines' },
			f.binary || f.additions === null || f.deletions === null
				? el('span', { class: 'muted' }, 'binary')
				: f.additions === 0 && f.deletions === 0
					? el('span', { class: 'muted', title: 'No line changes' }, '—')
					: [
							f.additions > 0 || f.deletions === 0 ? el('span', { class: 'lines-added' }, `+${formatCount(f.additions)}`) : null,
							f.deletions > 0 ? el('span', { class: 'lines-removed' }, `−${formatCount(f.deletions)}`) : null,
						],
		),
		el('td', { class: 'col-mode' }, mode ? el('span', { class: `mode${mode.notable ? ' is-notable' : ''}`, title: mode.spoken }, mode.text) : null),
	);
}
