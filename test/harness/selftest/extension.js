// Throwaway fixture for the workbench harness selftest: one command (quick pick -> notification
// -> webview panel), one status bar item, one tree view. Plain JavaScript, no build step.
const vscode = require('vscode');

const TARGETS = ['Alpha', 'Beta', 'Gamma'];

class CheckpointTree {
	getTreeItem(e) {
		return e;
	}
	getChildren(el) {
		if (el) return [new vscode.TreeItem(`handoff of ${el.label}.md`, vscode.TreeItemCollapsibleState.None)];
		return ['Checkpoint 1', 'Checkpoint 2'].map((label, i) => {
			const it = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Collapsed);
			it.id = `cp${i + 1}`;
			it.description = i === 0 ? 'approved' : 'pending';
			return it;
		});
	}
}

function activate(context) {
	const status = vscode.window.createStatusBarItem('batonSelftest.status', vscode.StatusBarAlignment.Left, 100);
	status.text = '$(check) Baton Selftest ready';
	status.tooltip = `extension host: node ${process.version}`;
	status.show();
	let panel;
	context.subscriptions.push(
		status,
		vscode.window.createTreeView('batonSelftest.tree', { treeDataProvider: new CheckpointTree() }),
		// greet([target]): without a target asks with a quick pick (UI path); returns the target
		vscode.commands.registerCommand('batonSelftest.greet', async (target) => {
			if (typeof target !== 'string') {
				target = await vscode.window.showQuickPick(TARGETS, { placeHolder: 'Whom to greet?' });
				if (!target) return undefined;
			}
			status.text = `$(check) Baton Selftest greeted ${target}`;
			if (!panel) {
				panel = vscode.window.createWebviewPanel('batonSelftestPanel', 'Baton Selftest Panel', vscode.ViewColumn.One, {});
				panel.onDidDispose(() => {
					panel = undefined;
				});
			}
			panel.webview.html = `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';">
</head><body><h1 id="greeting">Hello, ${target}</h1><p id="host">from node ${process.version}</p></body></html>`;
			// not awaited: the command returns at once (toasts are suppressed in extension-test mode)
			vscode.window.showInformationMessage(`Greeted ${target}`, 'Thanks').then((pick) => {
				if (pick) status.text = `$(check) Baton Selftest ${target} thanked`;
			});
			return target;
		}),
	);
}
function deactivate() {}
module.exports = { activate, deactivate };
