/**
 * `baton-checkpoint:` documents: a file as it was at a checkpoint, read from Baton's shadow store
 * through the backend, and the diff editor between two checkpoints or a checkpoint and the working tree.
 */
import path from 'node:path';
import * as vscode from 'vscode';
import { checkpointFile } from '../../protocol/rpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { checkpointScheme } from '../ids';

/** `baton-checkpoint:/src/a.ts?cp=cp_…` — the query names the checkpoint, the path the file. */
export function checkpointUri(checkpointId: string, file: string): vscode.Uri {
	return vscode.Uri.from({ scheme: checkpointScheme, path: `/${file}`, query: new URLSearchParams({ cp: checkpointId }).toString() });
}

export function parseCheckpointUri(uri: vscode.Uri): { checkpointId: string; file: string } {
	const checkpointId = new URLSearchParams(uri.query).get('cp');
	if (!checkpointId || !/^[\w-]{1,100}$/.test(checkpointId)) {
		throw new Error(`not a Baton checkpoint document: ${uri.toString()}`);
	}
	return { checkpointId, file: uri.path.replace(/^\//, '') };
}

export class CheckpointDocuments implements vscode.TextDocumentContentProvider {
	constructor(private readonly workspace: BatonWorkspace) {}

	async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
		const { checkpointId, file } = parseCheckpointUri(uri);
		const result = await this.workspace.request(checkpointFile, { id: checkpointId, path: file }, token);
		if (result.binary) {
			return `(${file} is a binary file at ${checkpointId}; Baton does not show binary content.)`;
		}
		return result.text ?? '';
	}
}

/** Opens one file's change in VS Code's diff editor: checkpoint `from` ↔ checkpoint `to` or the working tree. */
export async function openCheckpointDiff(workspace: BatonWorkspace, input: { from: string; to?: string; path: string }): Promise<void> {
	const root = workspace.root;
	if (!root) {
		return;
	}
	const left = checkpointUri(input.from, input.path);
	const right = input.to ? checkpointUri(input.to, input.path) : vscode.Uri.file(path.join(root, input.path));
	const short = (id: string) => id.replace(/^cp_\d{8}/, '').replace(/^_/, '');
	const title = `${path.basename(input.path)} (${short(input.from)} ↔ ${input.to ? short(input.to) : 'working tree'})`;
	await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
}
