// What the UI tests share: numbered checks that leave a screenshot when they fail, and the steps a
// person takes that need care in the workbench (opening the container, context menus).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeTestFolder } from '../harness/daemons.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export class Checks {
	passed = 0;
	failed = 0;
	/** The workbench in use, so a failing check can leave a screenshot behind. */
	session = undefined;

	/** Runs one check; returns false (and records it) when it failed. */
	async run(name, fn) {
		const started = Date.now();
		try {
			await fn();
			this.passed++;
			console.log(`  ✔ ${name} (${Date.now() - started} ms)`);
			return true;
		} catch (error) {
			this.failed++;
			await this.session?.screenshot(`failed-${name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}`).catch(() => {});
			console.log(
				`  ✖ ${name}\n    ${String(error?.stack ?? error)
					.split('\n')
					.slice(0, 6)
					.join('\n    ')}`,
			);
			// CI keeps only what is printed: what the sidebar showed and what Baton logged.
			console.log((await whatWasShown(this.session).catch((e) => `    (no diagnostics: ${e.message})`)).trimEnd());
			return false;
		}
	}

	/** The closing line the test runner counts; exits with the verdict. */
	finish() {
		console.log(`${this.passed} passed, ${this.failed} failed`);
		process.exit(this.failed === 0 ? 0 : 1);
	}
}

/** The sidebar's visible rows and the end of Baton's log in this workbench, indented for the report. */
async function whatWasShown(s) {
	if (!s) return '';
	const rows = await s.page.locator('.part.sidebar .pane-header, .part.sidebar .monaco-list-row, .part.sidebar .welcome-view-content').evaluateAll((els) =>
		els
			.filter((e) => e.offsetParent !== null)
			.map((e) => {
				const text = (e.getAttribute('aria-label') || e.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 120);
				// A group shown open with no rows under it and one shown closed read the same without this.
				const open = e.getAttribute('aria-expanded');
				return open === null ? text : `${text} [${open === 'true' ? 'open' : 'closed'}]`;
			}),
	);
	const logs = [];
	const hostLogs = [];
	const walk = (dir) => {
		for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
			const full = path.join(dir, entry.name);
			if (entry.isDirectory()) walk(full);
			else if (/Baton\.log$/.test(entry.name)) logs.push(full);
			else if (/exthost\.log$/i.test(entry.name)) hostLogs.push(full);
		}
	};
	if (s.server?.root) walk(s.server.root);
	const tail = logs.flatMap((file) => fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-25));
	// What VS Code's side of the tree views said (a group's rows asked of a node a refresh had cleared, say).
	const treeLines = hostLogs
		.flatMap((file) =>
			fs
				.readFileSync(file, 'utf8')
				.split('\n')
				.filter((l) => /tree ?(item|view)/i.test(l)),
		)
		.slice(-10);
	return [
		`    sidebar: ${rows.length ? rows.join(' | ') : '(nothing visible)'}`,
		`    Baton log (last ${tail.length} lines):`,
		...tail.map((l) => `      ${l}`),
		...(treeLines.length ? ['    extension host, tree views:', ...treeLines.map((l) => `      ${l}`)] : []),
	].join('\n');
}

/** Opens the Baton container from its activity-bar icon, as a person would. */
export async function openBaton(s) {
	const icon = s.page.locator('.activitybar .action-item .action-label[aria-label^="Baton"]').first();
	await icon.waitFor({ timeout: 20_000 });
	// "Baton" alone, or "Baton: Session Chains" when only that view shows (VS Code folds a lone view's header in).
	const pane = s.page.locator('.part.sidebar .composite.title .title-label', { hasText: /^\s*Baton/i }).first();
	if (!(await pane.isVisible().catch(() => false))) {
		await icon.click();
	}
	await pane.waitFor({ timeout: 10_000 });
}

/** Right-clicks a tree row and picks a context-menu item (Enter confirms if the click met the fade-in). */
export async function contextMenu(s, rowLabel, item) {
	await s.treeItem(rowLabel).click({ button: 'right' });
	await s.clickContextMenuItem(item);
	const menu = s.page.locator('.context-view .monaco-menu');
	if (await menu.isVisible().catch(() => false)) {
		await s.page.keyboard.press('Enter');
	}
}

/**
 * A session row's label as the tree may show it: the full name, or (when it gives way to the row's
 * state and time at the sidebar's width) a prefix of it ending in "…".
 */
export function rowLabel(name) {
	const esc = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	const prefixes = [];
	for (let i = name.length - 1; i >= 4; i--) prefixes.push(`${esc(name.slice(0, i).trimEnd())}…`);
	return new RegExp(`^\\s*(${[esc(name), ...prefixes].join('|')})\\s*$`);
}

/** Removes a test's folder once the workspace daemons under it stopped (test/harness/daemons.mjs). */
export const removeWorkspace = removeTestFolder;
