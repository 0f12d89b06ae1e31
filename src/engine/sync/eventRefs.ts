/**
 * Shared events and checkpoint trees as git objects in Baton's own store (`.baton/shadow.git`, the
 * checkpoint store, so checkpoint trees share their blobs with everything already there).
 *
 * Each machine writes only its own refs, so two machines never write the same name:
 * - `refs/baton/events/<machine>`: a commit chain; each commit adds one file
 *   `batches/<last event id>.jsonl` holding the events of one export, sorted by id. Pulling reads only
 *   the files a fetched commit range added (one `diff-tree` and one `cat-file --batch`).
 * - `refs/baton/checkpoints/<machine>`: a commit chain with an empty tree whose extra parents are the
 *   shared checkpoints' commits: fetching it brings their trees, and only the objects not held yet.
 * Both are written by one `git fast-import`, which writes a pack (no loose objects) and moves the refs
 * only as fast-forwards.
 */
import fs from 'node:fs';
import { sql } from 'drizzle-orm';
import path from 'node:path';
import type { ShadowRepo } from '../checkpoints/shadowRepo';
import { splitNul } from '../checkpoints/gitProcess';
import type { WireEvent } from '../shared/sharedEvents';
import { catBatch } from '../shared/catFileBatch';

export const eventsRefPrefix = 'refs/baton/events/';

/**
 * `git fast-import` keeping its pack whatever its size. By default (`fastimport.unpackLimit`, 100) an
 * import of fewer objects — every export is a handful — is written out again as loose objects, one
 * file each, which also took two thirds of its time (22 → 8 ms for a 1.5 MB batch). The packs this
 * leaves are rolled together by the store's idle maintenance (`checkpoints.maintain`).
 */
export const fastImportArgs = ['-c', 'fastimport.unpackLimit=0', 'fast-import', '--quiet', '--done'];

/**
 * A `shared_events` row as its wire line (toWire's fields, as JSON), built by SQLite: an export of
 * thousands of events spent most of its JS time parsing bodies only to serialise them again.
 */
export const wireLineSql = sql.raw(`json_object('id', id, 'kind', kind, 'subject', subject, 'sessionId', session_id, 'actor', actor, 'machine', machine, 'machineName', machine_name, 'author', author, 'at', at, 'body', json(body_json))`);
export const checkpointsRefPrefix = 'refs/baton/checkpoints/';

export class EventRefs {
	readonly eventsRef: string;
	readonly checkpointsRef: string;

	constructor(
		readonly shadow: ShadowRepo,
		readonly machine: string,
	) {
		this.eventsRef = `${eventsRefPrefix}${machine}`;
		this.checkpointsRef = `${checkpointsRefPrefix}${machine}`;
	}

	/**
	 * Ref lock files a killed git left under `refs/<namespace>/`. Only called while holding the lock
	 * that every writer of that namespace takes, so no live git is using them.
	 */
	clearStaleRefLocks(namespace: 'baton' | 'baton-remotes'): void {
		const walk = (dir: string): void => {
			let entries: fs.Dirent[];
			try {
				entries = fs.readdirSync(dir, { withFileTypes: true });
			} catch {
				return;
			}
			for (const entry of entries) {
				const full = path.join(dir, entry.name);
				if (entry.isDirectory()) {
					walk(full);
				} else if (entry.name.endsWith('.lock')) {
					fs.rmSync(full, { force: true });
				}
			}
		};
		walk(path.join(this.shadow.gitDir, 'refs', namespace));
	}

	/** A ref's oid, read from the ref files (loose, then packed-refs): no git process per lookup. */
	async tip(ref: string): Promise<string | null> {
		try {
			const loose = fs.readFileSync(path.join(this.shadow.gitDir, ...ref.split('/')), 'utf8').trim();
			if (/^[0-9a-f]{40,64}$/.test(loose)) {
				return loose;
			}
		} catch {
			// Not loose: look in packed-refs below.
		}
		let packed: string;
		try {
			packed = fs.readFileSync(path.join(this.shadow.gitDir, 'packed-refs'), 'utf8');
		} catch {
			return null;
		}
		for (const line of packed.split('\n')) {
			const [oid, name] = line.split(' ');
			if (name === ref && oid && /^[0-9a-f]{40,64}$/.test(oid)) {
				return oid;
			}
		}
		return null;
	}

	async refs(prefix: string): Promise<Map<string, string>> {
		const out = await this.shadow.gitText(['for-each-ref', '--format=%(refname) %(objectname)', prefix]);
		const map = new Map<string, string>();
		for (const line of out.split('\n').filter(Boolean)) {
			const [ref, oid] = line.split(' ');
			if (ref && oid) {
				map.set(ref, oid);
			}
		}
		return map;
	}

	/** The ids of every event in this machine's events ref at `tip` (read back when the export mark does not hold). */
	async idsInRef(tip: string): Promise<Set<string>> {
		return new Set((await this.readEvents(null, tip)).map((e) => e.id));
	}

	/**
	 * Appends one batch of events (their wire lines, sorted by id) and the given checkpoint commits to this machine's refs, in one
	 * `fast-import` (a pack, fast-forward only). Needs the shadow lock.
	 */
	async append(events: { count: number; text: string; lastId: string | null }, checkpointCommits: readonly string[], nowMs: number): Promise<void> {
		if (events.count === 0 && checkpointCommits.length === 0) {
			return;
		}
		const chunks: Buffer[] = [];
		const data = (text: string | Buffer): void => {
			const bytes = typeof text === 'string' ? Buffer.from(text) : text;
			chunks.push(Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from('\n'));
		};
		const header = (ref: string, message: string, from: string | null): void => {
			chunks.push(Buffer.from(`commit ${ref}\ncommitter Baton <baton@localhost> ${Math.floor(nowMs / 1000)} +0000\n`));
			data(message);
			if (from) {
				chunks.push(Buffer.from(`from ${from}\n`));
			}
		};
		if (events.count > 0 && events.lastId) {
			header(this.eventsRef, `baton events: ${events.count}\n`, await this.tip(this.eventsRef));
			chunks.push(Buffer.from(`M 100644 inline batches/${events.lastId}.jsonl\n`));
			data(events.text + '\n');
		}
		if (checkpointCommits.length > 0) {
			const from = await this.tip(this.checkpointsRef);
			header(this.checkpointsRef, `baton checkpoints: ${checkpointCommits.length}\n`, from);
			for (const commit of checkpointCommits) {
				chunks.push(Buffer.from(`merge ${commit}\n`));
			}
			if (!from) {
				// The first commit's tree is empty: the checkpoints live in its parents.
				chunks.push(Buffer.from('deleteall\n'));
			}
		}
		chunks.push(Buffer.from('done\n'));
		const checkpointsFrom = checkpointCommits.length > 0 ? await this.tip(this.checkpointsRef) : null;
		await this.shadow.git(fastImportArgs, { input: Buffer.concat(chunks), timeoutMs: 120_000 });
		const checkpointsTip = checkpointCommits.length > 0 ? await this.tip(this.checkpointsRef) : null;
		if (checkpointsTip && this.sharedAt && this.sharedAt.tip === checkpointsFrom) {
			this.sharedAt = { tip: checkpointsTip, commits: new Set([...this.sharedAt.commits, ...checkpointCommits]) };
		}
	}

	/** The checkpoint commits already reachable from this machine's checkpoints ref (its extra parents). */
	async sharedCheckpointCommits(): Promise<Set<string>> {
		const tip = await this.tip(this.checkpointsRef);
		if (!tip) {
			return new Set();
		}
		// What a commit reaches never changes: the answer for this tip is kept (one git process less per push).
		if (this.sharedAt?.tip === tip) {
			return new Set(this.sharedAt.commits);
		}
		const commits = await this.readSharedCheckpointCommits(tip);
		this.sharedAt = { tip, commits };
		return new Set(commits);
	}

	private sharedAt: { tip: string; commits: Set<string> } | undefined;

	private async readSharedCheckpointCommits(tip: string): Promise<Set<string>> {
		const out = await this.shadow.gitText(['rev-list', '--first-parent', '--parents', tip]);
		const commits = new Set<string>();
		for (const line of out.split('\n').filter(Boolean)) {
			for (const parent of line.split(' ').slice(2)) {
				commits.add(parent);
			}
		}
		return commits;
	}

	/** The events in the batch files that `newTip` holds and `oldTip` (null: nothing) did not. */
	async readEvents(oldTip: string | null, newTip: string): Promise<WireEvent[]> {
		const blobs: string[] = [];
		if (oldTip) {
			const out = splitNul((await this.shadow.git(['diff-tree', '-r', '-z', '--no-renames', '--diff-filter=AM', oldTip, newTip])).stdout);
			for (let i = 0; i + 1 < out.length; i += 2) {
				const meta = (out[i] as string).split(' ');
				if ((out[i + 1] as string).startsWith('batches/') && meta[3]) {
					blobs.push(meta[3]);
				}
			}
		} else {
			for (const entry of splitNul((await this.shadow.git(['ls-tree', '-r', '-z', newTip, 'batches/'])).stdout)) {
				const [meta] = entry.split('\t');
				const oid = meta?.split(' ')[2];
				if (oid) {
					blobs.push(oid);
				}
			}
		}
		if (blobs.length === 0) {
			return [];
		}
		const events: WireEvent[] = [];
		const found = await catBatch(async (args, input) => (await this.shadow.git(args, input !== undefined ? { input } : {})).stdout, blobs);
		found.forEach((blob, i) => {
			if (!blob) {
				throw new Error(`a Baton events ref names ${blobs[i]}, which is not a blob in Baton's store`);
			}
			for (const line of blob.content.toString('utf8').split('\n')) {
				if (line.trim()) {
					events.push(JSON.parse(line) as WireEvent);
				}
			}
		});
		return events;
	}

	/** How many events the commits in `from..to` added (their messages say). */
	async countEvents(from: string | null, to: string | null): Promise<number> {
		if (!to || from === to) {
			return 0;
		}
		const out = await this.shadow.gitText(['log', '--format=%s', from ? `${from}..${to}` : to]);
		let total = 0;
		for (const line of out.split('\n')) {
			const match = /^baton events: (\d+)$/.exec(line);
			total += match ? Number(match[1]) : 0;
		}
		return total;
	}
}
