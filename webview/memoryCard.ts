import type { BriefingDto, BriefingMemoryEntryDto } from '../src/protocol/dto';
import type { WebviewToHost } from '../src/protocol/webview';
import { el, plural, timeEl } from './dom';
import { card, empty, icon, linkButton } from './widgets';

/**
 * The briefing's project memory: the facts that outlive sessions, gotchas first, each with where it
 * came from and how often it was confirmed. A stale fact keeps its place and says why it may no
 * longer hold; the card counts every live fact and says how many it does not show.
 */
export function memoryCard(memory: BriefingDto['memory'], send: (message: WebviewToHost) => void): HTMLElement {
	const more = memory.total - memory.entries.length;
	const stale = memory.entries.filter((e) => e.staleSince).length;
	return card(
		'Project memory',
		{ count: memory.total },
		memory.entries.length === 0
			? empty('No facts yet. Gotchas and knowledge are kept from handoffs, decisions and agents’ retries, or added with `baton memory add`.')
			: [
					stale > 0
						? el(
								'p',
								{ class: 'hint' },
								`${plural(stale, 'fact')} may be out of date: confirm or retire ${stale === 1 ? 'it' : 'them'} (\`baton memory confirm|retire ID\`).`,
							)
						: null,
					el(
						'ul',
						{ class: 'rows memory' },
						memory.entries.map((e) => factRow(e, send)),
					),
					more > 0 ? el('p', { class: 'hint more' }, `and ${plural(more, 'more fact')} (\`baton memory list\`)`) : null,
				],
	);
}

function factRow(e: BriefingMemoryEntryDto, send: (message: WebviewToHost) => void): HTMLLIElement {
	const source = e.sourceSessionId;
	return el(
		'li',
		{ class: `row fact${e.staleSince ? ' fact-stale' : ''}` },
		el('div', { class: 'row-leading' }, el('span', { class: `pill memory-${e.kind}` }, e.kind === 'gotcha' ? icon('warning') : icon('book'), e.kind)),
		el(
			'div',
			{ class: 'row-main' },
			el('span', { class: 'row-title' }, e.text),
			el(
				'div',
				{ class: 'row-meta' },
				e.staleSince ? el('span', { class: 'pill stale', title: `Stale since ${e.staleSince}` }, `stale: ${e.staleReason ?? 'needs checking'}`) : null,
				...e.files.slice(0, 3).map((f) => el('code', { class: 'file' }, f)),
				e.files.length > 3 ? el('span', {}, `+${e.files.length - 3}`) : null,
				source
					? linkButton(`from ${e.sourceSessionName ?? 'a session'}`, () => send({ type: 'openSession', sessionId: source }), {
							'aria-label': `Open session ${e.sourceSessionName ?? source}, where this fact was learned`,
							title: `Session id: ${source}`,
							'data-focus-key': `fact:${e.id}`,
						})
					: el('span', {}, e.source === 'manual' ? 'added by hand' : `from ${e.source}`),
				el(
					'span',
					{ title: `Last confirmed ${e.lastConfirmedAt}` },
					e.confirmations > 1 ? `confirmed ${e.confirmations}×, ` : 'confirmed ',
					timeEl(e.lastConfirmedAt),
				),
			),
		),
	);
}
