/**
 * The `issue_links` table: which sessions concern which issues, and where each link came from.
 * Functions here run inside a store transaction and do no I/O beyond it.
 */
import { and, asc, eq } from 'drizzle-orm';
import { audit } from '../audit';
import type { BatonDb } from '../storage/journalStore';
import type { IssueLink } from '../storage/model';
import { issueLinks } from '../storage/schema';
import type { IssueRef, LinkSource } from './trackerTypes';

/** What `baton issue list` prints for each link. */
export type IssueLinkView = Omit<IssueLink, 'createdAt' | 'updatedAt'>;

export function toLinkView(link: IssueLink): IssueLinkView {
	return {
		sessionId: link.sessionId,
		tracker: link.tracker,
		issueId: link.issueId,
		url: link.url,
		title: link.title,
		state: link.state,
		source: link.source,
	};
}

export function listLinks(db: BatonDb, filter: { sessionId?: string } = {}): IssueLink[] {
	return db
		.select()
		.from(issueLinks)
		.where(filter.sessionId ? eq(issueLinks.sessionId, filter.sessionId) : undefined)
		.orderBy(asc(issueLinks.sessionId), asc(issueLinks.createdAt), asc(issueLinks.tracker), asc(issueLinks.issueId))
		.all();
}

/** Adds the links a session does not have yet; returns the new ones (an audit entry each). */
export function addLinks(db: BatonDb, input: { sessionId: string; refs: readonly IssueRef[]; source: LinkSource; now: string; actor: string }): IssueLink[] {
	const existing = new Set(listLinks(db, { sessionId: input.sessionId }).map((l) => `${l.tracker}:${l.issueId}`));
	const added: IssueLink[] = [];
	for (const ref of input.refs) {
		const key = `${ref.tracker}:${ref.issueId}`;
		if (existing.has(key)) {
			continue;
		}
		existing.add(key);
		const row: IssueLink = {
			sessionId: input.sessionId,
			tracker: ref.tracker,
			issueId: ref.issueId,
			url: ref.url,
			title: null,
			state: null,
			source: input.source,
			createdAt: input.now,
			updatedAt: input.now,
		};
		db.insert(issueLinks).values(row).run();
		audit(db, {
			at: input.now,
			actor: input.actor,
			operation: 'issue.link',
			sessionId: input.sessionId,
			entityType: 'issue',
			entityId: key,
			details: { source: input.source },
		});
		added.push(row);
	}
	return added;
}

export function removeLink(db: BatonDb, input: { sessionId: string; tracker: string; issueId: string; now: string; actor: string }): boolean {
	const where = and(eq(issueLinks.sessionId, input.sessionId), eq(issueLinks.tracker, input.tracker), eq(issueLinks.issueId, input.issueId));
	if (!db.select().from(issueLinks).where(where).get()) {
		return false;
	}
	db.delete(issueLinks).where(where).run();
	audit(db, {
		at: input.now,
		actor: input.actor,
		operation: 'issue.unlink',
		sessionId: input.sessionId,
		entityType: 'issue',
		entityId: `${input.tracker}:${input.issueId}`,
	});
	return true;
}

/** What the tracker said about an issue, on every session that links it. */
export function refreshLinkInfo(
	db: BatonDb,
	tracker: string,
	issueId: string,
	info: { url: string | null; title: string | null; state: string | null },
	now: string,
): void {
	const set = {
		...(info.url ? { url: info.url } : {}),
		...(info.title !== null ? { title: info.title } : {}),
		...(info.state !== null ? { state: info.state } : {}),
		updatedAt: now,
	};
	db.update(issueLinks)
		.set(set)
		.where(and(eq(issueLinks.tracker, tracker), eq(issueLinks.issueId, issueId)))
		.run();
}
