/**
 * The webviews show stored control characters escaped (docs/architecture.md §2): their text and the
 * attributes a person reads are set in one place, dom.ts's `el`/`svg`, which escapes them. This
 * sweep keeps it one place: no other webview file sets text or attributes on the DOM by hand.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const root = path.resolve(__dirname, '../../../webview');

/** DOM writes that bypass dom.ts, with the ones that carry no stored text. */
const bypasses =
	/\.textContent\s*=|\.innerText\s*=|\.innerHTML\s*=|\.outerHTML\s*=|createTextNode\(|insertAdjacent(?:Text|HTML)\(|\.setAttribute\(|\.title\s*=|\.ariaLabel\s*=/;
const allowed: Record<string, string> = {
	'main.ts': 'the stylesheet',
	'compare/filesCard.ts': 'counts and the filter the person typed',
};

void describe('webview text', () => {
	void it('is set only through dom.ts, which escapes control characters', () => {
		const files = (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
		assert.ok(files.length > 10, 'the scan sees the webviews');
		const problems: string[] = [];
		for (const file of files) {
			const rel = file.split(path.sep).join('/');
			if (rel === 'dom.ts') {
				continue;
			}
			fs.readFileSync(path.join(root, file), 'utf8')
				.split('\n')
				.forEach((line, i) => {
					if (bypasses.test(line) && !allowed[rel]) {
						problems.push(`${rel}:${i + 1}: ${line.trim()}`);
					}
				});
		}
		assert.deepEqual(problems, []);
		const dom = fs.readFileSync(path.join(root, 'dom.ts'), 'utf8');
		assert.match(dom, /node\.append\(typeof child === 'object' \? child : escapeControls\(String\(child\)\)\)/, 'text children are escaped');
		assert.match(dom, /readAttributes\.has\(key\) \? escapeControls\(String\(value\)\)/, 'titles and labels are escaped');
	});
});
