import type { CheckpointDto, ComparisonDto } from '../../src/protocol/checkpointDto';
import { formatBytes, formatCount, type FileCounts } from '../compareModel';
import { el, plural, type Child } from '../dom';
import { button, callout, pageHeader, srOnly } from '../widgets';
import { checkpointName, fromName, sessionName, toName, type Send } from './compareShared';

/** The page header: which checkpoints, how much changed; then warnings about what the snapshots miss. */
export function header(comparison: ComparisonDto, counts: FileCounts, send: Send): HTMLElement {
	const { from, to } = comparison;
	const sessions = [...new Set([from?.sessionId, to?.sessionId].filter((s): s is string => typeof s === 'string'))];
	const subtitle: Child[] = [];
	if (sessions.length > 0) {
		subtitle.push(
			sessions.length === 1 ? 'Session' : 'Sessions',
			...sessions.flatMap((s, i) => [i > 0 ? ', ' : ' ', el('span', { class: 'session-name', title: `Session id: ${s}` }, sessionName(comparison, s))]),
			sep(),
		);
	}
	subtitle.push(
		comparison.files.length === 0
			? 'no file changes'
			: `${formatCount(comparison.files.length)} ${comparison.files.length === 1 ? 'file' : 'files'} changed`,
		comparison.files.length > 0 ? el('span', { class: 'line-counts' }, lineCounts(counts.linesAdded, counts.linesRemoved)) : null,
		sep(),
		comparison.environment.note
			? 'environment not compared'
			: comparison.environment.changed
				? 'environment changed'
				: (comparison.environment.notCompared ?? []).length > 0
					? 'same environment where both sides could see'
					: 'same environment',
	);
	return pageHeader(
		[
			el(
				'h1',
				{ class: 'compare-title' },
				el('span', {}, fromName(comparison)),
				el('span', { class: 'compare-arrow', 'aria-hidden': 'true' }, '→'),
				srOnly(' compared with '),
				el('span', {}, toName(comparison)),
			),
		],
		subtitle,
		[button('Refresh', () => send({ type: 'refresh' }), { secondary: true, icon: 'refresh', focusKey: 'refresh' })],
		'Comparison actions',
	);
}

function sep(): HTMLElement {
	return el('span', { 'aria-hidden': 'true' }, '·');
}

function lineCounts(added: number, removed: number): HTMLElement[] {
	return [
		el('span', { class: 'lines-added', title: `${formatCount(added)} lines added` }, `+${formatCount(added)}`),
		el('span', { class: 'lines-removed', title: `${formatCount(removed)} lines removed` }, `−${formatCount(removed)}`),
	];
}

/** Partial snapshots and files left out are easy to miss in a list of changes: they lead the page. */
export function snapshotWarnings(comparison: ComparisonDto): Child[] {
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
								skipped.map((s) =>
									el(
										'li',
										{},
										el(
											'span',
											{},
											el('code', { class: 'wrap' }, s.path),
											el('span', { class: 'muted' }, ` ${s.size > 0 ? `${formatBytes(s.size)} · ` : ''}${s.reason}`),
										),
									),
								),
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
