/**
 * Who wrote this line, in the editor: a hover on any line (agent, session, prompt excerpt, time, links
 * to the session and its replay step), `Baton: Toggle Agent Blame` for end-of-line annotations in the
 * theme's inline-hint colour, and the file's agent share for the status bar's tooltip. A file's blame is
 * asked of the backend once per saved version (never per keystroke) and kept; a file with unsaved
 * changes shows the blame of its saved text. Nothing runs in an untrusted workspace: blame runs git.
 */
import { replayCommandId } from '../replay/replayPanel';
import path from 'node:path';
import * as vscode from 'vscode';
import { escapeControls } from '../../protocol/displayText';
import type { BlameDto, BlameLineDto } from '../../protocol/provenanceRpc';
import { provenanceBlame } from '../../protocol/provenanceRpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { escapeMarkdown, relativeTime } from '../format';
import { command } from '../commands/commandSupport';
import { CommandIds } from '../ids';
import { Disposable } from '../lifecycle';
import { showInformationMessage } from '../messages';

interface AgentShare {
	file: string;
	agent: number;
	human: number;
	unknown: number;
}

export class AgentBlame extends Disposable {
	private enabled = false;
	private readonly cache = new Map<string, { version: number; blame: Promise<BlameDto | undefined> }>();
	private readonly decoration = this.register(
		vscode.window.createTextEditorDecorationType({
			after: { color: new vscode.ThemeColor('editorInlayHint.foreground'), margin: '0 0 0 3em', fontStyle: 'italic' },
			rangeBehavior: vscode.DecorationRangeBehavior.ClosedOpen,
		}),
	);
	private readonly shareEmitter = this.register(new vscode.EventEmitter<AgentShare | undefined>());
	/** The active file's agent share changed (the status bar shows it in its tooltip). */
	readonly onDidChangeShare = this.shareEmitter.event;
	private lastShare: AgentShare | undefined;
	private readonly shown = new Map<string, string[]>();
	private readonly shownEmitter = this.register(new vscode.EventEmitter<vscode.Uri>());
	/** Annotations were (re)set on a file's editor. */
	readonly onDidAnnotate = this.shownEmitter.event;

	constructor(private readonly workspace: BatonWorkspace) {
		super();
		if (!vscode.workspace.isTrusted) {
			// Registered only when trusted; trust granted later takes a reload, as for Baton's other git work.
			this.register(
				command(
					CommandIds.toggleAgentBlame,
					async () => showInformationMessage('Agent Blame runs git, so it is off in an untrusted workspace.'),
					workspace.log,
				),
			);
			return;
		}
		this.register(
			vscode.languages.registerHoverProvider({ scheme: 'file' }, { provideHover: (document, position, token) => this.hover(document, position, token) }),
		);
		this.register(command(CommandIds.toggleAgentBlame, () => this.toggle(), workspace.log));
		this.register(vscode.window.onDidChangeActiveTextEditor(() => void this.refreshActive()));
		this.register(
			vscode.workspace.onDidSaveTextDocument((document) => {
				this.cache.delete(document.uri.toString());
				void this.refreshActive();
			}),
		);
		this.register(workspace.onDidChangeData(() => this.cache.clear()));
		void this.refreshActive();
	}

	get annotating(): boolean {
		return this.enabled;
	}

	async toggle(): Promise<void> {
		this.enabled = !this.enabled;
		await this.refreshActive();
	}

	/** The blame of a document's saved text, or undefined outside the workspace or git. */
	blame(document: vscode.TextDocument): Promise<BlameDto | undefined> {
		const file = this.relativePath(document.uri);
		if (!file) {
			return Promise.resolve(undefined);
		}
		const key = document.uri.toString();
		const version = document.isDirty ? -1 : document.version;
		const cached = this.cache.get(key);
		if (cached && (cached.version === version || document.isDirty)) {
			return cached.blame;
		}
		const blame = this.workspace.request(provenanceBlame, { file }).then(
			(result) => result,
			(error: unknown) => {
				this.workspace.log.debug(`agent blame of ${file}: ${(error as Error).message}`);
				return undefined;
			},
		);
		this.cache.set(key, { version, blame });
		return blame;
	}

	private relativePath(uri: vscode.Uri): string | undefined {
		const root = this.workspace.root;
		if (uri.scheme !== 'file' || !root) {
			return undefined;
		}
		const relative = path.relative(root, uri.fsPath);
		return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative.split(path.sep).join('/') : undefined;
	}

	private async hover(document: vscode.TextDocument, position: vscode.Position, token: vscode.CancellationToken): Promise<vscode.Hover | undefined> {
		const blame = await this.blame(document);
		const line = blame?.lines[position.line];
		if (!line || token.isCancellationRequested) {
			return undefined;
		}
		const replay = replayCommandId;
		const text = new vscode.MarkdownString(escapeControls(hoverMarkdown(line, replay)), true);
		text.isTrusted = { enabledCommands: [CommandIds.showSessionDetails, ...(replay ? [replay] : [])] };
		return new vscode.Hover(text, document.lineAt(position.line).range);
	}

	private async refreshActive(): Promise<void> {
		const editor = vscode.window.activeTextEditor;
		if (!editor || this.isDisposed) {
			this.shareEmitter.fire(undefined);
			return;
		}
		const blame = await this.blame(editor.document);
		if (this.isDisposed || vscode.window.activeTextEditor !== editor) {
			return;
		}
		const share = blame ? agentShare(blame) : undefined;
		this.lastShare = share;
		this.shareEmitter.fire(share);
		const shown = this.enabled && blame ? annotations(blame, editor.document) : [];
		editor.setDecorations(this.decoration, shown);
		this.shown.set(
			editor.document.uri.toString(),
			shown.map((d) => `${d.range.start.line + 1}: ${d.renderOptions?.after?.contentText ?? ''}`),
		);
		this.shownEmitter.fire(editor.document.uri);
	}

	/** The end-of-line annotations last set on the file's editor, as `line: text` (the editor API cannot read decorations back). */
	annotationsShown(uri: vscode.Uri): readonly string[] {
		return this.shown.get(uri.toString()) ?? [];
	}

	/** The active file's agent share, as last given to the status bar. */
	get share(): AgentShare | undefined {
		return this.lastShare;
	}
}

function agentShare(blame: BlameDto): AgentShare {
	const share: AgentShare = { file: blame.file, agent: 0, human: 0, unknown: 0 };
	for (const line of blame.lines) {
		share[line.origin]++;
	}
	return share;
}

/** One line of the status bar's tooltip: "src/app.ts: 62% written by agents (31 of 50 lines)". */
export function shareMarkdown(share: AgentShare): string {
	const total = share.agent + share.human + share.unknown;
	const percent = total ? Math.round((share.agent / total) * 100) : 0;
	return `$(hubot) ${escapeMarkdown(share.file)}: ${percent}% written by agents (${share.agent} of ${total} lines; ${share.human} by people, ${share.unknown} unknown)`;
}

function who(line: BlameLineDto): string {
	if (line.origin === 'agent') {
		return `${line.agent ?? 'agent'}${line.turn !== null ? `, turn ${line.turn}` : ''}`;
	}
	return line.origin === 'human' ? (line.author ?? 'a person') : 'unknown';
}

function annotations(blame: BlameDto, document: vscode.TextDocument): vscode.DecorationOptions[] {
	return blame.lines
		.filter((line) => line.line - 1 < document.lineCount)
		.map((line) => {
			const end = document.lineAt(line.line - 1).range.end;
			const when = line.time ? ` · ${relativeTime(line.time)}` : line.commit === null ? ' · uncommitted' : '';
			const prompt = line.prompt ? ` · “${line.prompt.slice(0, 40)}${line.prompt.length > 40 ? '…' : ''}”` : '';
			return {
				range: new vscode.Range(end, end),
				renderOptions: {
					after: {
						contentText: escapeControls(
							`${line.origin === 'agent' && line.agent ? 'agent ' : ''}${who(line)}${when}${prompt}${line.recovered ? ' (recovered)' : ''}`,
						),
					},
				},
			};
		});
}

function hoverMarkdown(line: BlameLineDto, replayCommand: string | undefined): string {
	const parts: string[] = [];
	if (line.origin === 'agent') {
		parts.push(`**Written by an agent** — ${escapeMarkdown(line.agent ?? 'agent')}${line.model ? ` (${escapeMarkdown(line.model)})` : ''}`);
		if (line.prompt) {
			parts.push(`> ${escapeMarkdown(line.prompt)}`);
		}
	} else if (line.origin === 'human') {
		parts.push(`**Written by a person**${line.author ? ` — committed by ${escapeMarkdown(line.author)}` : ''}`);
	} else {
		parts.push('**Origin unknown** — Baton did not capture who wrote this line');
	}
	const facts = [
		line.commit ? `commit \`${line.commit.slice(0, 10)}\`` : 'not committed yet',
		line.time ? relativeTime(line.time) : '',
		line.recovered ? 'recovered by content after a rewrite' : '',
	].filter(Boolean);
	parts.push(facts.join(' · '));
	if (line.session) {
		const links = [`[Open session](command:${CommandIds.showSessionDetails}?${encodeURIComponent(JSON.stringify([line.session]))})`];
		if (replayCommand && line.step !== null) {
			links.push(`[Replay step ${line.step}](command:${replayCommand}?${encodeURIComponent(JSON.stringify([line.session, line.step]))})`);
		}
		parts.push(links.join(' · '));
	}
	return parts.join('\n\n');
}
