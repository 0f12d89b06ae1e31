/** What a pull reports (`baton sync pull`), summed over the remotes it pulled from. */
import type { Logger } from '../ports';
import type { RecordCounts } from './recordProjection';
import type { TeammateOpinion } from './authority';
import { pushAll } from '../arrays';

export interface PullResult {
	fetched: number;
	newEvents: number;
	sessions: { added: number; updated: number };
	checkpoints: { added: number; updated: number };
	records: RecordCounts;
	/** Teammates' transcripts imported into this machine's archive. */
	transcripts: number;
	refused: { id: string; reason: string }[];
	/** Teammates' decisions about this machine's checkpoints: kept and shown, never applied (docs/sync.md, "Who decides"). */
	opinions: TeammateOpinion[];
	/** Teammates' records dropped because their machine took them back (`sync retract`); absent when none. */
	retracted?: number;
}

export function emptyPull(): PullResult {
	return {
		fetched: 0,
		newEvents: 0,
		sessions: { added: 0, updated: 0 },
		checkpoints: { added: 0, updated: 0 },
		records: { decisions: 0, checkpointLabels: 0, memory: 0, tasks: 0, imports: 0 },
		transcripts: 0,
		refused: [],
		opinions: [],
	};
}

export function addPull(total: PullResult, one: PullResult): void {
	total.fetched += one.fetched;
	total.newEvents += one.newEvents;
	total.sessions.added += one.sessions.added;
	total.sessions.updated += one.sessions.updated;
	total.checkpoints.added += one.checkpoints.added;
	total.checkpoints.updated += one.checkpoints.updated;
	for (const key of Object.keys(total.records) as (keyof RecordCounts)[]) {
		total.records[key] += one.records[key];
	}
	total.transcripts += one.transcripts;
	pushAll(total.refused, one.refused);
	pushAll(total.opinions, one.opinions);
	if (one.retracted) {
		total.retracted = (total.retracted ?? 0) + one.retracted;
	}
}

/** One warning for what a pull from `remote` refused (whole refs by their name, lines and events), the first three named. */
export function warnRefused(log: Logger, remote: string, refused: readonly { id: string; reason: string }[]): void {
	if (refused.length === 0) {
		return;
	}
	const refs = refused.filter((r) => r.id.startsWith('refs/') && !r.id.includes(':')).length;
	const lines = refused.length - refs;
	const counts = [lines > 0 ? `${lines} line${lines === 1 ? '' : 's'}` : '', refs > 0 ? `${refs} ref${refs === 1 ? '' : 's'}` : '']
		.filter(Boolean)
		.join(' and ');
	const shown = refused.slice(0, 3).map((r) => `${r.id} (${r.reason})`);
	log.warn(`sync: refused ${counts} pulled from remote "${remote}" that are no valid event: ${shown.join('; ')}${refused.length > 3 ? '; …' : ''}`);
}
