/**
 * What a session leaves in project memory when it ends, extracted deterministically (no language
 * model), each fact carrying the session it came from:
 *
 * - its **decisions** become knowledge (`source: decision`), with their rationale ("… — why: …"),
 *   so the next agent does not undo them. **Assumptions stay out**: an assumption is one session's
 *   unverified belief, and memory that outlives sessions must not turn it into a fact; it stays in
 *   the session's decision log and handoff, where it is labelled as what it is;
 * - its handoff's **open blockers** become gotchas (`source: handoff`);
 * - from its agents' transcripts, a tool error on a file that the same tool then got right on the
 *   same file becomes a gotcha `<file>: <error's first line>` (`source: transcript`) — only for
 *   errors about the project, never the agent's own mechanics (toolFailures.ts).
 *
 * Paths a decision or blocker names (`src/app.ts`) that exist in the workspace become the fact's
 * files, so a later change to them marks the fact stale.
 */
import path from 'node:path';
import { and, asc, eq } from 'drizzle-orm';
import type { EngineContext } from '../context';
import type { HandoffData } from '../storage/jsonShapes';
import type { BatonDb } from '../storage/journalStore';
import type { Session } from '../storage/model';
import { decisions } from '../storage/schema';
import { pathsMentionedIn } from './factFiles';
import { maxFactLength, recordFact, type RecordFactInput } from './memoryRecords';
import type { ToolFailure } from './toolFailures';

interface ExtractedFact {
	kind: RecordFactInput['kind'];
	text: string;
	files: string[];
	source: 'decision' | 'handoff' | 'transcript';
}

/** The facts of a session's records (decisions, handoff blockers). */
export function recordFacts(ctx: EngineContext, db: BatonDb, session: Session, handoff: HandoffData): ExtractedFact[] {
	const root = ctx.workspaceRoot;
	const out: ExtractedFact[] = [];
	const made = db
		.select()
		.from(decisions)
		.where(and(eq(decisions.sessionId, session.id), eq(decisions.kind, 'decision')))
		.orderBy(asc(decisions.createdAt))
		.all();
	for (const d of made) {
		const text = decisionFactText(d.text, d.rationale);
		out.push({ kind: 'knowledge', text: cut(text), files: pathsMentionedIn(text, root), source: 'decision' });
	}
	for (const blocker of handoff.openBlockers) {
		out.push({ kind: 'gotcha', text: cut(blocker), files: pathsMentionedIn(blocker, root), source: 'handoff' });
	}
	return out;
}

/** The knowledge a decision becomes: its text and, when given, why. */
export function decisionFactText(text: string, rationale: string | null): string {
	return rationale ? `${text} — why: ${rationale}` : text;
}

/** Gotchas from an agent's failed tool calls that a retry on the same file got right. */
export function transcriptFacts(failures: readonly ToolFailure[]): ExtractedFact[] {
	const out: ExtractedFact[] = [];
	for (const f of failures) {
		const file = f.files.length === 1 ? (f.files[0] as string) : null;
		if (!file || f.mechanics || !f.retriedOk || f.reason.length < 10 || path.isAbsolute(file)) {
			continue;
		}
		out.push({ kind: 'gotcha', text: cut(`${file}: ${f.reason}`), files: [file], source: 'transcript' });
	}
	return out;
}

/** Records extracted facts of a session; returns how many were new. */
export function recordExtracted(ctx: EngineContext, db: BatonDb, sessionId: string, facts: readonly ExtractedFact[], actor: string): number {
	let created = 0;
	for (const fact of facts) {
		if (!recordFact(ctx, db, { ...fact, sourceSessionId: sessionId, actor }).duplicate) {
			created++;
		}
	}
	return created;
}

function cut(text: string): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	return flat.length <= maxFactLength ? flat : `${flat.slice(0, maxFactLength - 1)}…`;
}
