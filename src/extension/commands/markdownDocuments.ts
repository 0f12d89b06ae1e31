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

// eslint-disable-next-line no-control-regex
const unsafeInFileName = /[/\\\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g;

/**
 * `baton-markdown:/handoff/<session id>/<name> (handoff).md` — the path names the view and the
 * session; its last part is the tab's title, so it is the session's name as people know it.
 */
export function markdownUri(kind: MarkdownKindDto, sessionId: string, sessionName?: string): vscode.Uri {
	// A name is free text: no folder separators, control characters or bidirectional marks in a file name.
	const name = (sessionName ?? sessionId).replace(unsafeInFileName, ' ').trim().slice(0, 80) || sessionId;
	return vscode.Uri.from({ scheme: markdownScheme, path: `/${kind}/${sessionId}/${name} (${kind}).md` });
}

function parseMarkdownUri(uri: vscode.Uri): { kind: MarkdownKindDto; sessionId: string } {
	const match = /^\/(handoff|briefing)\/([\w.-]{1,100})(?:\/[^/]*)?\.md$/.exec(uri.path);
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
