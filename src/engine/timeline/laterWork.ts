/**
 * What a session did after `since` (its handoff), from its timeline: the prompts it was given and
 * the files its agent steps changed. A headless agent ends its session after every run (Claude Code's
 * `-p` fires SessionEnd each time), so the handoff — written once, at the first end — describes the
 * first run; a resumed run's work reaches the next briefing through this, computed when the briefing
 * is (docs/replay.md "Resumed sessions").
 */
import { sql } from 'drizzle-orm';
import type { BatonDb } from '../storage/journalStore';
import { promptKind, stepKind } from './timelineShapes';

interface LaterWork {
	requests: number;
	lastRequest: string | null;
	files: string[];
	lastAt: string;
}

export function laterWork(db: BatonDb, sessionId: string, since: string): LaterWork | null {
	const rows = db.all<{ kind: string; at: string; body: string }>(
		sql`SELECT kind, at, body_json AS body FROM shared_events WHERE session_id = ${sessionId} AND kind IN (${promptKind}, ${stepKind}) AND at > ${since} ORDER BY at, rowid`,
	);
	if (rows.length === 0) {
		return null;
	}
	let requests = 0;
	let lastRequest: string | null = null;
	const files = new Set<string>();
	for (const row of rows) {
		let body: Record<string, unknown>;
		try {
			body = JSON.parse(row.body) as Record<string, unknown>;
		} catch {
			continue;
		}
		if (row.kind === promptKind) {
			requests++;
			lastRequest = typeof body['text'] === 'string' ? body['text'] : lastRequest;
		} else if (body['actor'] === 'agent' && Array.isArray(body['files'])) {
			for (const f of body['files'] as { path?: unknown }[]) {
				if (typeof f?.path === 'string') {
					files.add(f.path);
				}
			}
		}
	}
	if (requests === 0 && files.size === 0) {
		return null;
	}
	return { requests, lastRequest, files: [...files], lastAt: (rows.at(-1) as { at: string }).at };
}
