/**
 * Stored text as the editor shows it: tree labels, descriptions, hovers and webview text pass
 * through `escapeControls`, the same function the CLI and the engine's markdown use (one
 * definition, in an engine file that imports nothing; docs/architecture.md §2).
 */
export { escapeControls } from '../engine/text/controlChars';
