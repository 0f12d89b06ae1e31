import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { WebviewKind } from '../../protocol/webview';
import { escapeHtml } from './escapeHtml';

/**
 * The HTML shell of every Baton webview: one bundle (`dist/webview/main.js`) that reads which view
 * it is from `<body data-view>`. The CSP allows only our own origin and this render's nonce: no
 * inline script, no `unsafe-inline` styles, no eval. The bundle injects its stylesheet in a
 * `<style>` carrying the nonce it reads from its own script tag; the vscode-elements components
 * style themselves through constructable stylesheets (adoptedStyleSheets), which style-src does not
 * govern. scripts/previewWebviews.mjs serves the pages under this same policy and fails on any
 * violation.
 */
export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, view: WebviewKind, title: string): string {
	const nonce = randomBytes(16).toString('base64');
	const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', 'main.js'));
	const csp = [
		`default-src 'none'`,
		`img-src ${webview.cspSource} data:`,
		`style-src ${webview.cspSource} 'nonce-${nonce}'`,
		`font-src ${webview.cspSource}`,
		`script-src 'nonce-${nonce}'`,
	].join('; ');
	return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">.baton-boot{font-family:var(--vscode-font-family);font-size:var(--vscode-font-size);color:var(--vscode-descriptionForeground);padding:24px}</style>
</head>
<body data-view="${view}">
<main id="root"><p class="baton-boot" role="status">Loading ${escapeHtml(bootLabel[view])}…</p></main>
<script type="module" nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}

/** Shown until the bundle has loaded, so a panel is never blank. */
const bootLabel: Record<WebviewKind, string> = { briefing: 'the briefing', details: 'the session', graph: 'the chain graph', compare: 'the comparison' };
