/**
 * Opening an archived transcript (VS Code's markdown preview of its `baton-transcript:` document, or
 * the markdown itself where no preview exists) and `Baton: Sync Transcripts`.
 */
import * as vscode from 'vscode';
import type { TranscriptDto } from '../../protocol/agentDto';
import { transcriptList, transcriptSync } from '../../protocol/rpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { command, ensureInitialized } from '../commands/commandSupport';
import { relativeTime, withoutIcons } from '../format';
import { CommandIds } from '../ids';
import { TranscriptNode, transcriptUri } from './transcriptsView';
import { showInformationMessage, showQuickPick } from '../messages';

type TranscriptRef = Pick<TranscriptDto, 'id' | 'title' | 'agentSessionId'>;

function refOf(arg: unknown): TranscriptRef | undefined {
	if (arg instanceof TranscriptNode) {
		return arg.transcript;
	}
	const given = arg as Partial<TranscriptRef> | undefined;
	return given && typeof given.id === 'string' ? { id: given.id, title: given.title ?? null, agentSessionId: given.agentSessionId ?? given.id } : undefined;
}

/** Opens the rendering; resolves to the document's URI. */
async function openTranscript(ref: TranscriptRef): Promise<vscode.Uri> {
	const uri = transcriptUri(ref);
	const document = await vscode.workspace.openTextDocument(uri);
	try {
		await vscode.commands.executeCommand('markdown.showPreview', uri);
	} catch {
		// No markdown preview in this editor: the markdown itself reads well too.
		await vscode.languages.setTextDocumentLanguage(document, 'markdown');
		await vscode.window.showTextDocument(document, { preview: true });
	}
	return uri;
}

export function registerTranscriptCommands(workspace: BatonWorkspace): vscode.Disposable[] {
	const log = workspace.log;
	return [
		command(
			CommandIds.openTranscript,
			async (arg?: unknown) => {
				let ref = refOf(arg);
				if (!ref) {
					const { transcripts } = await workspace.request(transcriptList, {});
					const archived = transcripts.filter((t) => t.archiveBytes > 0);
					if (archived.length === 0) {
						void showInformationMessage('No archived transcripts yet. Connect Claude Code: Baton archives its transcripts per session.');
						return undefined;
					}
					ref = (
						await showQuickPick(
							archived.map((t) => ({
								label: withoutIcons(t.title ?? `Transcript ${t.agentSessionId.slice(0, 8)}`),
								description: withoutIcons(`${t.sessionName ?? t.sessionId ?? ''} · ${relativeTime(t.lastAt)}`),
								detail: withoutIcons(`${t.userRequests} turns · ${t.toolCalls} tool calls · ${t.agentSessionId}`),
								t,
							})),
							{ placeHolder: 'Open which transcript?', matchOnDescription: true, matchOnDetail: true },
						)
					)?.t;
				}
				return ref ? openTranscript(ref) : undefined;
			},
			log,
		),
		command(
			CommandIds.syncTranscripts,
			async () => {
				if (!(await ensureInitialized(workspace))) {
					return undefined;
				}
				const result = await vscode.window.withProgress(
					{ location: vscode.ProgressLocation.Window, title: 'Baton: archiving agent transcripts…' },
					() => workspace.request(transcriptSync, undefined),
				);
				await workspace.refresh();
				vscode.window.setStatusBarMessage(
					result.transcripts
						? `$(check) Baton: archived ${result.excerpts} excerpt${result.excerpts === 1 ? '' : 's'} from ${result.transcripts} transcript${result.transcripts === 1 ? '' : 's'}`
						: '$(check) Baton: transcripts are up to date',
					6_000,
				);
				return result;
			},
			log,
		),
	];
}
