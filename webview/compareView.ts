import type { ApprovalSummaryDto, CategoryDiffDto, CheckpointDto, ComparisonDto, EnvironmentCategoryDto, FileChangeDto } from '../src/protocol/checkpointDto';
import type { WebviewToHost } from '../src/protocol/webview';
import { countFiles, formatBytes, formatCount, modeChange, type FileCounts } from './compareModel';
import { dateTimeEl, el, plural, timeEl, type Child } from './dom';
import { approvalLabel, approvalPill, button, callout, card, chip, columns, empty, facts, icon, pageHeader, srOnly } from './widgets';

type Send = (message: WebviewToHost) => void;
type Category = EnvironmentCategoryDto;

/** Rows drawn before "Show all": a comparison of thousands of files stays quick to draw and to scroll. */
export const initialFileRows = 200;
/** Below this many files the filter box is clutter. */
const filterFrom = 10;

const categoryLabels: Record<Category, string> = {
	agents: 'Agents',
	vscode: 'VS Code',
	extensions: 'Extensions',
	mcpServers: 'MCP servers',
	runtimes: 'Runtimes',
	packages: 'Packages',
	git: 'Git',
};

// What the user did to the file list of the comparison on screen (filter text, "Show all"). It
// outlives re-renders for fresh data of the same comparison and resets for another one.
let fileState = { key: '', query: '', expanded: false };

/**
 * Two checkpoints side by side (or a checkpoint and the working tree): what each is, which files
 * changed between them, how the environment moved, and where approval stands, with the actions that
 * apply: approve or reject the newer side while it waits for review, roll back to the older one.
 */
export function compareView(comparison: ComparisonDto, send: Send): HTMLElement {
	const { from, to } = comparison;
	const key = `${from.id}>${to?.id ?? ''}`;
	if (fileState.key !== key) {
		fileState = { key, query: '', expanded: false };
	}
	const counts = countFiles(comparison.files);
	return el(
		'div',
		{ class: 'view compare' },
		header(comparison, counts, send),
		snapshotWarnings(comparison),
		el('div', { class: 'compare-sides' }, sideCard(from, 'from', comparison, send), sideCard(to, 'to', comparison, send)),
		columns([filesCard(comparison, counts, send)], [approvalCard(comparison, send), environmentCard(comparison)]),
	);
}

export function checkpointName(cp: CheckpointDto): string {
	return `Checkpoint #${cp.seq}`;
}

function header(comparison: ComparisonDto, counts: FileCounts, send: Send): HTMLElement {
	const { from, to } = comparison;
	const sessions = [...new Set([from.sessionId, to?.sessionId].filter((s): s is string => typeof s === 'string'))];
	const subtitle: Child[] = [];
	if (sessions.length > 0) {
		subtitle.push(sessions.length === 1 ? 'Session' : 'Sessions', ...sessions.map((s) => el('code', { class: 'session-id', title: 'Session id' }, s)), sep());
	}
	subtitle.push(
		comparison.files.length === 0 ? 'no file changes' : `${formatCount(comparison.files.length)} ${comparison.files.length === 1 ? 'file' : 'files'} changed`,
		comparison.files.length > 0 ? el('span', { class: 'line-counts' }, lineCounts(counts.linesAdded, counts.linesRemoved)) : null,
		sep(),
		comparison.environment.note ? 'environment not compared' : comparison.environment.changed ? 'environment changed' : 'same environment',
	);
	return pageHeader(
		[el('h1', { class: 'compare-title' }, el('span', {}, checkpointName(from)), el('span', { class: 'compare-arrow', 'aria-hidden': 'true' }, '→'), srOnly(' compared with '), el('span', {}, to ? checkpointName(to) : 'working tree'))],
		subtitle,
		[button('Refresh', () => send({ type: 'refresh' }), { secondary: true, icon: 'refresh', focusKey: 'refresh' })],
		'Comparison actions',
	);
}

function sep(): HTMLElement {
	return el('span', { 'aria-hidden': 'true' }, '·');
}

function lineCounts(added: number, removed: number): HTMLElement[] {
	return [el('span', { class: 'lines-added', title: `${formatCount(added)} lines added` }, `+${formatCount(added)}`), el('span', { class: 'lines-removed', title: `${formatCount(removed)} lines removed` }, `−${formatCount(removed)}`)];
}

/** Partial snapshots and files left out are easy to miss in a list of changes: they lead the page. */
function snapshotWarnings(comparison: ComparisonDto): Child[] {
	const sides = [comparison.from, comparison.to].filter((cp): cp is CheckpointDto => cp !== null);
	const out: Child[] = [];
	for (const cp of sides) {
		if (cp.fileStats.degraded) {
			out.push(
				callout(
					'warning',
					`${checkpointName(cp)} is a partial snapshot`,
					el('p', {}, cp.fileStats.degradedReason ?? 'Some files were not captured before the time budget ran out.'),
					el('p', { class: 'hint' }, 'Files it did not capture are as of the checkpoint before it, so this comparison may miss changes.'),
				),
			);
		}
	}
	const skipping = sides.filter((cp) => cp.fileStats.skippedTotal > 0 || cp.fileStats.skipped.length > 0);
	if (skipping.length > 0) {
		const total = skipping.reduce((sum, cp) => sum + Math.max(cp.fileStats.skippedTotal, cp.fileStats.skipped.length), 0);
		out.push(
			el(
				'div',
				{ class: 'skipped-callout' },
				callout(
					'warning',
					`${plural(total, 'file')} not captured`,
					el('p', {}, 'Skipped files are in neither snapshot, so their changes are not in this comparison and a rollback leaves them as they are.'),
					skipping.map((cp) => {
						const { skipped, skippedTotal } = cp.fileStats;
						const more = skippedTotal - skipped.length;
						return el(
							'div',
							{ class: 'skipped-side' },
							el('h3', {}, `${checkpointName(cp)}: ${plural(Math.max(skippedTotal, skipped.length), 'file')} skipped`),
							el(
								'ul',
								{ class: 'bullets skipped-list' },
								skipped.map((s) => el('li', {}, el('span', {}, el('code', { class: 'wrap' }, s.path), el('span', { class: 'muted' }, ` ${s.size > 0 ? `${formatBytes(s.size)} · ` : ''}${s.reason}`)))),
								more > 0 ? el('li', { class: 'muted' }, `and ${plural(more, 'more file')} not listed`) : null,
							),
						);
					}),
				),
			),
		);
	}
	return out;
}

// ---- the two sides ----

function sideCard(cp: CheckpointDto | null, side: 'from' | 'to', comparison: ComparisonDto, send: Send): HTMLElement {
	const headingId = `side-${side}`;
	if (!cp) {
		return el(
			'div',
			{ class: 'side side-to is-working-tree' },
			card(
				'To',
				{ headingId },
				el('p', { class: 'side-title' }, icon('file'), el('span', {}, 'Working tree')),
				el('p', { class: 'muted side-note' }, 'The workspace as it is now. It is not a checkpoint: take one to approve or share this state.'),
			),
		);
	}
	const isNewer = (comparison.to ?? comparison.from).id === cp.id;
	const actions: Child[] = [];
	if (side === 'from') {
		actions.push(
			button('Roll back to this checkpoint', () => send({ type: 'checkpointAction', action: 'rollback', checkpointId: cp.id }), {
				secondary: true,
				icon: 'undo',
				focusKey: `rollback:${cp.id}`,
				ariaLabel: `Roll back the workspace to ${checkpointName(cp)}`,
				title: 'Restore the workspace to this checkpoint (a safety checkpoint is taken first)',
			}),
		);
	}
	return el(
		'div',
		{ class: `side side-${side}` },
		card(
			side === 'from' ? 'From' : 'To',
			{ headingId },
			el('p', { class: 'side-title' }, el('span', { class: 'seq' }, `#${cp.seq}`), cp.message ? el('span', { class: 'side-message' }, cp.message) : el('span', { class: 'muted' }, 'No message')),
			el('div', { class: 'row-meta side-meta' }, chip(cp.trigger, { class: 'chip trigger', title: `Trigger: ${cp.trigger}` }), approvalPill(cp.approvalStatus), timeEl(cp.createdAt)),
			facts([
				['Created', dateTimeEl(cp.createdAt)],
				['Session', cp.sessionId ? el('code', { class: 'session-id' }, cp.sessionId) : el('span', { class: 'muted' }, 'none')],
				[
					'Tags',
					cp.tags.length > 0
						? el(
								'span',
								{ class: 'tags' },
								cp.tags.map((t) => chip(t, { class: 'chip tag' })),
							)
						: el('span', { class: 'muted' }, 'none'),
				],
				['Approval', approvalFacts(summaryOf(cp), cp.approvalPolicy, cp.escalationReasons.length > 0)],
				['Snapshot', el('span', {}, `${formatCount(cp.fileStats.totalFiles)} ${cp.fileStats.totalFiles === 1 ? 'file' : 'files'} · `, el('code', { title: cp.commitSha }, cp.commitSha.slice(0, 8)))],
				['Id', el('code', { class: 'wrap' }, cp.id)],
			]),
			cp.escalationReasons.length > 0 ? escalation(cp) : null,
			isNewer && cp.approvalStatus === 'pending' ? el('p', { class: 'hint' }, 'Waiting for review: approve or reject it under Approval.') : null,
			actions.length > 0 ? el('div', { class: 'toolbar side-actions' }, actions) : null,
		),
	);
}

function summaryOf(cp: CheckpointDto): ApprovalSummaryDto {
	return { status: cp.approvalStatus, user: cp.approvalUser, at: cp.approvalAt, reason: cp.approvalReason };
}

/** "Approved by alice · 2 h ago", then why (unless the escalation list below says it), then the policy it fell under. */
function approvalFacts(summary: ApprovalSummaryDto, policy: string | null, escalated: boolean): HTMLElement {
	const reason = summary.reason && !(escalated && summary.reason.startsWith('escalated:')) ? summary.reason : null;
	const who: Child[] = [];
	if (summary.user) who.push(' by ', el('span', { class: 'approval-user' }, summary.user));
	if (summary.at) who.push(' · ', timeEl(summary.at));
	return el(
		'div',
		{ class: 'approval-facts' },
		el('span', {}, el('strong', {}, approvalLabel(summary.status)), who),
		reason ? el('span', { class: 'muted approval-reason' }, reason) : null,
		policy ? el('span', { class: 'muted' }, `${policy} policy`) : null,
	);
}

function escalation(cp: CheckpointDto): HTMLElement {
	return el(
		'div',
		{ class: 'escalation', role: 'group', 'aria-label': `Escalation reasons for ${checkpointName(cp)}` },
		el('strong', {}, 'Escalated'),
		el(
			'ul',
			{ class: 'bullets blockers' },
			cp.escalationReasons.map((r) => el('li', {}, icon('warning'), el('span', {}, r))),
		),
	);
}

// ---- files ----

function filesCard(comparison: ComparisonDto, counts: FileCounts, send: Send): HTMLElement {
	const { files, to, from } = comparison;
	if (files.length === 0) {
		return card('Files', { count: 0, headingId: 'files-heading' }, empty(to ? 'No file changes between these checkpoints.' : `The working tree matches ${checkpointName(from)}.`));
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
			tbody.append(...matches.slice(before, limit).map(fileRow));
			tbody.rows[before]?.querySelector<HTMLElement>('button')?.focus();
		} else {
			tbody.replaceChildren(...matches.slice(0, limit).map(fileRow));
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
				el('caption', { class: 'visually-hidden' }, `Changed files from ${checkpointName(from)} to ${to ? checkpointName(to) : 'the working tree'}`),
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
	return el('li', { class: className }, el('span', { class: 'stat-value' }, `${value > 0 ? prefix : ''}${formatCount(value)}`), el('span', { class: 'stat-label' }, label));
}

const changeLabels: Record<string, string> = { added: 'Added', modified: 'Modified', deleted: 'Deleted' };

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
				{ type: 'button', class: 'link file-link', title: f.path, 'aria-label': `${f.path}: ${kind.toLowerCase()}, ${lines}${mode ? `, ${mode.spoken}` : ''}. Open diff`, 'data-focus-key': `file:${f.path}` },
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
					: [f.additions > 0 || f.deletions === 0 ? el('span', { class: 'lines-added' }, `+${formatCount(f.additions)}`) : null, f.deletions > 0 ? el('span', { class: 'lines-removed' }, `−${formatCount(f.deletions)}`) : null],
		),
		el('td', { class: 'col-mode' }, mode ? el('span', { class: `mode${mode.notable ? ' is-notable' : ''}`, title: mode.spoken }, mode.text) : null),
	);
}

// ---- approval ----

function approvalCard(comparison: ComparisonDto, send: Send): HTMLElement {
	const { from, to } = comparison;
	const newer = to ?? from;
	const newerSummary = to ? (comparison.approval.to ?? summaryOf(to)) : comparison.approval.from;
	const actions: Child[] = [];
	if (newer.approvalStatus === 'pending') {
		actions.push(
			button('Approve', () => send({ type: 'checkpointAction', action: 'approve', checkpointId: newer.id }), {
				icon: 'check',
				focusKey: `approve:${newer.id}`,
				ariaLabel: `Approve ${checkpointName(newer)}`,
			}),
			button('Reject', () => send({ type: 'checkpointAction', action: 'reject', checkpointId: newer.id }), {
				secondary: true,
				icon: 'close',
				focusKey: `reject:${newer.id}`,
				ariaLabel: `Reject ${checkpointName(newer)}`,
			}),
		);
	}
	return card(
		'Approval',
		{ headingId: 'approval-heading' },
		el(
			'ol',
			{ class: 'approval-steps', 'aria-label': 'Approval status from the older side to the newer side' },
			approvalStep(checkpointName(from), comparison.approval.from),
			to
				? approvalStep(checkpointName(to), comparison.approval.to ?? summaryOf(to))
				: el('li', { class: 'approval-step' }, el('span', { class: 'step-name' }, 'Working tree'), el('span', { class: 'muted' }, 'not a checkpoint: nothing to approve')),
		),
		el('p', { class: 'approval-change' }, approvalSentence(comparison)),
		newer.approvalStatus === 'pending' && newer.escalationReasons.length > 0
			? el('p', { class: 'hint' }, `Escalated: ${newer.escalationReasons.join('; ')}.`)
			: newer.approvalStatus === 'pending' && newerSummary.reason
				? el('p', { class: 'hint' }, newerSummary.reason)
				: null,
		actions.length > 0 ? el('div', { class: 'toolbar', role: 'group', 'aria-label': `Review ${checkpointName(newer)}` }, actions) : null,
	);
}

function approvalStep(name: string, summary: ApprovalSummaryDto): HTMLElement {
	const who: Child[] = [];
	if (summary.user) who.push(`by ${summary.user}`);
	if (summary.at) who.push(timeEl(summary.at));
	return el(
		'li',
		{ class: 'approval-step' },
		el('span', { class: 'step-name' }, name),
		approvalPill(summary.status),
		who.length > 0
			? el(
					'span',
					{ class: 'muted step-who' },
					who.flatMap((part, i) => (i > 0 ? [' · ', part] : [part])),
				)
			: null,
	);
}

function approvalSentence(comparison: ComparisonDto): string {
	const { from, to } = comparison;
	if (!to) {
		return from.approvalStatus === 'pending' ? `${checkpointName(from)} still waits for review.` : `${checkpointName(from)} is ${approvalLabel(from.approvalStatus).toLowerCase()}; the working tree has changed since.`;
	}
	const a = (comparison.approval.from ?? summaryOf(from)).status;
	const b = (comparison.approval.to ?? summaryOf(to)).status;
	if (a === b) {
		return `Both checkpoints are ${approvalLabel(a).toLowerCase()}.`;
	}
	return `${approvalLabel(a)} → ${approvalLabel(b).toLowerCase()}.`;
}

// ---- environment ----

function environmentCard(comparison: ComparisonDto): HTMLElement {
	const env = comparison.environment;
	const categories = Object.keys(categoryLabels) as Category[];
	const changedCategories = categories.filter((c) => size(env[c]) > 0);
	const total = changedCategories.reduce((sum, c) => sum + size(env[c]), 0);
	let body: Child | Child[];
	if (env.note) {
		body = [el('p', { class: 'env-note' }, icon('info'), el('span', {}, `Not compared: ${env.note}.`)), el('p', { class: 'hint' }, 'Checkpoints taken before environment capture existed, or with capture turned off, have no snapshot.')];
	} else if (!env.changed || changedCategories.length === 0) {
		body = empty('No environment changes.');
	} else {
		const unchanged = categories.filter((c) => size(env[c]) === 0).map((c) => categoryLabels[c]);
		body = [...changedCategories.map((c) => envCategory(c, env[c])), unchanged.length > 0 ? el('p', { class: 'hint env-unchanged' }, `Unchanged: ${unchanged.join(', ')}.`) : null];
	}
	return card('Environment', { count: env.note ? undefined : total, headingId: 'environment-heading' }, body);
}

function size(diff: CategoryDiffDto | undefined): number {
	return diff ? diff.added.length + diff.removed.length + diff.changed.length : 0;
}

function envCategory(category: Category, diff: CategoryDiffDto): HTMLElement {
	const items: HTMLElement[] = [
		...diff.changed.map((c) => envItem('changed', c.key, [el('code', { class: 'wrap env-from' }, c.from), el('span', { class: 'env-arrow', 'aria-hidden': 'true' }, '→'), srOnly(' to '), el('code', { class: 'wrap env-to' }, c.to)])),
		...diff.added.map((a) => envItem('added', a.key, [el('code', { class: 'wrap' }, a.value)])),
		...diff.removed.map((r) => envItem('removed', r.key, [el('code', { class: 'wrap env-from' }, r.value)])),
	];
	return el(
		'section',
		{ class: `env-category env-${category}`, 'aria-label': `${categoryLabels[category]}: ${plural(items.length, 'change')}` },
		el('h3', {}, categoryLabels[category], el('span', { class: 'muted env-count' }, ` ${items.length}`)),
		el('ul', { class: 'env-list' }, items),
	);
}

function envItem(kind: 'added' | 'removed' | 'changed', key: string, value: Child[]): HTMLElement {
	return el(
		'li',
		{ class: `env-item env-${kind}` },
		el('span', { class: `pill change change-${kind === 'changed' ? 'modified' : kind === 'removed' ? 'deleted' : 'added'}` }, kind),
		el('span', { class: 'env-key' }, key),
		el('span', { class: 'env-value' }, value),
	);
}
