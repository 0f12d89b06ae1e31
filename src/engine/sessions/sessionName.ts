/**
 * What a session is called. A person names it (start, rename); a session an agent's hook started is
 * first called after its agent (`Claude Code session 6f1c2a9e`, all a hook knows at SessionStart) and
 * then, at its first prompt, after what it is doing: two agents' sessions then no longer read alike.
 * The agent and its own id stay in the row's description and hover. A rename is a `session.renamed`
 * domain event, so sync carries it to teammates (projection.ts takes the last one).
 */
import { and, eq } from 'drizzle-orm';
import type { EngineContext } from '../context';
import { BatonError } from '../errors';
import { agentLabel, isAgentKind, type AgentKind } from '../agentKinds';
import type { BatonDb } from '../storage/journalStore';
import type { Session } from '../storage/model';
import { sessions } from '../storage/schema';
import { withoutNul } from '../text/controlChars';
import { auditSession } from './sessionRows';
import { getSession, runsHere } from './sessionQueries';

const sessionNameLimit = 200;
/** A name from a prompt is a row's title, not the prompt: the tree shows about this much. */
const promptNameLimit = 60;

/** The trimmed name, or a refusal that says what a name may be. */
export function checkedSessionName(raw: string): string {
	const name = withoutNul(raw).trim();
	if (!name || name.length > sessionNameLimit) {
		throw new BatonError('invalidInput', `a session needs a name of 1 to ${sessionNameLimit} characters`);
	}
	return name;
}

/** The name a hook gives the session it starts, before the agent has said what it is doing. */
export function placeholderName(agent: AgentKind, agentSessionId: string): string {
	return `${agentLabel(agent)} session ${agentSessionId.slice(0, 8)}`;
}

/** Whether a session still has the name its hook gave it (so its first prompt may name it). */
export function hasPlaceholderName(session: Pick<Session, 'name' | 'agent'>): boolean {
	if (!session.agent || !isAgentKind(session.agent)) return false;
	const prefix = `${agentLabel(session.agent)} session `;
	return session.name.startsWith(prefix) && /^\S{1,8}$/.test(session.name.slice(prefix.length));
}

/**
 * A row's name from a prompt: its first line with words in it, whitespace folded, cut at a word
 * boundary with an ellipsis past 60 characters. Null when the prompt has no words (a bare slash
 * command such as `/compact` names nothing).
 */
export function nameFromPrompt(prompt: string): string | null {
	const line = withoutNul(prompt)
		.split(/\r?\n/)
		.map((l) => l.replace(/\s+/g, ' ').trim())
		.find((l) => /[\p{L}\p{N}]/u.test(l) && !/^\/\S+$/.test(l));
	if (!line) return null;
	if (line.length <= promptNameLimit) return line;
	const cut = line.slice(0, promptNameLimit - 1);
	const space = cut.lastIndexOf(' ');
	return `${(space > promptNameLimit / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * Renames a session inside the caller's write: audited, and told as `session.renamed` (which sync
 * shares). A session that runs on another machine is renamed there: its name here follows that
 * machine's events. Returns the row as it now is (unchanged when the name already was this).
 */
export function renameRow(ctx: EngineContext, db: BatonDb, id: string, name: string, actor: string): Session {
	const session = getSession(db, id);
	if (session.name === name) return session;
	if (
		!db
			.select({ id: sessions.id })
			.from(sessions)
			.where(and(eq(sessions.id, id), runsHere))
			.get()
	) {
		throw new BatonError('invalidInput', `session ${id} ("${session.name}") runs on another machine; rename it there`);
	}
	const now = ctx.nowIso();
	db.update(sessions).set({ name, updatedAt: now }).where(eq(sessions.id, id)).run();
	auditSession(db, now, actor, 'session.rename', id, { from: session.name, to: name });
	const renamed = getSession(db, id);
	ctx.events.emit(db, { type: 'session.renamed', session: renamed, previousName: session.name, actor });
	return renamed;
}
