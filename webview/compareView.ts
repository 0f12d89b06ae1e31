import type { ComparisonDto } from '../src/protocol/checkpointDto';
import { approvalCard } from './compare/approvalCard';
import type { Send } from './compare/compareShared';
import { environmentCard } from './compare/environmentCard';
import { filesCard, keepFileState } from './compare/filesCard';
import { header, snapshotWarnings } from './compare/headerCard';
import { sideCard } from './compare/sideCard';
import { countFiles } from './compareModel';
import { el } from './dom';
import { columns } from './widgets';

/**
 * Two checkpoints side by side (or a checkpoint and the working tree): what each is, which files
 * changed between them, how the environment moved, and where approval stands, with the actions that
 * apply: approve or reject the newer side while it waits for review, roll back to the older one.
 * One module per card under ./compare.
 */
export function compareView(comparison: ComparisonDto, send: Send): HTMLElement {
	const { from, to } = comparison;
	keepFileState(`${from?.id ?? ''}>${to?.id ?? ''}`);
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
