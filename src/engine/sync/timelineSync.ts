/**
 * Timeline sharing (docs/sync.md "Each step's files"): with `sync enable --timeline`, the files each
 * of this machine's agent and human steps changed travel on a ref of their own,
 * `refs/baton/timeline/<machine>`, so a teammate's Replay shows the step's diff and can revert it in
 * their own workspace. A step's record (`timeline.step`, in the events ref) already names each file
 * with its blob ids before and after; this ref carries those blobs and nothing else:
 * `<step event id>/<blob id>`, one folder per step, so a retraction drops a step's folder.
 *
 * The file rules are a shared checkpoint's (sharedTrees.ts `screen`): only paths the user's git
 * tracks (or would add, when every enabled remote allows untracked files), each blob scanned for
 * credentials; a blob that fails is left out and reported with its step. A blob this store no longer
 * holds (the timeline retention pruned it) is not sent. A teammate's store then holds the step's
 * blobs, which is all the Replay's diff, file view and revert read (timelineService.ts); a step
 * whose blobs did not all travel says its diff is gone, as a pruned one does.
 *
 * What was exported is kept in `.baton/sync/timeline.json`: the ref's tip and the highest event
 * rowid written onto it. A tip other than the one recorded (a lost write, a ref reset by hand) starts
 * again from the first step: the same blobs under the same names make the same tree.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { ShadowRepo } from '../shadow/shadowRepo';
import type { EngineContext } from '../context';
import { atomicWriteFile } from '../storage/fsUtil';
import { missingObjects } from '../timeline/timelineRetention';
import { stepKind, type TimelineFile } from '../timeline/timelineShapes';
import { mkdirPrivate } from '../workspace';
import type { EventRefs } from './eventRefs';
import { fastImportArgs } from './eventRefs';
import { screenKey, type SharedTrees, type ShareRules } from './sharedTrees';
import type { LeftOutFile } from './syncShapes';
import { syncDir } from './syncState';

const timelineRefPrefix = 'refs/baton/timeline/';

/** Steps read per round of an export (a first share of a long history is not held in memory at once). */
const stepsPerRound = 2_000;

const cacheSchema = z.object({ tip: z.string().nullable(), rowid: z.number().int().nonnegative() });
type ShippedMark = z.infer<typeof cacheSchema>;

interface StepRow {
	rowid: number;
	id: string;
	sessionId: string | null;
	body: string;
}

export class TimelineSync {
	readonly ref: string;

	constructor(
		private readonly ctx: EngineContext,
		private readonly shadow: ShadowRepo,
		private readonly refs: EventRefs,
	) {
		this.ref = `${timelineRefPrefix}${refs.machine}`;
	}

	private get markFile(): string {
		return path.join(syncDir(this.ctx.workspaceRoot), 'timeline.json');
	}

	private readMark(tip: string | null): number {
		try {
			const parsed = cacheSchema.safeParse(JSON.parse(fs.readFileSync(this.markFile, 'utf8')));
			return parsed.success && parsed.data.tip === tip ? parsed.data.rowid : 0;
		} catch {
			return 0;
		}
	}

	private writeMark(mark: ShippedMark): void {
		mkdirPrivate(path.dirname(this.markFile));
		atomicWriteFile(this.markFile, Buffer.from(JSON.stringify(mark)));
	}

	/**
	 * Writes the blobs of this machine's steps recorded since the last export onto its timeline ref
	 * (needs the shadow lock). `retracted`: event ids taken back, never written. Returns the steps
	 * written and the files left out.
	 */
	async export(trees: SharedTrees, rules: ShareRules, retracted: ReadonlySet<string>, nowMs: number): Promise<{ steps: number; leftOut: LeftOutFile[] }> {
		const tip = await this.refs.tip(this.ref);
		let mark = this.readMark(tip);
		let current = tip;
		let written = 0;
		const leftOut: LeftOutFile[] = [];
		for (;;) {
			const rows = await this.ctx.store.read((db) =>
				db.all<StepRow>(
					sql`SELECT rowid, id, session_id AS "sessionId", body_json AS body FROM shared_events WHERE kind = ${stepKind} AND source = 'local' AND machine = ${this.refs.machine} AND rowid > ${mark} ORDER BY rowid LIMIT ${stepsPerRound}`,
				),
			);
			if (rows.length === 0) {
				break;
			}
			const wanted: { event: string; session: string; step: number; path: string; oid: string }[] = [];
			for (const row of rows) {
				if (retracted.has(row.id)) {
					continue;
				}
				const body = parseStep(row.body);
				for (const file of body?.files ?? []) {
					for (const oid of [file.blobBefore, file.blobAfter]) {
						if (oid && /^[0-9a-f]{40,64}$/.test(oid)) {
							wanted.push({ event: row.id, session: row.sessionId ?? '', step: body?.step ?? 0, path: file.path, oid });
						}
					}
				}
			}
			const missing = await missingObjects(this.shadow, [...new Set(wanted.map((w) => w.oid))]);
			const held = wanted.filter((w) => !missing.has(w.oid));
			const verdicts = await trees.screen(held, rules);
			const kept: typeof held = [];
			const reported = new Set<string>();
			for (const w of held) {
				const why = verdicts.get(screenKey(w));
				if (why === undefined) {
					kept.push(w);
				} else if (why !== 'untracked' && why !== 'ignored' && !reported.has(`${w.event}\0${w.path}`)) {
					reported.add(`${w.event}\0${w.path}`);
					leftOut.push({ step: { sessionId: w.session, step: w.step }, path: w.path, reason: why });
				}
			}
			if (kept.length > 0) {
				const message = `baton timeline: ${new Set(kept.map((k) => k.event)).size} step(s)\n`;
				const lines = [
					`commit ${this.ref}\ncommitter Baton <baton@localhost> ${Math.floor(nowMs / 1000)} +0000\ndata ${Buffer.byteLength(message)}\n${message}`,
					...(current ? [`from ${current}\n`] : []),
				];
				for (const k of new Map(kept.map((k) => [`${k.event}/${k.oid}`, k])).keys()) {
					lines.push(`M 100644 ${k.slice(k.indexOf('/') + 1)} ${k}\n`);
				}
				lines.push('\ndone\n');
				await this.shadow.git(fastImportArgs, { input: Buffer.from(lines.join('')), timeoutMs: 120_000 });
				current = await this.refs.tip(this.ref);
				written += new Set(kept.map((k) => k.event)).size;
			}
			mark = (rows.at(-1) as StepRow).rowid;
			this.writeMark({ tip: current, rowid: mark });
		}
		return { steps: written, leftOut };
	}

	/**
	 * Takes the steps of `events` out of the ref (a retraction): one parentless commit of what
	 * remains, so no commit of the ref reaches their blobs any more. Needs the shadow lock. Returns
	 * whether the ref held any of them.
	 */
	async drop(events: ReadonlySet<string>, nowMs: number): Promise<boolean> {
		const from = await this.refs.tip(this.ref);
		if (!from || events.size === 0) {
			return false;
		}
		const listed = (await this.shadow.git(['ls-tree', '-z', '--name-only', from])).stdout.toString('utf8').split('\0');
		const held = listed.filter((name) => events.has(name));
		if (held.length === 0) {
			return false;
		}
		const tree = (await this.shadow.gitText(['rev-parse', `${from}^{tree}`])).trim();
		const message = `baton timeline (${held.length} step(s) taken back)\n`;
		const stream = [
			`commit ${this.ref}\ncommitter Baton <baton@localhost> ${Math.floor(nowMs / 1000)} +0000\ndata ${Buffer.byteLength(message)}\n${message}M 040000 ${tree} ""\n`,
			...held.map((s) => `D ${s}\n`),
			'\ndone\n',
		].join('');
		await this.shadow.git(['update-ref', '-d', this.ref]);
		await this.shadow.git(fastImportArgs, { input: Buffer.from(stream), timeoutMs: 120_000 });
		this.writeMark({ tip: await this.refs.tip(this.ref), rowid: this.readMark(from) });
		return true;
	}
}

/** A stored step body's files, or null when it cannot be read (an export skips it). */
function parseStep(text: string): { step: number; files: Pick<TimelineFile, 'path' | 'blobBefore' | 'blobAfter'>[] } | null {
	try {
		const body = JSON.parse(text) as { step?: unknown; files?: unknown };
		const files = Array.isArray(body.files)
			? body.files.filter((f): f is TimelineFile => !!f && typeof f === 'object' && typeof (f as TimelineFile).path === 'string')
			: [];
		return { step: typeof body.step === 'number' ? body.step : 0, files };
	} catch {
		return null;
	}
}
