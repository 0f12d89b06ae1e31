/** What a pull reports (`baton sync pull`), summed over the remotes it pulled from. */
import type { RecordCounts } from './recordProjection';
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
}

export function emptyPull(): PullResult {
	return { fetched: 0, newEvents: 0, sessions: { added: 0, updated: 0 }, checkpoints: { added: 0, updated: 0 }, records: { decisions: 0, checkpointLabels: 0, memory: 0, tasks: 0, imports: 0 }, transcripts: 0, refused: [] };
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
	pushAll(total.refused, [...one.refused]);
}
