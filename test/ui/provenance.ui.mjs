#!/usr/bin/env node
// Who wrote this line, as a person meets it in the workbench: Claude Code edits a file through the
// real `baton hook` (its PreToolUse/PostToolUse payloads), a person changes one line, git commits;
// then the file is opened, `Baton: Toggle Agent Blame` shows end-of-line annotations in the theme's
// inline-hint colour (checked against the theme's own value), and hovering a line shows the agent, its prompt and the session/replay links.
// Both themes; screenshots in artifacts/ui/provenance/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch } from '../harness/workbench.mjs';
import { Checks, removeWorkspace, root } from './uiSupport.mjs';

const cliPath = path.join(root, 'dist', 'cli.js');
const artifactsDir = path.join(root, 'artifacts', 'ui', 'provenance');
fs.rmSync(artifactsDir, { recursive: true, force: true });
const checks = new Checks();
const check = async (name, fn) => {
	if (!(await checks.run(name, fn))) {
		throw new Error(`stopped after: ${name}`);
	}
};

const gitEnv = {
	...process.env,
	GIT_CONFIG_GLOBAL: '/dev/null',
	GIT_AUTHOR_NAME: 'Dana Dev',
	GIT_AUTHOR_EMAIL: 'dana@example.invalid',
	GIT_COMMITTER_NAME: 'Dana Dev',
	GIT_COMMITTER_EMAIL: 'dana@example.invalid',
};
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-ui-provenance-'));
const claudeHome = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-ui-provenance-claude-'));
const git = (...args) => execFileSync('git', args, { cwd: workspace, env: gitEnv, encoding: 'utf8' });
const claudeSession = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const hook = (payload) =>
	execFileSync(process.execPath, [cliPath, 'hook'], {
		cwd: workspace,
		input: JSON.stringify({
			session_id: claudeSession,
			transcript_path: path.join(claudeHome, `${claudeSession}.jsonl`),
			cwd: workspace,
			permission_mode: 'default',
			...payload,
		}),
		env: { ...process.env, BATON_CLAUDE_HOME: claudeHome },
		encoding: 'utf8',
	});

const file = path.join(workspace, 'src', 'cart.ts');
fs.mkdirSync(path.dirname(file));
const before = 'export interface Item {\n\tprice: number;\n\tquantity: number;\n}\n';
fs.writeFileSync(file, before);
fs.writeFileSync(path.join(workspace, '.gitignore'), '.baton/\n');
git('init', '-q');
git('add', '.');
git('commit', '-qm', 'init');
execFileSync(process.execPath, [cliPath, 'init'], { cwd: workspace });
await new Promise((resolve) => setTimeout(resolve, 1100));
const prompt = 'Add a cart total that applies the discount code';
hook({ hook_event_name: 'SessionStart', source: 'startup', model: 'claude-sonnet-4-5-20250929' });
hook({ hook_event_name: 'UserPromptSubmit', prompt });
const added =
	'\nexport function total(items: Item[], discount = 0): number {\n\tconst sum = items.reduce((s, i) => s + i.price * i.quantity, 0);\n\treturn sum * (1 - discount);\n}\n';
const edit = {
	tool_name: 'Edit',
	tool_input: { file_path: file, old_string: '\tquantity: number;\n}', new_string: `\tquantity: number;\n}${added.trimEnd()}` },
	tool_use_id: 'toolu_01UiProvenanceEdit',
};
hook({ hook_event_name: 'PreToolUse', ...edit });
fs.writeFileSync(file, before + added);
hook({ hook_event_name: 'PostToolUse', ...edit, tool_response: { filePath: file, structuredPatch: [], userModified: false } });
// A person makes the discount a percentage before committing.
fs.writeFileSync(file, (before + added).replace('\treturn sum * (1 - discount);', '\treturn sum * (1 - discount / 100);'));
git('add', '-A');
git('commit', '-qm', 'Cart total');

/** The end-of-line annotations on screen: VS Code draws them as ::after content of spans in the lines. */
const annotationsOnScreen = (s) =>
	s.page.evaluate(() => {
		const out = [];
		for (const span of document.querySelectorAll('.monaco-editor .view-lines .view-line span')) {
			const style = getComputedStyle(span, '::after');
			if (style.content && style.content !== 'none' && style.content !== 'normal' && style.content !== '""') {
				out.push({ text: JSON.parse(style.content), color: style.color, top: Math.round(span.getBoundingClientRect().top) });
			}
		}
		return out.sort((a, b) => a.top - b.top);
	});

const colours = {};
for (const theme of ['dark', 'light']) {
	const s = await launch({ extensionFolders: [root], workspace, theme, artifactsDir, viewport: { width: 1400, height: 900 } });
	checks.session = s;
	try {
		await check(`${theme}: Toggle Agent Blame annotates each line: the agent with its turn and prompt, the person, the unknown`, async () => {
			await s.page.keyboard.press('Control+P');
			await s.quickPickSelect('cart.ts', { filter: 'cart.ts' });
			await s.page.locator('.monaco-editor .view-line', { hasText: 'export function total' }).first().waitFor({ timeout: 20_000 });
			await s.runCommand('Baton: Toggle Agent Blame');
			let shown = [];
			for (let waited = 0; shown.length < 9 && waited < 30_000; waited += 250) {
				await s.page.waitForTimeout(250);
				shown = await annotationsOnScreen(s);
			}
			const texts = shown.map((a) => a.text);
			// An empty line may draw no span of its own: 8 or 9 of the 9 lines.
			if (texts.length < 8) throw new Error(`expected every line annotated, saw ${texts.length}: ${JSON.stringify(texts)}`);
			const agent = shown.find((a) => /^agent claude-code, turn 1 · .* · “Add a cart total that applies the discou…”$/.test(a.text));
			if (!agent) throw new Error(`no annotation names the agent's turn and prompt: ${JSON.stringify(texts)}`);
			const agentLines = texts.filter((t) => t === agent.text).length;
			if (agentLines < 3 || agentLines > 4) throw new Error(`the agent's four lines (one empty): ${JSON.stringify(texts)}`);
			if (texts.filter((t) => /^Dana Dev · /.test(t)).length !== 1) throw new Error(`the person's one line: ${JSON.stringify(texts)}`);
			if (!/^unknown · /.test(texts[0])) throw new Error(`line 1 (before any capture): ${texts[0]}`);
			// Theme-aware: the annotations take the theme's own inline-hint colour.
			const hint = await s.page.evaluate(() => {
				const probe = document.createElement('span');
				probe.style.color = 'var(--vscode-editorInlayHint-foreground)';
				document.querySelector('.monaco-workbench').appendChild(probe);
				const colour = getComputedStyle(probe).color;
				probe.remove();
				return colour;
			});
			if (agent.color !== hint) throw new Error(`annotation colour ${agent.color}, the theme's inline-hint colour ${hint}`);
			colours[theme] = { annotation: agent.color, kind: await s.themeKind() };
			await s.page.locator('.monaco-editor .view-line', { hasText: 'export interface Item' }).first().click();
			await s.page.waitForTimeout(300);
			await s.screenshot(`${theme}-01-agent-blame`);
		});

		await check(`${theme}: hovering an agent's line names the agent, the prompt and links to the session and the replay step`, async () => {
			const line = s.page.locator('.monaco-editor .view-line', { hasText: 'const sum = items.reduce' }).first();
			const hover = s.page.locator('.monaco-hover:not(.hidden)', { hasText: 'Written by an agent' }).first();
			for (let attempt = 0; attempt < 5 && !(await hover.isVisible().catch(() => false)); attempt++) {
				await line.hover({ position: { x: 60, y: 5 } });
				await hover.waitFor({ timeout: 5_000 }).catch(() => {});
			}
			await hover.waitFor({ timeout: 5_000 });
			const text = await hover.innerText();
			for (const expected of ['claude-code', prompt, 'Open session', 'Replay step 1']) {
				if (!text.includes(expected)) throw new Error(`the hover lacks ${JSON.stringify(expected)}: ${text}`);
			}
			await s.screenshot(`${theme}-02-hover-agent-line`);
			const person = s.page.locator('.monaco-editor .view-line', { hasText: 'discount / 100' }).first();
			await s.page.mouse.move(0, 0);
			await s.page.waitForTimeout(500);
			const personHover = s.page.locator('.monaco-hover:not(.hidden)', { hasText: 'Written by a person' }).first();
			for (let attempt = 0; attempt < 5 && !(await personHover.isVisible().catch(() => false)); attempt++) {
				await person.hover({ position: { x: 60, y: 5 } });
				await personHover.waitFor({ timeout: 5_000 }).catch(() => {});
			}
			await personHover.waitFor({ timeout: 5_000 });
			if (!(await personHover.innerText()).includes('Dana Dev')) throw new Error('the person’s hover does not name the committer');
			await s.screenshot(`${theme}-03-hover-person-line`);
		});
	} finally {
		await s.close();
	}
}
await checks.run('both themes were really in force (dark, then light)', async () => {
	if (colours.dark?.kind !== 'vs-dark' || colours.light?.kind !== 'vs') throw new Error(`theme kinds: ${JSON.stringify(colours)}`);
	console.log(`    annotation colour (the theme's inline-hint colour): dark ${colours.dark.annotation}, light ${colours.light.annotation}`);
});
await removeWorkspace(workspace);
await removeWorkspace(claudeHome);
checks.finish();
