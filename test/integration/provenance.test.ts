/**
 * Line provenance in the editor (workspace prepared by scripts/runEditorTests.mjs: a git repository
 * with one committed file and Baton set up). Claude Code edits the file through the real `baton hook`
 * (its PreToolUse/PostToolUse payloads, run as processes by the bundled CLI), a person changes one of
 * its lines, and the work is committed with git; then the hover provider is asked about lines, and
 * `Baton: Toggle Agent Blame` is run on the open file.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { BatonApi } from '../../src/extension/extension';
import { activateBaton } from './activateBaton';
import { escapeMarkdown } from '../../src/extension/format';
import { CommandIds } from '../../src/extension/ids';

let api: BatonApi;
let root: string;
let extensionPath: string;
let session: string;
const prompt = 'Add a total() helper that applies the tax rate';
const claudeSession = '3d5a7c1e-2b4f-4e6a-9c8d-1f0e2d3c4b5a';

function cli(args: string[], input = ''): { status: number | null; stdout: string; stderr: string } {
	return spawnSync(process.execPath, [path.join(extensionPath, 'dist', 'cli.js'), ...args], {
		cwd: root,
		input,
		encoding: 'utf8',
		env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', BATON_CLAUDE_HOME: path.join(root, '.baton-test-claude') },
	});
}

function hook(payload: Record<string, unknown>): void {
	const run = cli(
		['hook'],
		JSON.stringify({
			session_id: claudeSession,
			transcript_path: path.join(root, '.baton-test-claude', `${claudeSession}.jsonl`),
			cwd: root,
			permission_mode: 'default',
			...payload,
		}),
	);
	assert.equal(run.status, 0, run.stderr);
}

function git(...args: string[]): string {
	const run = spawnSync('git', args, {
		cwd: root,
		encoding: 'utf8',
		env: {
			...process.env,
			GIT_CONFIG_GLOBAL: '/dev/null',
			GIT_AUTHOR_NAME: 'Dana Dev',
			GIT_AUTHOR_EMAIL: 'dana@example.invalid',
			GIT_COMMITTER_NAME: 'Dana Dev',
			GIT_COMMITTER_EMAIL: 'dana@example.invalid',
		},
	});
	assert.equal(run.status, 0, run.stderr);
	return run.stdout;
}

async function hoverText(uri: vscode.Uri, line: number): Promise<string> {
	for (let attempt = 0; ; attempt++) {
		const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, new vscode.Position(line - 1, 2));
		const text = hovers
			.flatMap((h) => h.contents)
			.map((c) => (typeof c === 'string' ? c : c.value))
			.join('\n');
		if (text.includes('Written by') || text.includes('Origin unknown') || attempt >= 50) {
			return text;
		}
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}

suite('Line provenance in the editor', () => {
	suiteSetup(async function () {
		this.timeout(120_000);
		({ api, extensionPath } = await activateBaton());
		root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath as string;
		const file = path.join(root, 'src', 'app.ts');
		const before = fs.readFileSync(file, 'utf8');
		const after = `${before}export function total(price: number): number {\n\tconst taxed = price * 1.2;\n\treturn Math.round(taxed * 100) / 100;\n}\n`;
		// The commit must be in a later second than the workspace's first commit (commit times are whole seconds).
		await new Promise((resolve) => setTimeout(resolve, 1100));
		hook({ hook_event_name: 'SessionStart', source: 'startup', model: 'claude-sonnet-4-5-20250929' });
		hook({ hook_event_name: 'UserPromptSubmit', prompt });
		const edit = {
			tool_name: 'Edit',
			tool_input: { file_path: file, old_string: before.trimEnd(), new_string: after.trimEnd() },
			tool_use_id: 'toolu_01ProvenanceEditorTest',
		};
		hook({ hook_event_name: 'PreToolUse', ...edit });
		fs.writeFileSync(file, after);
		hook({
			hook_event_name: 'PostToolUse',
			...edit,
			tool_response: { filePath: file, oldString: before, newString: after, structuredPatch: [], userModified: false },
		});
		// A person rounds differently before committing.
		fs.writeFileSync(file, after.replace('\treturn Math.round(taxed * 100) / 100;', '\treturn Math.ceil(taxed);'));
		await new Promise((resolve) => setTimeout(resolve, 1100));
		git('add', '-A');
		git('commit', '-qm', 'total()');
		const list = JSON.parse(cli(['session', 'list', '--json']).stdout) as { sessions: { id: string }[] };
		assert.equal(list.sessions.length, 1);
		session = list.sessions[0]!.id;
	});

	test('the hover names the agent, its prompt, the commit and links to the session and the replay step', async function () {
		this.timeout(60_000);
		const uri = vscode.Uri.file(path.join(root, 'src', 'app.ts'));
		await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
		const agentLine = await hoverText(uri, 3);
		assert.ok(agentLine.includes(`**Written by an agent** — ${escapeMarkdown('claude-code')}`), agentLine);
		assert.ok(agentLine.includes(`> ${escapeMarkdown(prompt)}`), agentLine);
		const head = git('rev-parse', 'HEAD').trim();
		assert.ok(agentLine.includes(`commit \`${head.slice(0, 10)}\``), agentLine);
		assert.ok(
			agentLine.includes(`command:${CommandIds.showSessionDetails}?${encodeURIComponent(JSON.stringify([session]))}`),
			`links to session ${session}: ${agentLine}`,
		);
		assert.ok(agentLine.includes(`[Replay step 1](command:${CommandIds.replaySession}?${encodeURIComponent(JSON.stringify([session, 1]))})`), agentLine);
		const personLine = await hoverText(uri, 4);
		assert.match(personLine, /\*\*Written by a person\*\* — committed by Dana Dev/);
		assert.ok(!personLine.includes('Replay step'), 'a person’s line links to no step');
		const before = await hoverText(uri, 1);
		assert.match(before, /\*\*Origin unknown\*\*/, 'written before Baton captured anything');
	});

	test('Toggle Agent Blame annotates each line of the file at its end, and the file’s agent share is known; toggling again clears them', async function () {
		this.timeout(60_000);
		const uri = vscode.Uri.file(path.join(root, 'src', 'app.ts'));
		const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
		const annotated = new Promise<void>((resolve) => {
			const sub = api.agentBlame.onDidAnnotate((u) => {
				if (u.toString() === uri.toString() && api.agentBlame.annotationsShown(uri).length > 0) {
					sub.dispose();
					resolve();
				}
			});
		});
		await vscode.commands.executeCommand(CommandIds.toggleAgentBlame);
		await annotated;
		const shown = api.agentBlame.annotationsShown(uri);
		assert.equal(shown.length, editor.document.lineCount - (editor.document.lineAt(editor.document.lineCount - 1).isEmptyOrWhitespace ? 1 : 0));
		assert.match(shown[2]!, /^3: agent claude-code, turn 1 · .* · “Add a total\(\) helper that applies the ta…”$/);
		assert.match(shown[3]!, /^4: Dana Dev · /);
		assert.match(shown[4]!, /^5: agent claude-code, turn 1 · /);
		assert.match(shown[0]!, /^1: unknown · /);
		assert.deepEqual(api.agentBlame.share, { file: 'src/app.ts', agent: 3, human: 1, unknown: 1 });
		await vscode.commands.executeCommand(CommandIds.toggleAgentBlame);
		assert.deepEqual(api.agentBlame.annotationsShown(uri), []);
	});
});
