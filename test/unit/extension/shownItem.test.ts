/**
 * The editor's trees show stored control characters escaped (docs/architecture.md §2): `shownItem`
 * escapes what a person reads on a tree item, and every `getTreeItem`/`resolveTreeItem` in
 * src/extension returns through it, so a new view or a new field on an old one is covered.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { shownItem } from '../../../src/extension/format';
import { rawControl } from '../helpers';

const hostile = 'A\u001b[2J\u001b]0;title\u0007B\rC\u009b31mD\u202eE';
const shown = 'A\\x1b[2J\\x1b]0;title\\x07B\\x0dC\\x9b31mD\\u202eE';

/** `vscode.MarkdownString` as far as the tooltip goes: its `value` can be set. */
class Markdown {
	constructor(public value: string) {}
}

void describe('tree items show stored text escaped', () => {
	void it('escapes the label, description, tooltip and spoken label, and leaves the rest', () => {
		const command = { command: 'baton.show', title: 'Show', arguments: [{ id: 'ses_1' }] };
		const item = shownItem({
			label: `name ${hostile}`,
			description: `note ${hostile}`,
			tooltip: new Markdown(`**name** ${hostile}\n\ttab 日本 🚀`),
			accessibilityInformation: { label: hostile, role: 'treeitem' },
			id: 'session:ses_1',
			command,
		});
		assert.equal(item.label, `name ${shown}`);
		assert.equal(item.description, `note ${shown}`);
		assert.ok(item.tooltip instanceof Markdown, 'the markdown tooltip stays one');
		assert.equal(item.tooltip.value, `**name** ${shown}\n\ttab 日本 🚀`);
		assert.deepEqual(item.accessibilityInformation, { label: shown, role: 'treeitem' });
		assert.equal(item.id, 'session:ses_1');
		assert.equal(item.command, command);
		const other = shownItem({ label: { label: hostile, highlights: [[0, 1]] as [number, number][] }, tooltip: hostile, description: true });
		assert.equal(other.label.label, shown);
		assert.equal(other.tooltip, shown);
		assert.equal(other.description, true);
		assert.equal(shownItem({ label: 'pick', detail: `scope ${hostile}` }).detail, `scope ${shown}`, 'a quick pick item too');
		assert.equal(shownItem({ text: `$(debug-start) ${hostile} · active` }).text, `$(debug-start) ${shown} · active`, 'a status bar item too');
		assert.doesNotMatch(JSON.stringify([item, other].map((i) => [i.label, i.description, i.tooltip])), /\\u001b|\\u0007|\\r/);
		assert.doesNotMatch(`${item.label}${item.description}${other.label.label}`, rawControl);
	});

	void it('is what every getTreeItem and resolveTreeItem in the extension returns through', () => {
		const root = path.resolve(__dirname, '../../../src/extension');
		const files = (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => path.join(root, f));
		const methods: string[] = [];
		const problems: string[] = [];
		for (const file of files) {
			const text = fs.readFileSync(file, 'utf8');
			for (const match of text.matchAll(/^\t(?:async )?(getTreeItem|resolveTreeItem)\([^)]*\)[^{;]*\{/gm)) {
				const body = bodyAt(text, (match.index ?? 0) + match[0].length);
				const where = `${path.relative(root, file)} ${match[1]}`;
				methods.push(where);
				const returns = [...body.matchAll(/\breturn\b\s*([^;]*);/g)].map((r) => r[1] as string);
				if (returns.length === 0) {
					problems.push(`${where} returns nothing`);
				}
				for (const value of returns) {
					if (!value.startsWith('shownItem(')) {
						problems.push(`${where} returns ${value.slice(0, 60)} without shownItem`);
					}
				}
			}
		}
		assert.ok(methods.length >= 5, `the scan sees the tree providers: ${methods.join(', ')}`);
		assert.deepEqual(problems, []);
	});
});

/** The text of a block from just after its `{` to its matching `}`. */
function bodyAt(text: string, start: number): string {
	let depth = 1;
	for (let i = start; i < text.length; i++) {
		if (text[i] === '{') depth++;
		else if (text[i] === '}' && --depth === 0) return text.slice(start, i);
	}
	return text.slice(start);
}
