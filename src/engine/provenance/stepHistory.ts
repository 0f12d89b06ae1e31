/**
 * What the turn capture says about a file: the `timeline.step` events that touched it, replayed in
 * order over the blobs of their trees in Baton's shadow store, give every line of the file's last
 * captured state an origin — the step that last wrote it. Content that changed between two steps
 * (the step's `treeBefore` differs from the state the previous step left) was changed by a person;
 * content that was there before the first step is `unknown`, and so is everything when a diff is too
 * large to follow exactly (fail closed: never a guess).
 */
import { and, asc, eq, gt, inArray, or } from 'drizzle-orm';
import type { BatonDb } from '../storage/journalStore';
import { sessions, sharedEvents } from '../storage/schema';
import { humanOrigin, unknownOrigin, type LineOrigin } from './attributionRecords';
import { matchLines } from './lineDiff';
import type { KeptBlobs } from './keptBlobs';
import { catBatch, type GitRun } from '../git/objectReader';
import { textLines } from './repoGit';

export interface CapturedStep {
	session: string;
	step: number;
	turn: string | null;
	actor: 'agent' | 'human';
	agent: string | null;
	model: string | null;
	prompt: string | null;
	startedAtMs: number;
	treeBefore: string;
	treeAfter: string;
	paths: Set<string>;
	/**
	 * Per file, the blob ids the record lists (null: absent on that side); a file missing here is read
	 * as `tree:path` (records written before blob ids were recorded).
	 */
	blobs: Map<string, { before: string | null; after: string | null }>;
}

export interface TrackedFile {
	lines: string[];
	origins: LineOrigin[];
}

/** Prompt excerpts stay short: the full text is in the session's timeline. */
const promptExcerptChars = 200;

/**
 * Every captured step of every session, in time order (then the shared order); with `afterId`, only
 * the steps recorded after that event (their prompts are looked up among their sessions' prompts).
 */
export function readSteps(db: BatonDb, afterId?: string): CapturedStep[] {
	const rows = db
		.select()
		.from(sharedEvents)
		.where(afterId === undefined ? eq(sharedEvents.kind, 'timeline.step') : and(eq(sharedEvents.kind, 'timeline.step'), gt(sharedEvents.id, afterId)))
		.orderBy(asc(sharedEvents.id))
		.all();
	const of = [...new Set(rows.map((r) => r.sessionId ?? r.subject))];
	const promptRows =
		afterId === undefined
			? db.select().from(sharedEvents).where(eq(sharedEvents.kind, 'timeline.prompt')).orderBy(asc(sharedEvents.id)).all()
			: of.length === 0
				? []
				: db
						.select()
						.from(sharedEvents)
						.where(and(eq(sharedEvents.kind, 'timeline.prompt'), or(inArray(sharedEvents.sessionId, of), inArray(sharedEvents.subject, of))))
						.orderBy(asc(sharedEvents.id))
						.all();
	const prompts = new Map<string, string>();
	for (const row of promptRows) {
		const turn = turnKey(row.body['turn']);
		const text = row.body['text'];
		const key = `${row.sessionId ?? row.subject}\u0000${turn}`;
		if (turn !== null && typeof text === 'string' && !prompts.has(key)) {
			prompts.set(key, text.length > promptExcerptChars ? `${text.slice(0, promptExcerptChars - 1)}…` : text);
		}
	}
	const sessionIds = [...new Set(rows.map((r) => r.sessionId ?? r.subject))];
	const agents = new Map<string, string | null>();
	for (let i = 0; i < sessionIds.length; i += 500) {
		for (const s of db
			.select({ id: sessions.id, agent: sessions.agent })
			.from(sessions)
			.where(inArray(sessions.id, sessionIds.slice(i, i + 500)))
			.all()) {
			agents.set(s.id, s.agent);
		}
	}
	const steps: CapturedStep[] = [];
	for (const row of rows) {
		const b = row.body;
		const session = row.sessionId ?? row.subject;
		const startedAtMs = typeof b['startedAt'] === 'string' ? Date.parse(b['startedAt']) : NaN;
		if (
			b['captured'] === false ||
			typeof b['treeBefore'] !== 'string' ||
			typeof b['treeAfter'] !== 'string' ||
			!Array.isArray(b['files']) ||
			!Number.isFinite(startedAtMs)
		) {
			continue;
		}
		const paths = new Set((b['files'] as { path?: unknown }[]).map((f) => f?.path).filter((p): p is string => typeof p === 'string'));
		const blobs = b['moreFiles'] ? new Map() : recordedBlobs(b['files'] as unknown[]);
		const turn = turnKey(b['turn']);
		const actor = b['actor'] === 'human' ? 'human' : 'agent';
		const envelopeAgent = row.actor.startsWith('agent:') ? row.actor.slice('agent:'.length) : null;
		steps.push({
			session,
			step: Number.isInteger(b['step']) ? (b['step'] as number) : steps.length + 1,
			turn,
			actor,
			agent: actor === 'agent' ? (typeof b['agent'] === 'string' ? b['agent'] : (agents.get(session) ?? envelopeAgent)) : null,
			model: typeof b['model'] === 'string' ? b['model'] : null,
			prompt: turn !== null ? (prompts.get(`${session}\u0000${turn}`) ?? null) : null,
			startedAtMs,
			treeBefore: b['treeBefore'],
			treeAfter: b['treeAfter'],
			paths,
			blobs,
		});
	}
	// A person's step found at an agent's next tool call carries the same start time: the session's step numbers order them.
	return steps.sort((a, b) => a.startedAtMs - b.startedAtMs || (a.session === b.session ? a.step - b.step : 0));
}

const sha = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{40,64}$/.test(v);

/** The blob ids of a record's files, where the record gives both sides (a side the change says is absent is null). */
function recordedBlobs(files: readonly unknown[]): CapturedStep['blobs'] {
	const out: CapturedStep['blobs'] = new Map();
	for (const raw of files) {
		const f = (raw ?? {}) as Record<string, unknown>;
		const before = f['change'] === 'added' ? null : sha(f['blobBefore']) ? f['blobBefore'] : undefined;
		const after = f['change'] === 'deleted' ? null : sha(f['blobAfter']) ? f['blobAfter'] : undefined;
		if (typeof f['path'] === 'string' && before !== undefined && after !== undefined) {
			out.set(f['path'], { before, after });
		}
	}
	return out;
}

/** What to read for `file` before and after `step`: its blob ids when recorded, else `tree:path`; null: absent. */
export function stepSpecs(step: CapturedStep, file: string): { before: string | null; after: string | null } {
	return step.blobs.get(file) ?? { before: `${step.treeBefore}:${file}`, after: `${step.treeAfter}:${file}` };
}

function turnKey(value: unknown): string | null {
	return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
}

function stepOrigin(step: CapturedStep): LineOrigin {
	if (step.actor === 'human') {
		return { ...humanOrigin, session: step.session, step: step.step, turn: step.turn };
	}
	return {
		origin: 'agent',
		session: step.session,
		agent: step.agent,
		model: step.model,
		turn: step.turn,
		prompt: step.prompt,
		step: step.step,
		recovered: false,
	};
}

/** Reads blobs of the shadow store's trees, each `tree:path` once (and, with `kept`, once across calls). */
export class ShadowBlobs {
	private readonly cache = new Map<string, string[] | null>();

	constructor(
		private readonly run: GitRun,
		private readonly kept?: KeptBlobs,
	) {}

	async prefetch(specs: readonly string[]): Promise<void> {
		const missing: string[] = [];
		for (const spec of new Set(specs)) {
			if (this.cache.has(spec)) {
				continue;
			}
			const kept = this.kept?.get(spec);
			if (kept) {
				this.cache.set(spec, kept);
			} else {
				missing.push(spec);
			}
		}
		const results = await catBatch(this.run, missing, 'blob');
		missing.forEach((spec, i) => {
			const found = results[i];
			this.put(spec, found ? textLines(found.content) : null);
		});
	}

	/** A version read elsewhere (the working tree's copy of a blob, checked against its id). */
	put(spec: string, lines: string[] | null): void {
		this.cache.set(spec, lines);
		if (lines) {
			this.kept?.set(spec, lines);
		}
	}

	/** Whether `spec` is known without a read (this call's or a kept one). */
	has(spec: string): boolean {
		if (this.cache.has(spec)) {
			return true;
		}
		const kept = this.kept?.get(spec);
		if (kept) {
			this.cache.set(spec, kept);
		}
		return !!kept;
	}

	/** undefined: not read yet; null: absent or binary. `spec`: a blob id or `tree:path` (null: absent). */
	get(spec: string | null): string[] | null | undefined {
		return spec === null ? null : this.cache.get(spec);
	}

	/** A prefetched spec as given (a blob id: a commit's version the capture stored too). */
	spec(spec: string): string[] | null | undefined {
		return this.cache.get(spec);
	}
}

/**
 * The file's last captured state among `steps` (already filtered by time), with an origin per line;
 * undefined when no step touched the file, null when the last step deleted it.
 */
export async function trackFile(file: string, steps: readonly CapturedStep[], blobs: ShadowBlobs): Promise<TrackedFile | null | undefined> {
	const touching = steps.filter((s) => s.paths.has(file));
	if (touching.length === 0) {
		return undefined;
	}
	await blobs.prefetch(touching.flatMap((s) => Object.values(stepSpecs(s, file)).filter((v): v is string => v !== null)));
	let state: TrackedFile | null = null;
	let first = true;
	for (const step of touching) {
		const specs = stepSpecs(step, file);
		const before = blobs.get(specs.before) ?? null;
		const after = blobs.get(specs.after) ?? null;
		if (first) {
			state = before ? { lines: before, origins: before.map(() => unknownOrigin) } : null;
			first = false;
		} else if (!sameLines(state?.lines ?? null, before)) {
			// A person (or a tool outside the capture) changed the file between the two steps.
			state = before ? carry(state, before, humanOrigin) : null;
		}
		state = after ? carry(state, after, stepOrigin(step)) : null;
	}
	return state;
}

/** The next version's lines, keeping the origins of lines that survive and giving new ones `fresh`. */
function carry(previous: TrackedFile | null, next: string[], fresh: LineOrigin): TrackedFile {
	if (!previous) {
		return { lines: next, origins: next.map(() => fresh) };
	}
	const { bToA, exact } = matchLines(previous.lines, next);
	const origins = next.map((_, j) => {
		const i = bToA[j]!;
		return i >= 0 ? previous.origins[i]! : exact ? fresh : unknownOrigin;
	});
	return { lines: next, origins };
}

function sameLines(a: readonly string[] | null, b: readonly string[] | null): boolean {
	if (a === null || b === null) {
		return a === b;
	}
	return a.length === b.length && a.every((line, i) => line === b[i]);
}
