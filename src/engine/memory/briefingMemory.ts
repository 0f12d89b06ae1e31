/**
 * The memory section of a briefing: the facts a session starting in a scope should know first.
 *
 * Order (memoryRecords.compareFacts): gotchas before knowledge (a trap costs more than a missing
 * fact); then facts *relevant* here — about a file the current task names (its title or
 * description mentions the path or the file's name), or learned in a session of the same scope —
 * then fresh before stale, most confirmed, most recently confirmed. Retired facts never appear;
 * stale ones do, with their mark and reason. At most `briefingMemory` facts are listed and `total`
 * counts them all, so whoever shows the list can say how many were left out.
 */
import path from 'node:path';
import { eq, isNull } from 'drizzle-orm';
import type { EngineContext } from '../context';
import type { Briefing } from '../storage/jsonShapes';
import type { BatonDb } from '../storage/journalStore';
import type { MemoryEntry, Task } from '../storage/model';
import { memoryEntries, sessions } from '../storage/schema';
import { compareFacts } from './memoryRecords';

interface BriefingMemoryInput {
	scopeKey: string;
	currentTask: Pick<Task, 'title' | 'description'> | null;
}

export function briefingMemory(ctx: EngineContext, db: BatonDb, input: BriefingMemoryInput): Briefing['memory'] {
	const live = db.select().from(memoryEntries).where(isNull(memoryEntries.retiredAt)).all();
	if (live.length === 0) {
		return { entries: [], total: 0 };
	}
	const inScope = new Set(
		db
			.select({ id: sessions.id })
			.from(sessions)
			.where(eq(sessions.scopeKey, input.scopeKey))
			.all()
			.map((s) => s.id),
	);
	const nameOf = (id: string | null): string | null =>
		id ? (db.select({ name: sessions.name }).from(sessions).where(eq(sessions.id, id)).get()?.name ?? null) : null;
	const taskText = input.currentTask ? `${input.currentTask.title}\n${input.currentTask.description ?? ''}` : '';
	const relevant = (e: MemoryEntry): boolean => (e.sourceSessionId !== null && inScope.has(e.sourceSessionId)) || e.files.some((f) => names(taskText, f));
	return {
		entries: live
			.sort((a, b) => compareFacts(a, b, relevant))
			.slice(0, ctx.config.briefingMemory)
			.map((e) => ({
				id: e.id,
				kind: e.kind,
				text: e.text,
				files: e.files,
				source: e.source,
				sourceSessionId: e.sourceSessionId,
				sourceSessionName: nameOf(e.sourceSessionId),
				confirmations: e.confirmations,
				lastConfirmedAt: e.lastConfirmedAt,
				staleSince: e.staleSince,
				staleReason: e.staleReason,
				relevant: relevant(e),
			})),
		total: live.length,
	};
}

/** Whether `text` names `file`: its path, or its file name as a word (only names with an extension, `app.ts` not `src`). */
function names(text: string, file: string): boolean {
	if (!text) {
		return false;
	}
	if (text.includes(file)) {
		return true;
	}
	const base = path.posix.basename(file);
	if (!/\.\w+$/.test(base)) {
		return false;
	}
	const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	return new RegExp(`(^|[^\\w./-])${escaped}($|[^\\w/-])`).test(text);
}
