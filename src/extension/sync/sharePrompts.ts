/**
 * The questions sync asks before anything leaves this machine (syncController.ts): what to share
 * through which remote, and what to take back, each ending in a modal that says plainly what happens.
 */
import * as vscode from 'vscode';
import { escapeControls } from '../../protocol/displayText';
import { syncRetractable, type SyncRemoteDto } from '../../protocol/syncRpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { relativeTime } from '../format';
import { showInformationMessage, showQuickPick, showWarningMessage } from '../messages';

/** What goes besides sessions, handoffs, decisions and checkpoints. */
interface ShareExtras {
	untracked: boolean;
	transcripts: boolean;
	timeline: boolean;
}

/** What a retraction names, and how the editor says it. */
interface RetractionChoice {
	request: { checkpoint?: string; session?: string; since?: string };
	what: string;
}

/**
 * Asks which of the repository's remotes shares Baton's records (the only one is taken as it is),
 * which extras go too (none unless ticked), then a modal that says what becomes readable to whom.
 * Undefined when any question is dismissed.
 */
export async function askToShare(inGit: SyncRemoteDto[]): Promise<{ remote: SyncRemoteDto; what: ShareExtras } | undefined> {
	const shared = (r: SyncRemoteDto): string =>
		r.enabled
			? `shared now${r.untracked ? ', untracked files too' : ''}${r.transcripts ? ', transcripts too' : ''}${r.timeline ? ', step files too' : ''}`
			: '';
	const remote =
		inGit.length === 1
			? inGit[0]
			: (
					await showQuickPick(
						inGit.map((r) => ({ label: r.name, description: shared(r), remote: r })),
						{ title: 'Share Baton’s Records (1/2)', placeHolder: 'Through which git remote?' },
					)
				)?.remote;
	if (!remote) {
		return undefined;
	}
	// Sessions, handoffs, decisions and checkpoints always go; each extra is ticked (none by default).
	const extras = await showQuickPick(
		[
			{
				label: 'Untracked files in checkpoints',
				description: 'the files git would add; ignored files never',
				key: 'untracked' as const,
				picked: remote.untracked,
			},
			{ label: 'Agent transcripts', description: 'redacted', key: 'transcripts' as const, picked: remote.transcripts },
			{
				label: 'Each step’s changed files',
				description: 'so a teammate’s Replay shows a step’s diff and can revert it',
				key: 'timeline' as const,
				picked: remote.timeline,
			},
		],
		{
			title: `Share Baton’s Records (2/2): “${remote.name}” gets sessions, handoffs, decisions and checkpoints`,
			placeHolder: 'What else goes too? Tick, then Enter (none: only those)',
			canPickMany: true,
		},
	);
	if (!extras) {
		return undefined;
	}
	const what = {
		untracked: extras.some((e) => e.key === 'untracked'),
		transcripts: extras.some((e) => e.key === 'transcripts'),
		timeline: extras.some((e) => e.key === 'timeline'),
	};
	const detail = [
		`Everyone who can read “${remote.name}” will see this workspace’s ${what.transcripts ? 'sessions, handoffs, decisions, checkpoints and agent transcripts' : 'sessions, handoffs, decisions and checkpoints (not the transcripts)'}, with the author and machine name of each.`,
		what.untracked
			? 'A checkpoint carries the files git tracks and the untracked files git would add. Files your .gitignore, .git/info/exclude or global excludes file ignore (.env, build output) never leave this machine.'
			: 'A checkpoint carries only the files git tracks. Untracked and ignored files (.env, scratch files, build output) never leave this machine.',
		what.timeline
			? 'Each agent step’s changed files travel too, under the same rules, so a teammate’s Replay shows the step’s diff and can revert it in their workspace.'
			: 'The files each agent step changed stay here: a teammate’s Replay lists the steps without their diffs.',
		'Every file is scanned for credentials first (API keys, tokens, private keys, .env-style secrets): a file that looks like it holds one is left out whole, and the push names it. Session text is redacted the same way.',
		'They are pushed under refs/baton/ only — never your branches, tags or notes. “Baton: Stop Sharing With a Git Remote” turns it off again.',
	].join('\n\n');
	const ok = await showWarningMessage(`Share Baton’s records through “${remote.name}”?`, { modal: true, detail }, 'Share');
	return ok === 'Share' ? { remote, what } : undefined;
}

/** Picks what this machine takes back: a checkpoint or a session of its own, or everything since a time. Undefined when dismissed, or when there is nothing of that kind. */
export async function pickRetraction(workspace: BatonWorkspace): Promise<RetractionChoice | undefined> {
	const chosen = await showQuickPick(
		[
			{ label: 'A checkpoint', description: 'its files and its records', what: 'checkpoint' as const },
			{ label: 'A session', description: 'its records, its checkpoints and their files', what: 'session' as const },
			{ label: 'Everything shared since…', description: 'every record and checkpoint this machine shared since a time', what: 'since' as const },
		],
		{ title: 'Retract Shared Records (1/2)', placeHolder: 'What should this machine take back from the remote?' },
	);
	if (!chosen) {
		return undefined;
	}
	const kind = chosen.what;
	if (kind === 'since') {
		const midnight = new Date();
		midnight.setHours(0, 0, 0, 0);
		const text = await vscode.window.showInputBox({
			title: 'Retract Shared Records (2/2)',
			prompt: 'Take back everything this machine shared since (a date or a date and time)',
			value: midnight.toISOString().slice(0, 16),
			validateInput: (v) => (Number.isNaN(Date.parse(v)) ? 'a date (2026-11-28) or a date and time (2026-11-28T09:00)' : undefined),
		});
		if (text === undefined) {
			return undefined;
		}
		return {
			request: { since: new Date(Date.parse(text)).toISOString() },
			what: `everything this machine shared since ${new Date(Date.parse(text)).toLocaleString()}`,
		};
	} else {
		const own = await workspace.request(syncRetractable, undefined);
		const items =
			kind === 'checkpoint'
				? own.checkpoints.map((c) => ({ label: escapeControls(c.message ?? c.id), description: `${c.id} · ${relativeTime(c.at)}`, id: c.id }))
				: own.sessions.map((x) => ({ label: escapeControls(x.name ?? x.id), description: `${x.id} · ${relativeTime(x.at)}`, id: x.id }));
		if (items.length === 0) {
			void showInformationMessage(`This machine has shared no ${kind} that can be taken back.`);
			return undefined;
		}
		const picked = await showQuickPick(items, {
			title: 'Retract Shared Records (2/2)',
			placeHolder: `Which ${kind} of this machine’s?`,
			matchOnDescription: true,
		});
		if (!picked) {
			return undefined;
		}
		return kind === 'checkpoint'
			? { request: { checkpoint: picked.id }, what: `the checkpoint “${picked.label}”` }
			: { request: { session: picked.id }, what: `the session “${picked.label}” and its checkpoints` };
	}
}

/** The modal before a retraction: what it does, and what it cannot undo. */
export async function confirmRetraction(what: string): Promise<boolean> {
	const detail = [
		`Baton rewrites its own refs (refs/baton/…) without ${what} and force-pushes them to every remote it shares with. Other machines drop these records on their next pull. This machine keeps them.`,
		'It cannot undo this: a clone that already fetched them keeps a copy until it pulls again, and the remote keeps the objects until its own garbage collection prunes them. If a credential was shared, rotate it.',
	].join('\n\n');
	return (await showWarningMessage(`Take back ${what}?`, { modal: true, detail }, 'Retract')) === 'Retract';
}
