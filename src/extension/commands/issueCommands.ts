/**
 * `Baton: Link Issue…`: ties a session (a tree row, or one picked) to a tracker issue. The backend
 * parses the reference and refuses what is not one; the issue itself is fetched only by
 * `baton issue sync`, never on this path.
 */
import * as vscode from 'vscode';
import { issueLabel } from '../../protocol/issueLabel';
import { issueLink } from '../../protocol/rpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { CommandIds } from '../ids';
import { command, ensureInitialized, pickSession, sessionIdOf } from './commandSupport';

const refPrompt = 'Issue: #123, owner/repo#123, ABC-123 (Linear), bd-a1b2 (Beads), github:…, linear:…, beads:…, webhook:…, or an issue URL';

export function registerIssueCommands(workspace: BatonWorkspace): vscode.Disposable[] {
	return [
		command(
			CommandIds.linkIssue,
			async (arg?: unknown) => {
				if (!(await ensureInitialized(workspace))) {
					return undefined;
				}
				const given = arg && typeof arg === 'object' && typeof (arg as { ref?: unknown }).ref === 'string' ? (arg as { ref: string }).ref : undefined;
				const sessionId =
					sessionIdOf(arg) ??
					(
						await pickSession(
							workspace,
							['active', 'suspended', 'orphaned', 'ended'],
							'Link an issue to which session?',
							'There are no sessions yet.',
						)
					)?.id;
				if (!sessionId) {
					return undefined;
				}
				const ref =
					given ??
					(await vscode.window.showInputBox({
						title: 'Link Issue',
						prompt: refPrompt,
						placeHolder: '#42',
						ignoreFocusOut: true,
						validateInput: (v) => (v.trim().length === 0 ? 'Name an issue.' : v.trim().length > 300 ? 'At most 300 characters.' : undefined),
					}));
				if (ref === undefined) {
					return undefined;
				}
				const result = await workspace.request(issueLink, { sessionId, ref: ref.trim() });
				await workspace.refresh();
				vscode.window.setStatusBarMessage(`$(link) Baton: ${result.added ? 'linked' : 'already linked to'} ${issueLabel(result.link)}`, 5_000);
				return result.link;
			},
			workspace.log,
		),
	];
}
