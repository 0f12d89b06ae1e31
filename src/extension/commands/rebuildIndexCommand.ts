/**
 * *Baton: Rebuild Session Index* (issue 26, "never lose one"): `baton doctor --reindex` run by the
 * backend (`agentHistory/reindex`) under a progress notification — the transcript index rebuilt from
 * the archive's own headers and this editor's agents' files still on disk. Files it could not use go to
 * the log, with why; the notification says how many and offers the log.
 */
import * as vscode from 'vscode';
import type { ReindexReportDto } from '../../protocol/interopDto';
import { agentHistoryReindex } from '../../protocol/rpc';
import { agentHomeEnv, agentName, escapeControls } from '../../protocol/displayText';
import type { BatonWorkspace } from '../batonWorkspace';
import { CommandIds } from '../ids';
import { command, ensureInitialized } from './commandSupport';
import { showInformationMessage, showWarningMessage } from '../messages';

/** One line for the person: what the index holds now, per agent, and what could not be read. */
function reindexSummary(r: ReindexReportDto): string {
	const agents = Object.entries(r.agents).map(
		([agent, c]) => `${agentName(agent)} ${c.transcripts}${c.sourceMissing ? ` (${c.sourceMissing} kept from the archive alone)` : ''}`,
	);
	const head = r.changed ? 'Rebuilt the session index' : 'The session index was up to date';
	const errors = r.problems.filter((p) => p.level === 'error').length + r.skipped.length;
	return `${head}: ${r.transcripts} transcript(s) of ${r.sessions} session(s)${agents.length ? ` — ${agents.join(', ')}` : ''}.${errors ? ` ${errors} file(s) could not be read (see the log).` : ''}`;
}

export function registerRebuildIndexCommand(workspace: BatonWorkspace): vscode.Disposable {
	return command(
		CommandIds.rebuildSessionIndex,
		async () => {
			if (!(await ensureInitialized(workspace))) return undefined;
			const report = await vscode.window.withProgress(
				{ location: vscode.ProgressLocation.Notification, title: 'Baton: rebuilding the session index' },
				(progress) => {
					progress.report({ message: 'reading the archive and the agents’ files…' });
					// Where this editor's agents keep their files: the backend may have been started elsewhere.
					return workspace.request(agentHistoryReindex, { env: agentHomeEnv(process.env) });
				},
			);
			for (const p of report.problems)
				workspace.log.warn(`session index: ${p.level === 'error' ? 'not read' : 'note'} ${escapeControls(p.path)}: ${escapeControls(p.reason)}`);
			for (const s of report.skipped) workspace.log.warn(`session index: skipped ${escapeControls(s.path)}: ${escapeControls(s.reason)}`);
			const summary = reindexSummary(report);
			workspace.log.info(`session index: ${summary}`);
			if (report.problems.some((p) => p.level === 'error') || report.skipped.length > 0) {
				void showWarningMessage(summary, 'Show Log').then((pick) => pick && workspace.log.show());
			} else {
				void showInformationMessage(summary);
			}
			if (report.changed) {
				void workspace.refresh();
			}
			return report;
		},
		workspace.log,
	);
}
