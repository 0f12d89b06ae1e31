/**
 * Exports (issue 6, item 2): a session, or the whole chain that contains a session, as readable
 * JSON files in the format the `json-sessions` importer reads (sessionFileFormat.ts), so an export
 * imported into a fresh workspace gives back the same sessions, handoffs, decisions and aliases.
 * Also the markdown views of a handoff and a briefing: rendered from the records, never read back.
 */
import path from 'node:path';
import { and, asc, eq } from 'drizzle-orm';
import type { EngineContext } from '../context';
import { BatonError } from '../errors';
import type { BriefingService } from '../sessions/briefingService';
import { decisionsOfSession } from '../sessions/overview';
import { chainOf, getSession, readHandoff } from '../sessions/sessionQueries';
import type { BatonDb } from '../storage/journalStore';
import type { Session } from '../storage/model';
import { handoffs, sessionAliases } from '../storage/schema';
import { writeExportFolder } from './exportFolder';
import { renderBriefingMarkdown, renderHandoffMarkdown } from './markdownViews';
import { sanitizeName } from './safeNames';
import { indexFormat, prettyJson, sessionFileFormat, type BatonSessionBlock } from './sessionFileFormat';

interface ExportInput {
	/** Exactly one of the two: one session, or the chain that contains this session. */
	sessionId?: string;
	chainId?: string;
	out: string;
}

interface ExportResult {
	out: string;
	/** File names inside `out`, the index first. */
	files: string[];
}

type MarkdownKind = 'handoff' | 'briefing';

export class ExportService {
	constructor(
		private readonly ctx: EngineContext,
		private readonly briefings: BriefingService,
	) {}

	async export(input: ExportInput): Promise<ExportResult> {
		if (!!input.sessionId === !!input.chainId) {
			throw new BatonError('invalidInput', 'export one session (--session ID) or one chain (--chain ID)');
		}
		if (!input.out.trim()) {
			throw new BatonError('invalidInput', 'export needs a folder to write to (--out DIR)');
		}
		const out = path.resolve(input.out);
		const blocks = await this.ctx.store.read((db) => {
			const list = input.chainId ? chainOf(db, input.chainId) : [getSession(db, input.sessionId as string)];
			return list.map((s) => sessionBlock(db, s));
		});
		const width = Math.max(2, String(blocks.length).length);
		const files = new Map<string, string>();
		const entries = blocks.map((block, i) => {
			const s = block.session;
			const name = `${String(i + 1).padStart(width, '0')}-${sanitizeName(s.name, 48)}`;
			const file = `${name}.json`;
			files.set(file, prettyJson({ name, description: s.name, created_at: s.startedAt, updated_at: s.updatedAt, baton: block }));
			return { name, file, id: s.id, description: s.name, status: s.status, created_at: s.startedAt, updated_at: s.updatedAt };
		});
		const index = { format: indexFormat, version: 1, exportedAt: this.ctx.nowIso(), chain: input.chainId ?? null, sessions: entries };
		writeExportFolder(out, files, prettyJson(index));
		return { out, files: ['index.json', ...files.keys()] };
	}

	/** A handoff or a briefing as markdown: a view for people, never read back as state. */
	async markdown(input: { sessionId: string; kind: MarkdownKind }): Promise<{ title: string; markdown: string }> {
		if (input.kind === 'briefing') {
			const briefing = await this.briefings.briefing({ sessionId: input.sessionId });
			const session = await this.briefings.get(input.sessionId);
			return { title: `Briefing — ${session.name}`, markdown: renderBriefingMarkdown(briefing, session) };
		}
		if (input.kind !== 'handoff') {
			throw new BatonError('invalidInput', `unknown markdown view "${String(input.kind)}" (handoff or briefing)`);
		}
		return this.ctx.store.read((db) => {
			const session = getSession(db, input.sessionId);
			const stored = readHandoff(db, session.id);
			const problem = stored.kind === 'malformed' ? stored.problem : null;
			return {
				title: `Handoff — ${session.name}`,
				markdown: renderHandoffMarkdown(session, stored.kind === 'valid' ? stored.data : null, decisionsOfSession(db, session.id), problem, {
					...(session.previousSessionId ? { previous: nameOf(db, session.previousSessionId) } : {}),
					...(session.nextSessionId ? { next: nameOf(db, session.nextSessionId) } : {}),
				}),
			};
		});
	}
}

/** A neighbour's name, when the session is still here (a chain may point at one pulled away or never imported). */
function nameOf(db: BatonDb, id: string): string | undefined {
	try {
		return getSession(db, id).name;
	} catch {
		return undefined;
	}
}

function sessionBlock(db: BatonDb, session: Session): BatonSessionBlock {
	const stored = readHandoff(db, session.id);
	if (stored.kind === 'malformed') {
		throw new BatonError('invalidInput', `the handoff of ${session.id} is damaged (${stored.problem}); Baton does not export a record it cannot read back`);
	}
	const createdAt = db.select({ createdAt: handoffs.createdAt }).from(handoffs).where(eq(handoffs.sessionId, session.id)).get()?.createdAt;
	const aliases = db
		.select()
		.from(sessionAliases)
		.where(and(eq(sessionAliases.sessionId, session.id)))
		.orderBy(asc(sessionAliases.createdAt), asc(sessionAliases.agent), asc(sessionAliases.alias))
		.all()
		.map(({ sessionId: _sessionId, ...alias }) => alias);
	return {
		format: sessionFileFormat,
		version: 1,
		session,
		handoff: stored.kind === 'valid' && createdAt ? { data: stored.data, createdAt } : null,
		decisions: decisionsOfSession(db, session.id),
		aliases,
	};
}
