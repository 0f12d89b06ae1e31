/**
 * Retention and packing of the replay's trees (docs/replay.md). A session's timeline ref keeps its
 * trees; once the session ended longer ago than `checkpoints.timelineKeep` and is not among the
 * `checkpoints.timelineKeepSessions` most recently active sessions with a timeline, the ref goes,
 * and so do the session's kept packs of step blobs (timelinePacks.ts).
 * The steps' records (files, counts, summaries) stay in the database; only the trees and blobs go, and the
 * replay says so (a tree a checkpoint shares stays, and so does that step's diff). Then a full
 * repack under the store's lock packs what the captures left loose (each loose object takes a file
 * of its own on disk) with deltas against everything else, and drops the pruned trees.
 */
import fs from 'node:fs';
import path from 'node:path';
import { inArray } from 'drizzle-orm';
import type { ShadowRepo } from '../shadow/shadowRepo';
import type { EngineContext } from '../context';
import { batchCheck } from '../git/objectReader';
import { isoTime } from '../ids';
import { sessions } from '../storage/schema';
import { batonDir, mkdirPrivate, privateFileMode } from '../workspace';
import { timelineRef } from './treeCapture';
import { flushKeyframes } from './timelineKeyframes';
import { releaseSessionPacks } from './timelinePacks';

interface TimelineMaintenance {
	/** Sessions whose trees were (or, in a dry run, would be) pruned. */
	pruned: { sessionId: string; endedAt: string }[];
	kept: number;
	packed: boolean;
	looseObjects: number;
	dryRun: boolean;
}

/** Loose objects past which the store is repacked even when nothing was pruned. */
const looseObjectLimit = 1_000;

function prunedFile(workspaceRoot: string): string {
	return path.join(batonDir(workspaceRoot), 'timeline', 'pruned.json');
}

/** When each session's trees were pruned here (local bookkeeping, never shared). */
export function readPruned(workspaceRoot: string): Record<string, string> {
	try {
		const parsed = JSON.parse(fs.readFileSync(prunedFile(workspaceRoot), 'utf8')) as unknown;
		return parsed && typeof parsed === 'object'
			? Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'))
			: {};
	} catch {
		return {};
	}
}

function writePruned(workspaceRoot: string, pruned: Record<string, string>): void {
	const file = prunedFile(workspaceRoot);
	mkdirPrivate(path.dirname(file));
	const temp = `${file}.${process.pid}.tmp`;
	fs.writeFileSync(temp, `${JSON.stringify(pruned, null, '\t')}\n`, { mode: privateFileMode });
	fs.renameSync(temp, file);
}

async function looseCount(shadow: ShadowRepo): Promise<number> {
	return Number(/^count: (\d+)$/m.exec(await shadow.gitText(['count-objects', '-v']))?.[1] ?? 0);
}

/** Prunes the trees of sessions past the retention, then packs the store when that freed something or many objects are loose. */
export async function maintainTimeline(
	ctx: EngineContext,
	shadow: ShadowRepo,
	options: { dryRun?: boolean; forcePack?: boolean } = {},
): Promise<TimelineMaintenance> {
	const dryRun = options.dryRun ?? false;
	if (!shadow.exists()) {
		return { pruned: [], kept: 0, packed: false, looseObjects: 0, dryRun };
	}
	shadow.ensureEmptyConfig();
	const refs = (await shadow.gitText(['for-each-ref', '--format=%(refname)', 'refs/baton/timeline/'])).split('\n').filter(Boolean);
	const ids = refs.map((r) => r.slice('refs/baton/timeline/'.length));
	const rows = ids.length
		? await ctx.store.read((db) =>
				db
					.select({ id: sessions.id, status: sessions.status, endedAt: sessions.endedAt, lastActivity: sessions.lastActivity })
					.from(sessions)
					.where(inArray(sessions.id, ids))
					.all(),
			)
		: [];
	const { timelineKeep, timelineKeepSessions } = ctx.config.checkpoints;
	const now = ctx.clock.now();
	// The most recently active sessions stay whatever their age; so does any session not ended (or unknown here).
	const recent = new Set(
		[...rows]
			.sort((a, b) => (a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : 0))
			.slice(0, timelineKeepSessions)
			.map((r) => r.id),
	);
	const due = rows.filter(
		(r) =>
			!recent.has(r.id) &&
			(r.status === 'ended' || r.status === 'archived' || r.status === 'closed') &&
			r.endedAt !== null &&
			now - Date.parse(r.endedAt) >= timelineKeep,
	);
	const pruned = due.map((r) => ({ sessionId: r.id, endedAt: r.endedAt as string }));
	let looseObjects = await looseCount(shadow);
	const pack = pruned.length > 0 || looseObjects >= looseObjectLimit || options.forcePack === true;
	if (dryRun || !pack) {
		return { pruned, kept: refs.length - pruned.length, packed: false, looseObjects, dryRun };
	}
	// A full repack drops packed objects nothing reaches: no capture or snapshot may write meanwhile.
	await shadow.withMaintenanceLock(() =>
		shadow.withLock(async () => {
			// Blobs of steps since their session's last keyframe are kept by no ref yet: give them one first.
			await flushKeyframes(shadow, ctx.workspaceRoot, now, new Set(pruned.map((p) => p.sessionId)));
			if (pruned.length) {
				// Pack what the refs still reach first: the full repack below then drops the pruned objects from the pack, whatever their age.
				await shadow.git(['repack', '-d', '-q'], { timeoutMs: 30 * 60_000 });
				const marks = readPruned(ctx.workspaceRoot);
				for (const p of pruned) {
					await shadow.git(['update-ref', '-d', timelineRef(p.sessionId)]);
					// Its packs lose their mark: the full repack below keeps what anything else reaches and deletes them.
					releaseSessionPacks(shadow, p.sessionId);
					marks[p.sessionId] = isoTime(now);
				}
				writePruned(ctx.workspaceRoot, marks);
			}
			await shadow.git(['repack', '-a', '-d', '-q'], { timeoutMs: 30 * 60_000 });
			// Loose objects nothing reaches (trees of pruned steps never packed); young ones may belong to a write in flight elsewhere.
			await shadow.git(['prune', '--expire=1.hour.ago'], { timeoutMs: 10 * 60_000 });
		}),
	);
	looseObjects = await looseCount(shadow);
	return { pruned, kept: refs.length - pruned.length, packed: true, looseObjects, dryRun };
}

/** Which of `shas` the store does not hold (one `cat-file --batch-check` for all). */
export async function missingObjects(shadow: ShadowRepo, shas: readonly string[]): Promise<Set<string>> {
	const unique = [...new Set(shas)];
	if (unique.length === 0 || !shadow.exists()) {
		return new Set(unique);
	}
	shadow.ensureEmptyConfig();
	const found = await batchCheck(async (args, input) => (await shadow.git(args, input !== undefined ? { input } : {})).stdout, unique);
	return new Set(unique.filter((_, i) => !found[i]));
}
