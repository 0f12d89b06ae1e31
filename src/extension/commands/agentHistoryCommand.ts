/**
 * *Baton: Import Agent History…* (issue 26): the agents' own history of this workspace read into Baton
 * by the backend (`agentHistory/import`, the same as `baton import agents`), one agent at a time under
 * a cancellable progress notification — a cancel stops before the next agent, and what was read stays
 * (a later run goes on from there). With `baton.agentHistory.scanOnOpen` (off by default) the same
 * import runs quietly once the window has opened the folder.
 * Callers (tests) may pass `{ agents, dryRun }` instead of the picks.
 */
import * as vscode from 'vscode';
import type { AgentHistoryReportDto } from '../../protocol/interopDto';
import { agentHistoryImport } from '../../protocol/rpc';
import { agentHomeEnv, agentName, escapeControls } from '../../protocol/displayText';
import type { BatonWorkspace } from '../batonWorkspace';
import { CommandIds } from '../ids';
import { command, ensureInitialized } from './commandSupport';
import { showInformationMessage, showQuickPick } from '../messages';

const agents = [
	{ agent: 'claude-code', label: 'Claude Code', detail: '~/.claude/projects/<this folder>/*.jsonl' },
	{ agent: 'codex', label: 'Codex', detail: '$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl' },
	{ agent: 'gemini', label: 'Gemini CLI', detail: '~/.gemini/tmp/<project>/chats/session-*' },
	{ agent: 'copilot', label: 'Copilot', detail: "~/.copilot/session-state/<id> and VS Code's chat sessions" },
	{ agent: 'cline', label: 'Cline and Roo Code', detail: 'their tasks/<id> folders and Cline SDK sessions' },
] as const;

export interface AgentHistoryOutcome {
	reports: AgentHistoryReportDto[];
	cancelled: boolean;
}

function total(reports: readonly AgentHistoryReportDto[], key: 'imported' | 'updated' | 'unchanged' | 'skipped'): number {
	let n = 0;
	for (const r of reports) for (const c of Object.values(r.agents)) n += c[key];
	return n;
}

/** One line for the person: what came in, per agent that had anything. */
function agentHistorySummary(reports: readonly AgentHistoryReportDto[], dryRun: boolean): string {
	const parts: string[] = [];
	for (const r of reports) {
		for (const [agent, c] of Object.entries(r.agents)) {
			if (c.found > 0 || c.skipped > 0) {
				const label = agents.find((a) => a.agent === agent)?.label ?? agentName(agent);
				parts.push(`${label}: ${c.imported} new, ${c.updated} updated${c.skipped ? `, ${c.skipped} skipped` : ''}`);
			}
		}
	}
	const head = dryRun ? 'Would import' : 'Imported';
	return parts.length ? `${head} agent history — ${parts.join('; ')}.` : 'No agent history of this folder was found.';
}

async function runImport(
	workspace: BatonWorkspace,
	chosen: readonly string[],
	dryRun: boolean,
	progress: vscode.Progress<{ message?: string; increment?: number }>,
	token?: vscode.CancellationToken,
): Promise<AgentHistoryOutcome> {
	const reports: AgentHistoryReportDto[] = [];
	for (const [i, agent] of chosen.entries()) {
		if (token?.isCancellationRequested) {
			return { reports, cancelled: true };
		}
		const label = agents.find((a) => a.agent === agent)?.label ?? agentName(agent);
		progress.report({ message: `${label} (${i + 1} of ${chosen.length})`, increment: 100 / chosen.length });
		// Where this editor's agents keep their files: the backend may have been started elsewhere, with another environment.
		const report = await workspace.request(agentHistoryImport, { agents: [agent], dryRun, env: agentHomeEnv(process.env) });
		for (const s of report.skipped) workspace.log.warn(`agent history: skipped ${escapeControls(s.path)}: ${escapeControls(s.reason)}`);
		for (const c of Object.values(report.agents)) {
			if (c.unknownRecords || c.badLines) {
				workspace.log.info(`agent history: ${label}: ${c.unknownRecords} record(s) of unknown types and ${c.badLines} damaged line(s) passed over`);
			}
		}
		reports.push(report);
	}
	return { reports, cancelled: false };
}

export function registerAgentHistoryCommand(workspace: BatonWorkspace): vscode.Disposable {
	return command(
		CommandIds.importAgentHistory,
		async (arg?: unknown) => {
			if (!(await ensureInitialized(workspace))) return undefined;
			const given = arg && typeof arg === 'object' ? (arg as { agents?: string[]; dryRun?: boolean }) : {};
			let chosen = given.agents;
			if (!chosen) {
				const picks = await showQuickPick(
					agents.map((a) => ({ ...a, picked: true })),
					{
						title: 'Import Agent History: whose sessions of this folder?',
						canPickMany: true,
						placeHolder: 'Read-only: Baton never writes an agent’s files',
					},
				);
				if (!picks || picks.length === 0) return undefined;
				chosen = picks.map((p) => p.agent);
			}
			const dryRun = given.dryRun === true;
			const outcome = await vscode.window.withProgress(
				{ location: vscode.ProgressLocation.Notification, title: 'Baton: importing agent history', cancellable: true },
				(progress, token) => runImport(workspace, chosen, dryRun, progress, token),
			);
			const summary = agentHistorySummary(outcome.reports, dryRun);
			workspace.log.info(`agent history: ${summary}${outcome.cancelled ? ' (cancelled)' : ''}`);
			void showInformationMessage(outcome.cancelled ? `Cancelled. ${summary}` : summary);
			if (total(outcome.reports, 'imported') + total(outcome.reports, 'updated') > 0) {
				void workspace.refresh();
			}
			return outcome;
		},
		workspace.log,
	);
}

/** The opt-in scan when the window opens the folder: quiet, in the status bar's progress, logged. */
export async function scanAgentHistoryOnOpen(workspace: BatonWorkspace, ready: Promise<unknown>): Promise<AgentHistoryOutcome | undefined> {
	await ready;
	if (
		!vscode.workspace.getConfiguration('baton').get<boolean>('agentHistory.scanOnOpen', false) ||
		!vscode.workspace.isTrusted ||
		!workspace.status?.initialized
	) {
		return undefined;
	}
	try {
		const outcome = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Baton: reading agent history' }, (progress) =>
			runImport(
				workspace,
				agents.map((a) => a.agent),
				false,
				progress,
			),
		);
		workspace.log.info(`agent history (scan on open): ${agentHistorySummary(outcome.reports, false)}`);
		return outcome;
	} catch (error) {
		workspace.log.warn(`agent history (scan on open) failed: ${(error as Error).message}`);
		return undefined;
	}
}
