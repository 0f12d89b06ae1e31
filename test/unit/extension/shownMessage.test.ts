/**
 * A notification's text is shown, never obeyed (docs/architecture.md §2): VS Code turns
 * `[label](target)` in a notification's message into a link when the target starts with `command:`,
 * `http(s)://` or `file:`, and a click on a `command:` link runs that command with the arguments it
 * names. Stored text (a teammate's session name, a refused record's id) reaches messages, so
 * `shownMessage` breaks that syntax and escapes control characters, and every message in the
 * extension goes through src/extension/messages.ts (eslint.config.mjs; the last test here).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { shownMessage } from '../../../src/extension/format';

/** VS Code's notification link syntax: `[label](target)` or `[label](target "title")`, the target one of these schemes. */
const notificationLink = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;

void describe('messages show stored text as text', () => {
	void it('breaks every link a notification would make, and reads the same', () => {
		const hostile = [
			'[Open sync log](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22echo%20pwned%5Cn%22%7D)',
			'[docs](https://evil.example/x "Baton docs")',
			'[config](file:///home/dev/.bashrc)',
			'nested [a [b](command:x)](command:y)',
		];
		for (const text of hostile) {
			assert.ok(text.match(notificationLink), `the sample is a link to VS Code: ${text}`);
			const shown = shownMessage(`Resumed “${text}”.`);
			assert.equal(shown.match(notificationLink), null, shown);
			assert.equal(shown.replaceAll('\u200b', ''), `Resumed “${text}”.`, 'nothing else changes');
		}
	});

	void it('escapes control characters and keeps newlines, tabs and brackets that are no link', () => {
		assert.equal(shownMessage('A\u001b[2JB\u202eC'), 'A\\x1b[2JB\\u202eC');
		assert.equal(shownMessage('line one\n\tline two [x] (y)'), 'line one\n\tline two [x] (y)');
	});

	void it('is how every message in the extension is shown', () => {
		const root = path.resolve(__dirname, '../../../src/extension');
		const files = (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
		const direct = files.filter(
			(f) =>
				f !== 'messages.ts' &&
				/\bwindow\s*\.\s*(?:show(?:Information|Warning|Error)Message|showQuickPick)\b/.test(fs.readFileSync(path.join(root, f), 'utf8')),
		);
		assert.deepEqual(direct, [], 'these call window.show…Message themselves');
		const messages = fs.readFileSync(path.join(root, 'messages.ts'), 'utf8');
		assert.match(messages, /shownMessage\(message\)/);
		assert.match(messages, /detail: shownMessage\(arg\.detail\)/);
		const lint = fs.readFileSync(path.resolve(root, '../../eslint.config.mjs'), 'utf8');
		assert.match(lint, /property\.name=\/\^\(show\(Information\|Warning\|Error\)Message\|showQuickPick\)\$\//, 'lint keeps the rule');
		assert.match(messages, /shownItems\(items\)/, 'a quick pick’s items are shown through shownItem');
	});
});
