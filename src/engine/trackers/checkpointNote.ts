/**
 * What Baton says on an issue about a checkpoint: a short markdown comment any tracker renders, and
 * the note's plain data (the webhook adapter sends that instead).
 */
import type { Checkpoint, Session } from '../storage/model';
import type { CheckpointNote } from './trackerTypes';
import { escapeControls } from '../text/controlChars';

export function checkpointNoteOf(checkpoint: Checkpoint, session: Pick<Session, 'id' | 'name'> | null): CheckpointNote {
	return {
		checkpointId: checkpoint.id,
		sessionId: checkpoint.sessionId,
		sessionName: session?.name ?? null,
		trigger: checkpoint.trigger,
		approvalStatus: checkpoint.approvalStatus,
		message: checkpoint.message,
		createdAt: checkpoint.createdAt,
		files: { added: checkpoint.fileStats.added, modified: checkpoint.fileStats.modified, deleted: checkpoint.fileStats.deleted },
		escalationReasons: checkpoint.escalationReasons,
	};
}

export function renderCheckpointNote(note: CheckpointNote): string {
	const approval = note.approvalStatus.replace('_', '-');
	const lines = [
		`**Baton checkpoint** \`${note.checkpointId}\` (${note.trigger}, ${approval})`,
		'',
		`- Session: ${note.sessionName ? `${note.sessionName} ` : ''}${note.sessionId ? `\`${note.sessionId}\`` : '(none)'}`,
		`- Files: +${note.files.added} ~${note.files.modified} -${note.files.deleted}`,
		`- Taken: ${note.createdAt}`,
	];
	if (note.message) {
		lines.push(`- Message: ${oneLine(note.message)}`);
	}
	for (const reason of note.escalationReasons) {
		lines.push(`- Escalated: ${oneLine(reason)}`);
	}
	lines.push('', `Review or roll back with \`baton checkpoint show ${note.checkpointId}\`.`);
	return escapeControls(lines.join('\n'));
}

/** The body of an issue Baton opens on an error or an escalation. */
export function renderOpenedIssue(note: CheckpointNote, why: string): { title: string; body: string } {
	const subject = note.sessionName ?? note.sessionId ?? note.checkpointId;
	return { title: escapeControls(`Baton: ${why} in ${oneLine(subject).slice(0, 120)}`), body: `${why}.\n\n${renderCheckpointNote(note)}` };
}

function oneLine(text: string): string {
	return text.replace(/\s+/g, ' ').trim().slice(0, 500);
}
