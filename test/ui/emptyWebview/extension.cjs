// The baseline of test/ui/replay.ui.mjs: VS Code's own part of opening a webview. A command that opens
// a panel with the Replay panel's options and CSP, and a page with one line of text and the same
// first-frame mark (timed from the command, written into the page), so the test can set the Replay's
// first paint beside what any webview costs in the same workbench.
const crypto = require('node:crypto');
const vscode = require('vscode');

exports.activate = (context) => {
	context.subscriptions.push(
		vscode.commands.registerCommand('batonTest.emptyWebview', () => {
			const startedAt = Date.now();
			const panel = vscode.window.createWebviewPanel('batonTest.empty', 'Empty webview', vscode.ViewColumn.Active, {
				enableScripts: true,
				localResourceRoots: [context.extensionUri],
			});
			const nonce = crypto.randomBytes(16).toString('base64');
			const csp = `default-src 'none'; style-src ${panel.webview.cspSource} 'nonce-${nonce}'; script-src 'nonce-${nonce}'`;
			panel.webview.html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8"><meta http-equiv="Content-Security-Policy" content="${csp}"><title>Empty webview</title></head>
<body data-view="empty" data-command-started="${startedAt}"><p>An empty webview.</p>
<script nonce="${nonce}">requestAnimationFrame(function () {
	setTimeout(function () {
		document.body.dataset.paintMs = performance.now().toFixed(0);
		document.body.dataset.commandPaintMs = String(Date.now() - Number(document.body.dataset.commandStarted));
	}, 0);
});</script>
</body></html>`;
		}),
	);
};
