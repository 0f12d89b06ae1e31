/**
 * Who did something, as a person reads it (`vscode:alice` → "you" or "alice"): one definition, in
 * an engine file that imports nothing, for the engine's messages, the editor and the webviews
 * (docs/architecture.md §2).
 */
export { actorName } from '../engine/text/actorNames';
