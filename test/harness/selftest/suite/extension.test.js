const assert = require('assert');
const fs = require('fs');
const vscode = require('vscode');

suite('baton workbench selftest (extension host)', () => {
	test('fixture extension is present and active', async () => {
		const ext = vscode.extensions.getExtension('baton-selftest.baton-workbench-selftest');
		assert.ok(ext, 'extension not found');
		await ext.activate();
		assert.strictEqual(ext.isActive, true);
	});
	test('command is registered and runs', async () => {
		const cmds = await vscode.commands.getCommands(true);
		assert.ok(cmds.includes('batonSelftest.greet'));
		assert.strictEqual(await vscode.commands.executeCommand('batonSelftest.greet', 'Gamma'), 'Gamma');
		const hasPanel = () => vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.label === 'Baton Selftest Panel'));
		for (let i = 0; i < 50 && !hasPanel(); i++) await new Promise((r) => setTimeout(r, 100));
		assert.ok(hasPanel(), 'webview panel tab not found');
	});
	test('Node APIs and the runner environment reach the extension host', () => {
		assert.ok(fs.existsSync('/'));
		assert.strictEqual(process.env.BATON_SELFTEST_TOKEN, 'passed-through');
		console.log(
			`ext host: node ${process.version}, remoteName=${vscode.env.remoteName}, uiKind=${vscode.env.uiKind === vscode.UIKind.Web ? 'Web' : 'Desktop'}`,
		);
	});
	test('the workspace folder is open', () => {
		assert.strictEqual(vscode.workspace.workspaceFolders?.length, 1);
		assert.ok(fs.existsSync(vscode.workspace.workspaceFolders[0].uri.fsPath));
	});
	test('colour theme chosen by the runner is in force', () => {
		const want = process.env.BATON_SELFTEST_EXPECT_THEME;
		if (!want) return;
		const kind = vscode.window.activeColorTheme.kind;
		assert.strictEqual(kind, want === 'dark' ? vscode.ColorThemeKind.Dark : vscode.ColorThemeKind.Light);
	});
	if (process.env.BATON_SELFTEST_FAIL) test('deliberate failure (BATON_SELFTEST_FAIL set)', () => assert.strictEqual(1, 2));
});
