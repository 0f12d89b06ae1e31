/**
 * Runs in a two-folder workspace (a .code-workspace file; see scripts/runEditorTests.mjs): Baton
 * serves the folder of the active editor, each with its own data and backend.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import * as vscode from 'vscode';
import type { BatonApi } from '../../src/extension/extension';
import { activateBaton } from './activateBaton';

async function until(predicate: () => boolean, what: string): Promise<void> {
	for (let i = 0; i < 100 && !predicate(); i++) {
		await new Promise((r) => setTimeout(r, 50));
	}
	assert.ok(predicate(), what);
}

suite('Baton in a multi-root workspace', () => {
	let api: BatonApi;

	suiteSetup(async () => {
		({ api } = await activateBaton());
	});

	test('serves the folder of the active editor and switches with it', async () => {
		const [withBaton, plain] = vscode.workspace.workspaceFolders ?? [];
		assert.ok(withBaton && plain, 'two folders are open');
		await vscode.window.showTextDocument(vscode.Uri.file(path.join(plain.uri.fsPath, 'notes.md')));
		await until(() => api.workspace.root === plain.uri.fsPath, 'serves the plain folder');
		assert.equal((await api.workspace.refresh())?.initialized, false);
		assert.deepEqual(await api.chains.getChildren(), []);

		await vscode.window.showTextDocument(vscode.Uri.file(path.join(withBaton.uri.fsPath, 'README.md')));
		await until(() => api.workspace.root === withBaton.uri.fsPath, 'serves the folder with Baton');
		const status = await api.workspace.refresh();
		assert.equal(status?.initialized, true);
		assert.equal(status?.active[0]?.name, 'seeded in folder one');
		assert.equal((await api.chains.getChildren()).length, 1);
	});
});
