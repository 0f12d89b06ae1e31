/**
 * `baton-timeline:` documents: a file at one of a replay step's trees, read from Baton's shadow store
 * through the backend; and the diff editor between a step's before and after.
 */
import path from 'node:path';
import * as vscode from 'vscode';
import { timelineFile } from '../../protocol/timelineRpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { showInformationMessage } from '../messages';

export const timelineScheme = 'baton-timeline';

/** `baton-timeline:/src/a.ts?tree=<id>` — the query names the tree, the path the file. */
function timelineUri(tree: string, file: string): vscode.Uri {
	return vscode.Uri.from({ scheme: timelineScheme, path: `/${file}`, query: new URLSearchParams({ tree }).toString() });
}

export class TimelineDocuments implements vscode.TextDocumentContentProvider {
	constructor(private readonly workspace: BatonWorkspace) {}

	async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
		const tree = new URLSearchParams(uri.query).get('tree');
		if (!tree || !/^[0-9a-f]{40,64}$/.test(tree)) {
			throw new Error(`not a Baton timeline document: ${uri.toString()}`);
		}
		const file = uri.path.replace(/^\//, '');
		const result = await this.workspace.request(timelineFile, { tree, path: file }, token);
		if (result.binary) {
			return `(${file} is a binary file; Baton does not show binary content.)`;
		}
		return result.text ?? '';
	}
}

/** One file of a step in VS Code's diff editor: before the step ↔ after it. */
export async function openStepDiff(step: { step: number; treeBefore: string | null; treeAfter: string | null }, file: string): Promise<void> {
	if (!step.treeBefore || !step.treeAfter) {
		void showInformationMessage(`Step ${step.step} was not captured: there is no diff to show.`);
		return;
	}
	const title = `${path.basename(file)} (step ${step.step})`;
	await vscode.commands.executeCommand('vscode.diff', timelineUri(step.treeBefore, file), timelineUri(step.treeAfter, file), title, { preview: true });
}
