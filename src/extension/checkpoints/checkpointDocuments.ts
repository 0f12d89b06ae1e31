/**
 * `baton-checkpoint:` documents: a file as it was at a checkpoint, read from Baton's shadow store
 * through the backend, and the diff editor between two checkpoints or a checkpoint and the working tree.
 */
import path from 'node:path';
import * as vscode from 'vscode';
import { checkpointFile } from '../../protocol/rpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { checkpointScheme } from '../ids';

/**
 * `baton-checkpoint:/src/a.ts?cp=cp_…` — the query names the checkpoint, the path the file; without
 * a checkpoint (`empty=1`) it is the file in the empty workspace before the first checkpoint: nothing.
 */
function checkpointUri(checkpointId: string | undefined, file: string): vscode.Uri {
	return vscode.Uri.from({
		scheme: checkpointScheme,
		path: `/${file}`,
		query: new URLSearchParams(checkpointId ? { cp: checkpointId } : { empty: '1' }).toString(),
	});
}

function parseCheckpointUri(uri: vscode.Uri): { checkpointId: string | undefined; file: string } {
	const query = new URLSearchParams(uri.query);
	const checkpointId = query.get('cp');
	const file = uri.path.replace(/^\//, '');
	if (!checkpointId && query.get('empty') === '1') {
		return { checkpointId: undefined, file };
	}
	if (!checkpointId || !/^[\w-]{1,100}$/.test(checkpointId)) {
		throw new Error(`not a Baton checkpoint document: ${uri.toString()}`);
	}
	return { checkpointId, file };
}

export class CheckpointDocuments implements vscode.TextDocumentContentProvider {
	constructor(private readonly workspace: BatonWorkspace) {}

	async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
		const { checkpointId, file } = parseCheckpointUri(uri);
		if (!checkpointId) {
			return '';
		}
		const result = await this.workspace.request(checkpointFile, { id: checkpointId, path: file }, token);
		if (result.binary) {
			return `(${file} is a binary file at ${checkpointId}; Baton does not show binary content.)`;
		}
		return result.text ?? '';
	}
}

/** What the diff editor's title calls each side ("#3", "working tree"). */
export interface SideNames {
	from: string;
	to: string;
}

/**
 * Opens one file's change in VS Code's diff editor: checkpoint `from` (none: the empty workspace
 * before the first checkpoint) ↔ checkpoint `to` or the working tree. The title names the sides as
 * the comparison does ("payment.js (#3 ↔ #4)"); the ids stay in the documents' URIs.
 */
export async function openCheckpointDiff(workspace: BatonWorkspace, input: { from?: string; to?: string; path: string; names: SideNames }): Promise<void> {
	const root = workspace.root;
	if (!root) {
		return;
	}
	const file = path.resolve(root, input.path);
	const inside = path.relative(root, file);
	if (!inside || inside.startsWith('..') || path.isAbsolute(inside)) {
		// The engine refuses such a tree's comparison; a path from anywhere else never opens a file outside the workspace.
		throw new Error(`"${input.path}" is no path inside the workspace`);
	}
	const left = checkpointUri(input.from, input.path);
	const right = input.to ? checkpointUri(input.to, input.path) : vscode.Uri.file(file);
	const title = `${path.basename(input.path)} (${input.names.from} ↔ ${input.names.to})`;
	await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
}
