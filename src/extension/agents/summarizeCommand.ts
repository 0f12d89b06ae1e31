/**
 * `Baton: Summarize Session with Language Model`: the session's deterministic summary from the
 * backend (`session/summary`), improved by the editor's language model when one is available and
 * the person agrees — streamed, cancellable, with progress — and otherwise (no model, refusal, error,
 * cancel) shown as it is, with a note saying why. The result opens as a markdown document; a session
 * without a handoff can take it as its handoff note (which ends it), any other is offered Copy.
 * Callers may pass `{ id, useModel, action }` to skip the questions.
 */
import * as vscode from 'vscode';
import { sessionDetails, sessionSummary } from '../../protocol/rpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { command, pickSession, sessionIdOf } from '../commands/commandSupport';
import { CommandIds } from '../ids';
import { TranscriptGroup } from './transcriptsView';
import { showInformationMessage, showWarningMessage } from '../messages';

export interface SummaryOutcome {
	sessionId: string;
	markdown: string;
	/** The model that improved it; null when the deterministic summary is shown. */
	model: string | null;
	/** Why the deterministic summary is shown (no model, declined, failed, cancelled). */
	note: string | null;
	/** What was offered: keep the summary as the handoff note, or copy it. */
	offered: 'saveAsHandoff' | 'copy';
}

interface SummarizeArgs {
	id?: string;
	/** false: skip the model; true: use it without asking. */
	useModel?: boolean;
	/** What to do with the result without asking: nothing (the default when given), copy, or save as the handoff note. */
	action?: 'none' | 'copy' | 'saveAsHandoff';
}

const maxHandoffNote = 4_000;

export function registerSummarizeCommand(workspace: BatonWorkspace): vscode.Disposable {
	return command(
		CommandIds.summarizeSession,
		async (arg?: unknown): Promise<SummaryOutcome | undefined> => {
			const given: SummarizeArgs = arg && typeof arg === 'object' && !(arg instanceof TranscriptGroup) ? (arg as SummarizeArgs) : {};
			const id =
				(arg instanceof TranscriptGroup ? (arg.sessionId ?? undefined) : undefined) ??
				sessionIdOf(arg) ??
				(await pickSession(workspace, ['active', 'suspended', 'ended', 'orphaned'], 'Summarize which session?', 'No sessions yet.'))?.id;
			if (!id) {
				return undefined;
			}
			const [{ markdown }, details] = await Promise.all([workspace.request(sessionSummary, { id }), workspace.request(sessionDetails, { id })]);
			const improved = await improve(markdown, given.useModel, workspace.log);
			const text = improved.model
				? `${improved.text.trimEnd()}\n\n---\n*Improved by ${improved.model} from Baton’s deterministic summary. Check it against the session before relying on it.*\n`
				: withNote(markdown, improved.note ?? '');
			const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: text });
			await vscode.window.showTextDocument(document, { preview: false });
			const canSave = details.handoff === null && details.handoffProblem === null && details.session.status === 'active';
			const outcome: SummaryOutcome = {
				sessionId: id,
				markdown: text,
				model: improved.model,
				note: improved.note,
				offered: canSave ? 'saveAsHandoff' : 'copy',
			};
			const act = async (choice: 'copy' | 'saveAsHandoff' | 'none' | undefined): Promise<void> => {
				if (choice === 'copy') {
					await vscode.env.clipboard.writeText(text);
					vscode.window.setStatusBarMessage('$(copy) Baton: summary copied', 4_000);
				} else if (choice === 'saveAsHandoff' && canSave) {
					await vscode.commands.executeCommand(CommandIds.endSession, { id, note: clip(improved.model ? improved.text : markdown) });
				}
			};
			if (given.action !== undefined) {
				await act(given.action);
				return outcome;
			}
			const label = canSave ? 'Save as Handoff Note' : 'Copy';
			void showInformationMessage(`Summary of “${details.session.name}”${improved.model ? ` (improved by ${improved.model})` : ''}.`, label).then(
				async (choice) => {
					if (choice !== label) {
						return;
					}
					if (canSave) {
						const confirmed = await showWarningMessage(
							`Save the summary as the handoff note of “${details.session.name}”?`,
							{
								modal: true,
								detail: 'A handoff is written once, when its session ends: this ends the session, and the next session of its scope receives the note.',
							},
							'End Session with This Note',
						);
						if (!confirmed) {
							return;
						}
					}
					await act(canSave ? 'saveAsHandoff' : 'copy');
				},
			);
			return outcome;
		},
		workspace.log,
	);
}

/** The note goes under the title, which stays the first line (an untitled document's tab shows it). */
function withNote(markdown: string, note: string): string {
	const title = /^# [^\n]*\n/.exec(markdown)?.[0] ?? '';
	return `${title}${title ? '\n' : ''}> ${note}\n${title ? '' : '\n'}${markdown.slice(title.length)}`;
}

/** The summary as a handoff note: without its title (the handoff belongs to the session already), at most 4,000 characters. */
function clip(summary: string): string {
	const text = summary.replace(/^# [^\n]*\n+/, '').trim();
	return text.length > maxHandoffNote ? `${text.slice(0, maxHandoffNote - 1)}…` : text;
}

/** How long the editor may take to list its language models: a provider that never answers (signing in, stuck) leaves the deterministic summary. */
const modelListMs = 10_000;

/** The editor's chat models; none when it has no language model API or the listing fails; undefined when it did not answer in time. */
async function listModels(log: vscode.LogOutputChannel): Promise<readonly vscode.LanguageModelChat[] | undefined> {
	if (typeof vscode.lm?.selectChatModels !== 'function') {
		return [];
	}
	let timer: NodeJS.Timeout | undefined;
	const late = new Promise<undefined>((resolve) => {
		timer = setTimeout(() => resolve(undefined), modelListMs);
	});
	try {
		const models = await Promise.race([vscode.lm.selectChatModels(), late]);
		if (!models) {
			log.warn(`the editor did not list its language models within ${modelListMs / 1000} s: the deterministic summary is shown`);
		}
		return models;
	} catch (error) {
		log.warn(`could not list language models: ${(error as Error).message}`);
		return [];
	} finally {
		clearTimeout(timer);
	}
}

/** The model's rewrite, or why there is none. Never throws: the deterministic summary is the fallback. */
async function improve(
	markdown: string,
	useModel: boolean | undefined,
	log: vscode.LogOutputChannel,
): Promise<{ text: string; model: string | null; note: string | null }> {
	const fallback = (note: string) => ({ text: markdown, model: null, note });
	if (useModel === false) {
		return fallback('Baton’s deterministic summary (the language model was not asked).');
	}
	const models = await listModels(log);
	const model = models?.[0];
	if (!model) {
		return fallback(
			`No language model is available in this editor${models ? '' : ` (none was listed within ${modelListMs / 1000} s)`}, so this is Baton’s deterministic summary (built from the session’s records and transcripts).`,
		);
	}
	if (useModel !== true) {
		const choice = await showInformationMessage(
			`Improve the summary with ${model.name}?`,
			{
				modal: true,
				detail: `Baton sends the deterministic summary of the session (no transcript text beyond it) to ${model.name} (${model.vendor}) and shows its rewrite.`,
			},
			'Use Model',
			'Keep Deterministic',
		);
		if (choice !== 'Use Model') {
			return fallback('Baton’s deterministic summary (you chose not to use a language model).');
		}
	}
	const prompt = [
		'You are given the summary of a coding agent’s work session, built by a tool from the session’s records.',
		'Rewrite it as a handoff for the next engineer or agent: what was done, what was decided and why, what failed, what blocks, and the first next step.',
		'Keep every fact (names, files, numbers); invent nothing; say "unknown" where the summary is silent. Answer in markdown, under 400 words.',
		'',
		markdown,
	].join('\n');
	return vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: `Baton: ${model.name} is improving the summary`, cancellable: true },
		async (progress, token) => {
			try {
				const response = await model.sendRequest(
					[vscode.LanguageModelChatMessage.User(prompt)],
					{ justification: 'Baton rewrites a session summary you asked for into a handoff.' },
					token,
				);
				let text = '';
				for await (const part of response.text) {
					text += part;
					progress.report({ message: `${text.length} characters` });
				}
				if (token.isCancellationRequested) {
					return fallback('Baton’s deterministic summary (you cancelled the language model).');
				}
				return text.trim() ? { text, model: model.name, note: null } : fallback(`Baton’s deterministic summary (${model.name} returned nothing).`);
			} catch (error) {
				log.warn(`language model summary failed: ${(error as Error).message}`);
				return fallback(
					token.isCancellationRequested
						? 'Baton’s deterministic summary (you cancelled the language model).'
						: `Baton’s deterministic summary (${model.name} failed: ${(error as Error).message}).`,
				);
			}
		},
	);
}
