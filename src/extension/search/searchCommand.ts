/**
 * *Baton: Search Sessions…* (docs/search.md): a quick pick that asks the backend's index as the person
 * types and opens what they pick where it lives — a session's details, the Replay at a step, the
 * transcript at its line. The Session Chains view's title has a search button for it: a tree view has
 * no input box of its own, and its built-in find (type to filter) matches only the labels of rows
 * already loaded, never a prompt, a handoff or a transcript, so the button opens this pick.
 */
import * as vscode from 'vscode';
import type { SearchHitDto } from '../../protocol/searchRpc';
import { searchSessions } from '../../protocol/searchRpc';
import { agentName } from '../../protocol/displayText';
import { transcriptUri } from '../agents/transcriptsView';
import type { BatonWorkspace } from '../batonWorkspace';
import { command, ensureInitialized } from '../commands/commandSupport';
import { relativeTime, shownItem, withoutIcons } from '../format';
import { CommandIds } from '../ids';
import { showInformationMessage } from '../messages';

interface HitItem extends vscode.QuickPickItem {
	hit?: SearchHitDto;
}

const icons: Record<SearchHitDto['kind'], string> = {
	session: 'debug-start',
	handoff: 'arrow-right',
	decision: 'law',
	memory: 'lightbulb',
	prompt: 'comment',
	step: 'edit',
	transcript: 'comment-discussion',
};

function where(hit: SearchHitDto): string {
	switch (hit.kind) {
		case 'step':
			return `step ${hit.step ?? '?'}`;
		case 'prompt':
			return `prompt, turn ${hit.turn ?? '?'}`;
		case 'transcript':
			return 'transcript';
		case 'memory':
			return 'project memory';
		default:
			return hit.kind;
	}
}

/** One hit as a row: its session, where in it, when, and the passage that matched. */
function hitItem(hit: SearchHitDto): HitItem {
	const who = hit.agent ? ` · ${agentName(hit.agent)}` : '';
	return shownItem({
		label: `$(${icons[hit.kind]}) ${withoutIcons(hit.sessionName ?? (hit.kind === 'memory' ? 'Project memory' : 'No session'))}`,
		description: withoutIcons(`${where(hit)}${who}${hit.at ? ` · ${relativeTime(hit.at)}` : ''}`),
		detail: withoutIcons(hit.excerpt),
		alwaysShow: true,
		hit,
	});
}

async function openHit(hit: SearchHitDto): Promise<void> {
	if (hit.kind === 'transcript' && hit.transcriptId) {
		// The same document the Transcripts view opens, so an open one is reused.
		const uri = transcriptUri({ id: hit.transcriptId, title: null, agentSessionId: hit.transcriptId });
		const document = await vscode.workspace.openTextDocument(uri);
		await vscode.languages.setTextDocumentLanguage(document, 'markdown');
		const at = new vscode.Position(Math.min(hit.line ?? 0, document.lineCount - 1), 0);
		await vscode.window.showTextDocument(document, { preview: true, selection: new vscode.Range(at, at) });
		return;
	}
	if ((hit.kind === 'step' || hit.kind === 'prompt') && hit.sessionId) {
		await vscode.commands.executeCommand(CommandIds.replaySession, { id: hit.sessionId }, hit.kind === 'step' ? hit.step : undefined);
		return;
	}
	if (hit.sessionId) {
		await vscode.commands.executeCommand(CommandIds.showSessionDetails, { id: hit.sessionId });
		return;
	}
	void showInformationMessage(`Project memory: ${hit.excerpt}`);
}

/** Waits this long after a keystroke before asking: one request per pause, not per key. */
const typingPauseMs = 150;

export function registerSearchCommand(workspace: BatonWorkspace): vscode.Disposable {
	return command(
		CommandIds.searchSessions,
		async (arg?: unknown) => {
			if (!(await ensureInitialized(workspace))) {
				return undefined;
			}
			const pick = vscode.window.createQuickPick<HitItem>();
			pick.title = 'Search Sessions';
			pick.placeholder = 'Words from a prompt, a handoff, a decision, memory, a file or a transcript';
			pick.matchOnDescription = false;
			pick.matchOnDetail = true;
			let asked = 0;
			let timer: ReturnType<typeof setTimeout> | undefined;
			const ask = (text: string): void => {
				const mine = ++asked;
				if (text.trim() === '') {
					pick.busy = false;
					pick.items = [];
					return;
				}
				pick.busy = true;
				workspace.request(searchSessions, { text, limit: 50 }).then(
					(result) => {
						if (mine !== asked) return;
						pick.busy = false;
						pick.items = result.hits.length ? result.hits.map(hitItem) : [{ label: `No match for “${text.trim()}”`, alwaysShow: true }];
					},
					(error: unknown) => {
						if (mine !== asked) return;
						pick.busy = false;
						pick.items = [{ label: `$(warning) ${(error as Error).message}`, alwaysShow: true }];
					},
				);
			};
			const chosen = new Promise<SearchHitDto | undefined>((resolve) => {
				pick.onDidChangeValue((value) => {
					clearTimeout(timer);
					timer = setTimeout(() => ask(value), typingPauseMs);
				});
				pick.onDidAccept(() => {
					const hit = pick.selectedItems[0]?.hit;
					if (hit) {
						resolve(hit);
						pick.hide();
					}
				});
				pick.onDidHide(() => resolve(undefined));
			});
			const given = typeof arg === 'string' ? arg : undefined;
			if (given) {
				pick.value = given;
				ask(given);
			}
			pick.show();
			const hit = await chosen;
			clearTimeout(timer);
			pick.dispose();
			if (hit) await openHit(hit);
			return hit;
		},
		workspace.log,
	);
}
