/**
 * `baton-markdown:` documents: a session's handoff or briefing rendered as markdown by the backend.
 * Documents from a content provider are read-only, which is the point: the markdown is a view of the
 * records, never something to edit and read back.
 */
import * as vscode from 'vscode';
import type { MarkdownKindDto } from '../../protocol/interopDto';
import { sessionMarkdown } from '../../protocol/rpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { markdownScheme } from '../ids';
import { Disposable } from '../lifecycle';

/** `baton-markdown:/handoff/<session id>.md` — the path names the view and the session. */
export function markdownUri(kind: MarkdownKindDto, sessionId: string): vscode.Uri {
	return vscode.Uri.from({ scheme: markdownScheme, path: `/${kind}/${sessionId}.md` });
}

export function parseMarkdownUri(uri: vscode.Uri): { kind: MarkdownKindDto; sessionId: string } {
	const match = /^\/(handoff|briefing)\/([\w.-]{1,100})\.md$/.exec(uri.path);
	if (!match) {
		throw new Error(`not a Baton markdown view: ${uri.toString()}`);
	}
	return { kind: match[1] as MarkdownKindDto, sessionId: match[2] as string };
}

export class MarkdownDocuments extends Disposable implements vscode.TextDocumentContentProvider {
	private readonly changes = this.register(new vscode.EventEmitter<vscode.Uri>());
	readonly onDidChange = this.changes.event;
	private readonly open = new Set<string>();

	constructor(private readonly workspace: BatonWorkspace) {
		super();
		// A briefing is computed from live data and a handoff appears when its session ends: re-render open views.
		this.register(
			workspace.onDidChangeData(() => {
				for (const uri of this.open) this.changes.fire(vscode.Uri.parse(uri));
			}),
		);
		this.register(vscode.workspace.onDidCloseTextDocument((document) => this.open.delete(document.uri.toString())));
	}

	async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
		const { kind, sessionId } = parseMarkdownUri(uri);
		this.open.add(uri.toString());
		return (await this.workspace.request(sessionMarkdown, { id: sessionId, kind }, token)).markdown;
	}
}
