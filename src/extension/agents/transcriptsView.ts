/**
 * The `Transcripts` view: the agent transcripts Baton archived, one group per durable session
 * (its name, agent, turns and last activity), each opening a readable rendering — markdown from the
 * backend in a `baton-transcript:` document, shown in VS Code's markdown preview. Transcripts not
 * linked to a session are listed (collapsed) but were never copied; bootstrap ones are left out.
 */
import * as vscode from 'vscode';
import type { TranscriptDto } from '../../protocol/agentDto';
import { transcriptList, transcriptShow } from '../../protocol/rpc';
import { agentName } from '../../protocol/displayText';
import type { BatonWorkspace } from '../batonWorkspace';
import { escapeMarkdown, relativeTime, shownItem } from '../format';
import { CommandIds, transcriptScheme } from '../ids';
import { Disposable } from '../lifecycle';

export class TranscriptGroup {
	constructor(
		readonly sessionId: string | null,
		readonly transcripts: TranscriptDto[],
	) {}

	get name(): string {
		return this.transcripts[0]?.sessionName ?? this.sessionId ?? 'Not linked to a session';
	}

	get lastAt(): string | null {
		return (
			this.transcripts
				.map((t) => t.lastAt ?? '')
				.sort()
				.at(-1) || null
		);
	}
}

export class TranscriptNode {
	constructor(readonly transcript: TranscriptDto) {}
}

type Node = TranscriptGroup | TranscriptNode;

function formatBytes(n: number): string {
	return n >= 1_048_576 ? `${(n / 1_048_576).toFixed(1)} MB` : n >= 1024 ? `${Math.round(n / 1024)} KB` : `${n} B`;
}

function formatTokens(n: number): string {
	return n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 1_000 ? `${Math.round(n / 1_000)}k` : String(n);
}

/** `baton-transcript:/<readable name>.md?id=<id>`: the name titles the tab, the query names the transcript. */
export function transcriptUri(t: Pick<TranscriptDto, 'id' | 'title' | 'agentSessionId'>): vscode.Uri {
	const name = `${
		(t.title ?? `Transcript ${t.agentSessionId.slice(0, 8)}`)
			.replace(/[^\p{L}\p{N} ._-]+/gu, ' ')
			.trim()
			.slice(0, 60) || 'Transcript'
	}.md`;
	return vscode.Uri.from({ scheme: transcriptScheme, path: `/${name}`, query: new URLSearchParams({ id: t.id }).toString() });
}

export class TranscriptDocuments implements vscode.TextDocumentContentProvider {
	constructor(private readonly workspace: BatonWorkspace) {}

	async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
		const id = new URLSearchParams(uri.query).get('id');
		if (!id) {
			throw new Error(`not a Baton transcript: ${uri.toString()}`);
		}
		return (await this.workspace.request(transcriptShow, { id }, token)).markdown;
	}
}

export class TranscriptsProvider extends Disposable implements vscode.TreeDataProvider<Node> {
	private readonly changeEmitter = this.register(new vscode.EventEmitter<Node | undefined>());
	readonly onDidChangeTreeData = this.changeEmitter.event;

	constructor(private readonly workspace: BatonWorkspace) {
		super();
		this.register(workspace.onDidChangeData(() => this.changeEmitter.fire(undefined)));
	}

	/** Groups, the most recently active first; a session's transcripts newest first, subagents after their parent. */
	async groups(): Promise<TranscriptGroup[]> {
		if (!this.workspace.status?.initialized) {
			return []; // the welcome view explains
		}
		let transcripts: TranscriptDto[];
		try {
			transcripts = (await this.workspace.request(transcriptList, {})).transcripts;
			this.workspace.retried('transcripts');
		} catch (error) {
			this.workspace.log.error(`could not list transcripts: ${(error as Error).message}`);
			this.workspace.retryLater('transcripts');
			return [];
		}
		const bySession = new Map<string | null, TranscriptDto[]>();
		for (const t of transcripts.filter((x) => !x.bootstrap)) {
			bySession.set(t.sessionId, [...(bySession.get(t.sessionId) ?? []), t]);
		}
		const order = (list: TranscriptDto[]): TranscriptDto[] => {
			const main = list.filter((t) => !t.parentAgentSessionId);
			const subs = list.filter((t) => t.parentAgentSessionId);
			const orphans = subs.filter((s) => !main.some((m) => m.agentSessionId === s.parentAgentSessionId));
			return [...main.flatMap((m) => [m, ...subs.filter((s) => s.parentAgentSessionId === m.agentSessionId)]), ...orphans];
		};
		return [...bySession.entries()]
			.map(([sessionId, list]) => new TranscriptGroup(sessionId, order(list)))
			.sort((a, b) => Number(a.sessionId === null) - Number(b.sessionId === null) || (b.lastAt ?? '').localeCompare(a.lastAt ?? ''));
	}

	async getChildren(node?: Node): Promise<Node[]> {
		if (node instanceof TranscriptGroup) {
			return node.transcripts.map((t) => new TranscriptNode(t));
		}
		return node ? [] : this.groups();
	}

	getTreeItem(node: Node): vscode.TreeItem {
		return shownItem(node instanceof TranscriptGroup ? groupItem(node) : transcriptItem(node.transcript));
	}
}

function groupItem(group: TranscriptGroup): vscode.TreeItem {
	const list = group.transcripts;
	const linked = group.sessionId !== null;
	const item = new vscode.TreeItem(group.name, linked ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
	item.id = `transcripts:${group.sessionId ?? 'unlinked'}`;
	const agents = [...new Set(list.map((t) => agentName(t.agent)))].join(', ');
	const turns = list.filter((t) => !t.parentAgentSessionId).reduce((n, t) => n + t.userRequests, 0);
	item.description = linked
		? `${agents} · ${turns} turn${turns === 1 ? '' : 's'} · ${relativeTime(group.lastAt)}`
		: `${list.length} transcript${list.length === 1 ? '' : 's'}, not archived`;
	item.iconPath = new vscode.ThemeIcon(linked ? 'comment-discussion' : 'question');
	item.contextValue = linked ? 'transcriptSession' : 'transcriptUnlinked';
	const md = new vscode.MarkdownString();
	md.appendMarkdown(`**${escapeMarkdown(group.name)}**${group.sessionId ? ` · ${escapeMarkdown(group.sessionId)}` : ''}  \n`);
	md.appendMarkdown(
		`${list.length} transcript${list.length === 1 ? '' : 's'} (${agents}) · ${turns} turns · ${formatBytes(list.reduce((n, t) => n + t.archiveBytes, 0))} archived · ≈ $${list.reduce((n, t) => n + t.costUsd, 0).toFixed(2)}`,
	);
	if (!linked) {
		md.appendMarkdown(
			'  \nThese transcripts belong to no Baton session (started before Baton was connected, or by another tool), so Baton does not copy them.',
		);
	}
	item.tooltip = md;
	return item;
}

function transcriptItem(t: TranscriptDto): vscode.TreeItem {
	const label = t.parentAgentSessionId
		? `↳ ${t.agentType ?? 'subagent'}${t.description ? `: ${t.description}` : ''}`
		: (t.title ?? `Transcript ${t.agentSessionId.slice(0, 8)}`);
	const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
	item.id = `transcript:${t.id}`;
	const size = t.archiveBytes ? formatBytes(t.archiveBytes) : 'not archived';
	item.description = `${t.userRequests} turn${t.userRequests === 1 ? '' : 's'} · ${t.toolCalls} tools · ${size} · ${relativeTime(t.lastAt)}`;
	item.iconPath = new vscode.ThemeIcon(
		t.sourceMissing ? 'archive' : t.errors ? 'comment-unresolved' : 'comment',
		t.errors ? new vscode.ThemeColor('charts.orange') : undefined,
	);
	item.contextValue = 'transcript';
	const md = new vscode.MarkdownString();
	md.appendMarkdown(`**${escapeMarkdown(label)}** — ${agentName(t.agent)} ${escapeMarkdown(t.agentSessionId)}  \n`);
	md.appendMarkdown(`${t.firstAt ? new Date(t.firstAt).toLocaleString() : '?'} → ${t.lastAt ? new Date(t.lastAt).toLocaleString() : '?'}  \n`);
	md.appendMarkdown(
		`${t.userRequests} requests · ${t.toolCalls} tool calls · ${t.errors} errors · ${t.compactions} compactions · ${formatTokens(t.tokens)} tokens (≈ $${t.costUsd.toFixed(2)})`,
	);
	if (t.sharedFrom) {
		md.appendMarkdown(
			`  \n$(cloud-download) Ran on ${escapeMarkdown(t.sharedFrom.machineName ?? 'another machine')}${t.sharedFrom.author ? ` by ${escapeMarkdown(t.sharedFrom.author)}` : ''}; shared through sync.`,
		);
	} else if (t.sourceMissing) md.appendMarkdown('  \n$(archive) The agent deleted its own copy: Baton’s archive is what remains.');
	if (!t.archiving) md.appendMarkdown('  \n$(circle-slash) Archiving is off for this session.');
	item.tooltip = md;
	item.command = {
		command: CommandIds.openTranscript,
		title: 'Open Transcript',
		arguments: [{ id: t.id, title: t.title, agentSessionId: t.agentSessionId }],
	};
	return item;
}
