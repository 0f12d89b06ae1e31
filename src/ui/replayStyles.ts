import { replayRowHeight } from './replayRows';

/**
 * The Replay view's stylesheet: written by the extension into the page's head under the page's nonce
 * (the CSP allows no other inline style), so the first screen of rows is styled before any script runs.
 */
export const replayCss = `
html, body { height: 100%; margin: 0; padding: 0; }
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); }
#root { display: grid; grid-template-columns: minmax(320px, 1fr) minmax(300px, 1fr); grid-template-rows: auto 1fr; height: 100vh; }
header { grid-column: 1 / -1; padding: 8px 12px; border-bottom: 1px solid var(--vscode-panel-border); display: flex; gap: 12px; align-items: baseline; }
header h1 { font-size: 1.1em; margin: 0; font-weight: 600; }
header .hint { color: var(--vscode-descriptionForeground); }
.rows { position: relative; overflow-y: auto; outline: none; border-right: 1px solid var(--vscode-panel-border); }
.rows:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: -1px; }
.spacer { position: relative; width: 100%; }
.row { position: absolute; left: 0; right: 0; box-sizing: border-box; display: flex; align-items: center; gap: 8px; padding: 0 10px; white-space: nowrap; overflow: hidden; border-left: 3px solid transparent; }
.first-screen .row { position: relative; height: ${replayRowHeight}px; }
.row .marker { width: 1.2em; text-align: center; color: var(--vscode-descriptionForeground); }
.row .label { font-weight: 600; min-width: 7em; }
.row .text { flex: 1; overflow: hidden; text-overflow: ellipsis; }
.row .stats { color: var(--vscode-descriptionForeground); font-variant-numeric: tabular-nums; }
.row-step { cursor: pointer; }
.row-step:hover { background: var(--vscode-list-hoverBackground); }
.row-prompt { background: var(--vscode-textBlockQuote-background); }
.row-checkpoint .marker, .row-approval .marker { color: var(--vscode-charts-blue); }
.actor-human { border-left-color: var(--vscode-charts-orange); }
.actor-agent { border-left-color: var(--vscode-charts-green); }
.not-captured .stats { color: var(--vscode-errorForeground); }
.row.selected { background: var(--vscode-list-activeSelectionBackground); color: var(--vscode-list-activeSelectionForeground); }
.detail { overflow-y: auto; padding: 10px 14px; }
.detail h2 { font-size: 1.05em; margin: 0 0 6px; }
.detail .meta { color: var(--vscode-descriptionForeground); margin-bottom: 8px; }
.detail ul { list-style: none; padding: 0; margin: 0 0 12px; }
.detail li { display: flex; gap: 8px; align-items: center; padding: 2px 0; }
.detail li a { cursor: pointer; color: var(--vscode-textLink-foreground); }
.now-unchanged { color: var(--vscode-charts-green); }
.now-changed { color: var(--vscode-charts-orange); }
.now-deleted { color: var(--vscode-errorForeground); }
.transcript p { margin: 4px 0; white-space: pre-wrap; }
.transcript .role { font-weight: 600; margin-right: 6px; }
.transcript .current { border-left: 2px solid var(--vscode-focusBorder); padding-left: 6px; }
.error { color: var(--vscode-errorForeground); }
.toolbar { display: flex; gap: 8px; margin: 8px 0; }
`;
