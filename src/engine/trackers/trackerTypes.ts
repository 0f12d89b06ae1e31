/**
 * One interface for every issue tracker (after Parhelia's `IssueTrackerAdapter`):
 * get an issue, change its status, comment, create one, and link a checkpoint to it.
 * Adapters do network or file I/O and are called only outside write transactions (the outbox's
 * deliverer, `baton issue show|sync`), never from a domain-event subscriber.
 */
import type { TrackerName } from '../config';

/** Baton's three statuses; each adapter maps them onto its tracker's own. */
export type IssueStatus = 'open' | 'in_progress' | 'closed';

export interface TrackerIssue {
	tracker: TrackerName;
	/** The id as Baton stores it (see `issue_links.issue_id`). */
	id: string;
	url: string | null;
	title: string | null;
	/** The tracker's own state name (`open`, `closed`, `In Progress`, `in_progress`, …). */
	state: string | null;
}

export interface NewIssue {
	title: string;
	body: string;
	labels?: string[];
	/** Beads' `issue_type`; ignored where the tracker has no types. */
	type?: 'bug' | 'task';
}

/** What a checkpoint comment says: enough to find the checkpoint and judge it without opening Baton. */
export interface CheckpointNote {
	checkpointId: string;
	sessionId: string | null;
	sessionName: string | null;
	trigger: string;
	approvalStatus: string;
	message: string | null;
	createdAt: string;
	files: { added: number; modified: number; deleted: number };
	escalationReasons: string[];
}

export interface TrackerAdapter {
	readonly tracker: TrackerName;
	getIssue(id: string): Promise<TrackerIssue>;
	updateStatus(id: string, status: IssueStatus): Promise<TrackerIssue>;
	comment(id: string, body: string): Promise<void>;
	createIssue(input: NewIssue): Promise<TrackerIssue>;
	/** Tells the issue a checkpoint concerns it (a comment, or a webhook event). */
	linkCheckpoint(id: string, note: CheckpointNote): Promise<void>;
}

/** Where a link came from (`issue_links.source`). */
export type LinkSource = 'name' | 'branch' | 'prompt' | 'manual' | 'created';

/** A reference found in text or typed by a person, before it is stored. */
export interface IssueRef {
	tracker: TrackerName;
	issueId: string;
	url: string | null;
}
