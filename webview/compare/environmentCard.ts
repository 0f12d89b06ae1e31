import type { CategoryDiffDto, ComparisonDto, EnvironmentCategoryDto } from '../../src/protocol/checkpointDto';
import { el, plural, type Child } from '../dom';
import { card, empty, icon, srOnly } from '../widgets';
import { environmentKeyLabel } from '../compareModel';

type Category = EnvironmentCategoryDto;

const categoryLabels: Record<Category, string> = {
	agents: 'Agents',
	vscode: 'VS Code',
	extensions: 'Extensions',
	mcpServers: 'MCP servers',
	runtimes: 'Runtimes',
	packages: 'Packages',
	git: 'Git',
};

/** How the environment (agents, editor, extensions, runtimes, packages, git) moved between the sides. */
export function environmentCard(comparison: ComparisonDto): HTMLElement {
	const env = comparison.environment;
	const categories = Object.keys(categoryLabels) as Category[];
	const changedCategories = categories.filter((c) => size(env[c]) > 0);
	const total = changedCategories.reduce((sum, c) => sum + size(env[c]), 0);
	// What one side could not observe is said once, apart from the changes (older saved state lacks it).
	const notCompared = env.notCompared ?? [];
	const unknown =
		notCompared.length > 0
			? el(
					'div',
					{ class: 'env-unknown' },
					el('p', { class: 'hint' }, 'Not compared (one side could not observe it):'),
					el(
						'ul',
						{ class: 'bullets env-unknown-list' },
						notCompared.map((u) =>
							el(
								'li',
								{},
								el(
									'span',
									{},
									el(
										'strong',
										u.key ? { title: u.key } : {},
										`${categoryLabels[u.category]}${u.key ? ` ${environmentKeyLabel(u.category, u.key)}` : ''}`,
									),
									el('span', { class: 'muted' }, `: ${u.reason}`),
								),
							),
						),
					),
				)
			: null;
	let body: Child | Child[];
	if (env.note) {
		body = [
			el('p', { class: 'env-note' }, icon('info'), el('span', {}, `Not compared: ${env.note}.`)),
			comparison.from
				? el('p', { class: 'hint' }, 'Checkpoints taken before environment capture existed, or with capture turned off, have no snapshot.')
				: null,
		];
	} else if (!env.changed || changedCategories.length === 0) {
		body = [empty(notCompared.length > 0 ? 'No changes in what both sides observed.' : 'No environment changes.'), unknown];
	} else {
		const blind = new Set(notCompared.filter((u) => u.key === null).map((u) => u.category));
		const unchanged = categories.filter((c) => size(env[c]) === 0 && !blind.has(c)).map((c) => categoryLabels[c]);
		body = [
			...changedCategories.map((c) => envCategory(c, env[c])),
			unchanged.length > 0 ? el('p', { class: 'hint env-unchanged' }, `Unchanged: ${unchanged.join(', ')}.`) : null,
			unknown,
		];
	}
	return card('Environment', { count: env.note ? undefined : total, headingId: 'environment-heading' }, body);
}

function size(diff: CategoryDiffDto | undefined): number {
	return diff ? diff.added.length + diff.removed.length + diff.changed.length : 0;
}

function envCategory(category: Category, diff: CategoryDiffDto): HTMLElement {
	const items: HTMLElement[] = [
		...diff.changed.map((c) =>
			envItem(category, 'changed', c.key, [
				el('code', { class: 'wrap env-from' }, c.from),
				el('span', { class: 'env-arrow', 'aria-hidden': 'true' }, '→'),
				srOnly(' to '),
				el('code', { class: 'wrap env-to' }, c.to),
			]),
		),
		...diff.added.map((a) => envItem(category, 'added', a.key, [el('code', { class: 'wrap' }, a.value)])),
		...diff.removed.map((r) => envItem(category, 'removed', r.key, [el('code', { class: 'wrap env-from' }, r.value)])),
	];
	return el(
		'section',
		{ class: `env-category env-${category}`, 'aria-label': `${categoryLabels[category]}: ${plural(items.length, 'change')}` },
		el('h3', {}, categoryLabels[category], el('span', { class: 'muted env-count' }, ` ${items.length}`)),
		el('ul', { class: 'env-list' }, items),
	);
}

function envItem(category: Category, kind: 'added' | 'removed' | 'changed', key: string, value: Child[]): HTMLElement {
	return el(
		'li',
		{ class: `env-item env-${kind}` },
		el('span', { class: `pill change change-${kind === 'changed' ? 'modified' : kind === 'removed' ? 'deleted' : 'added'}` }, kind),
		el('span', { class: 'env-key', title: key }, environmentKeyLabel(category, key)),
		el('span', { class: 'env-value' }, value),
	);
}
