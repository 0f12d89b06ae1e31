/**
 * Shared events and checkpoint trees as git objects in Baton's own store (`.baton/shadow.git`, the
 * checkpoint store, so checkpoint trees share their blobs with everything already there).
 *
 * Each machine writes only its own refs, so two machines never write the same name:
 * - `refs/baton/events/<machine>`: a commit chain; each commit adds one file
 *   `batches/<last event id>.jsonl` holding the events of one export, sorted by id (a large export is
 *   several files, each under `batchSplitBytes`). Pulling reads only the files a fetched commit range
 *   added (its trees level by level under bounds, refTrees.ts, then one `cat-file --batch`), and
 *   refuses a file above `maxBatchBytes` unread.
 * - `refs/baton/checkpoints/<machine>`: a commit chain with an empty tree whose extra parents are the
 *   checkpoints' shared trees (sharedTrees.ts: what the user's git would commit, scanned), each
 *   commit listing its `<snapshot> <shared>` pairs: fetching it brings their trees, and only the
 *   objects not held yet.
 * Both are written by one `git fast-import`, which writes a pack (no loose objects) and moves the refs
 * only as fast-forwards.
 */
import fs from 'node:fs';
import os from 'node:os';
import { sql } from 'drizzle-orm';
import path from 'node:path';
import type { ShadowRepo } from '../shadow/shadowRepo';
import type { WireEvent } from '../shared/sharedEvents';
import { BatonError } from '../errors';
import { batchCheck, catBlobGroups, type BoundedGitRun } from '../git/objectReader';
import { pushAll } from '../arrays';
import { addedFiles, refTreeLimits, type RefRange } from './refTrees';
import { keepOwnersEvents, parseBatch, type RefusedLine } from './wireLines';
import { forEachFile } from '../storage/fsUtil';
import { sharedTreeCommands, sharedTreeMessage, type PlannedTree, type SharedTree } from './sharedTrees';

/** The heading of the snapshot list in a checkpoints-ref commit's message. */
const snapshotsHeading = 'Baton-Snapshots:';

/**
 * The snapshots a checkpoints-ref commit shares, each with its shared tree: the message's list under
 * `Baton-Snapshots:` pairs, in order, with the commit's extra parents (after the previous commit).
 * Undefined for a commit written before shared trees (no list); a list that does not match the
 * parents one for one pairs nothing.
 */
function sharedPairs(message: string, parents: readonly string[]): SharedTree[] | undefined {
	const lines = message.split('\n');
	const at = lines.indexOf(snapshotsHeading);
	if (at < 0) {
		return undefined;
	}
	const snapshots = lines.slice(at + 1).filter((l) => /^[0-9a-f]{40,64}$/.test(l));
	const trees = parents.slice(1);
	if (snapshots.length !== trees.length) {
		return [];
	}
	return snapshots.map((snapshot, i) => ({ snapshot, shared: trees[i] as string }));
}

const eventsRefPrefix = 'refs/baton/events/';

/**
 * A pulled batch file above this is refused unread: a remote may hold anything, and a batch is
 * written once, so one that cannot be held (a string over V8's 512 MB limit, or simply the memory)
 * must not fail every later pull. Baton's own exports stay well under it (`batchSplitBytes`).
 */
export const maxBatchBytes = 64 * 1024 * 1024;
/** An export writes batch files of at most about this much (a line is never split, so one event may pass it). */
const batchSplitBytes = 16 * 1024 * 1024;
/** One git answer on a read of every batch at once holds at most this much: past it the batches are read in groups. */
const maxReadBytes = 2 * maxBatchBytes;
/**
 * A pull reads and merges its batches about this much at a time: a batch at a time as an export cuts
 * them (a group holds one batch at least). Each batch's bytes, its text and its parsed events are held
 * while its events are merged: two 16 MB batches at once took a fresh clone's daemon pulling 10,000
 * sessions' history to 350 MB before its first write, one batch to 233 MB.
 */
const pullGroupBytes = batchSplitBytes / 4;

/**
 * `git fast-import` keeping its pack whatever its size. By default (`fastimport.unpackLimit`, 100) an
 * import of fewer objects — every export is a handful — is written out again as loose objects, one
 * file each. A pack is also synced to disk (git's default `core.fsync`), loose objects are not, and
 * it is no slower: 13 ms for a 1.4 MB batch in the store, against 22 ms written loose. The packs this
 * leaves are rolled together by the store's idle maintenance (`checkpoints.maintain`).
 */
export const fastImportArgs = ['-c', 'fastimport.unpackLimit=0', 'fast-import', '--quiet', '--done'];

/**
 * A `shared_events` row as its wire line (toWire's fields, as JSON), built by SQLite: an export of
 * thousands of events spent most of its JS time parsing bodies only to serialise them again.
 */
export const wireLineSql = sql.raw(
	`json_object('id', id, 'kind', kind, 'subject', subject, 'sessionId', session_id, 'actor', actor, 'machine', machine, 'machineName', machine_name, 'author', author, 'at', at, 'body', json(body_json))`,
);
const checkpointsRefPrefix = 'refs/baton/checkpoints/';

export class EventRefs {
	readonly eventsRef: string;
	readonly checkpointsRef: string;

	constructor(
		readonly shadow: ShadowRepo,
		readonly machine: string,
		/** Where an export splits its batch (a test sets it low). */
		private readonly splitBytes: number = batchSplitBytes,
	) {
		this.eventsRef = `${eventsRefPrefix}${machine}`;
		this.checkpointsRef = `${checkpointsRefPrefix}${machine}`;
	}

	/**
	 * Ref lock files a killed git left under `refs/<namespace>/`. Only called while holding the lock
	 * that every writer of that namespace takes, so no live git is using them.
	 */
	clearStaleRefLocks(namespace: 'baton' | 'baton-remotes'): void {
		forEachFile(path.join(this.shadow.gitDir, 'refs', namespace), (full, _rel, name) => {
			if (name.endsWith('.lock')) {
				fs.rmSync(full, { force: true });
			}
		});
	}

	/** A ref's oid, read from the ref files (loose, then packed-refs): no git process per lookup. */
	async tip(ref: string): Promise<string | null> {
		try {
			const loose = fs.readFileSync(path.join(this.shadow.gitDir, ref), 'utf8').trim();
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

	/**
	 * Every ref under `prefix` (ending in `/`) with its oid, sorted by name, read from the ref files as
	 * `tip` does (a loose ref overrides a packed one): no git process on every pull and status.
	 */
	async refs(prefix: string): Promise<Map<string, string>> {
		const found = new Map<string, string>();
		let packed = '';
		try {
			packed = fs.readFileSync(path.join(this.shadow.gitDir, 'packed-refs'), 'utf8');
		} catch {
			// No packed refs (git packs refs only when asked, and Baton never asks).
		}
		for (const line of packed.split('\n')) {
			const [oid, name] = line.split(' ');
			if (name?.startsWith(prefix) && oid && /^[0-9a-f]{40,64}$/.test(oid)) {
				found.set(name, oid);
			}
		}
		forEachFile(path.join(this.shadow.gitDir, prefix.split('/').filter(Boolean).join('/')), (full, rel, name) => {
			if (name.endsWith('.lock')) {
				return;
			}
			let oid = '';
			try {
				oid = fs.readFileSync(full, 'utf8').trim();
			} catch {
				// Removed meanwhile (a prune): not a ref any more.
			}
			if (/^[0-9a-f]{40,64}$/.test(oid)) {
				found.set(`${prefix}${rel}`, oid);
			}
		});
		return new Map([...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
	}

	/** The ids of every event in this machine's events ref at `tip` (read back when the export mark does not hold). */
	async idsInRef(tip: string): Promise<Set<string>> {
		return new Set((await this.readEvents(null, tip)).map((e) => e.id));
	}

	/**
	 * Appends one batch of events (their wire lines, sorted by id) and the given checkpoints' shared
	 * trees (sharedTrees.ts) to this machine's refs, in one `fast-import` (a pack, fast-forward only).
	 * The checkpoints ref's commit takes the shared trees as extra parents and lists, in the same
	 * order, the local snapshots they stand for (`Baton-Snapshots:`), which is how this machine and
	 * its teammates tell which snapshot a shared tree stands for. Needs the shadow lock.
	 */
	async append(
		events: { count: number; text: string; lastId: string | null },
		checkpoints: readonly PlannedTree[],
		nowMs: number,
		lastShared: string | null = null,
	): Promise<void> {
		if (events.count === 0 && checkpoints.length === 0) {
			return;
		}
		const chunks: Buffer[] = [];
		const data = (text: string | Buffer): void => {
			const bytes = typeof text === 'string' ? Buffer.from(text) : text;
			chunks.push(Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from('\n'));
		};
		const header = (ref: string, message: string, from: string | null, mark?: number): void => {
			chunks.push(Buffer.from(`commit ${ref}\n${mark ? `mark :${mark}\n` : ''}committer Baton <baton@localhost> ${Math.floor(nowMs / 1000)} +0000\n`));
			data(message);
			if (from) {
				chunks.push(Buffer.from(`from ${from}\n`));
			}
		};
		if (events.count > 0 && events.lastId) {
			header(this.eventsRef, `baton events: ${events.count}\n`, await this.tip(this.eventsRef));
			for (const batch of splitBatch(events.text, events.lastId, this.splitBytes)) {
				chunks.push(Buffer.from(`M 100644 inline batches/${batch.lastId}.jsonl\n`));
				data(batch.text + '\n');
			}
		}
		// A name of this export's own: a ref a killed export left behind is never in the way (fast-import moves refs as fast-forwards only).
		const build = `refs/baton-build/shared-tree-${process.pid}-${nowMs}`;
		const checkpointsFrom = checkpoints.length > 0 ? await this.tip(this.checkpointsRef) : null;
		if (checkpoints.length > 0) {
			checkpoints.forEach((tree, i) => chunks.push(Buffer.from(sharedTreeCommands(tree, build, i + 1, i === 0 ? lastShared : `:${i}`))));
			let from = checkpointsFrom;
			if (!from) {
				// The chain starts with an empty commit: every later commit's extra parents are then its shared trees, in order.
				header(this.checkpointsRef, 'baton checkpoints\n', null, checkpoints.length + 1);
				chunks.push(Buffer.from('deleteall\n\n'));
				from = `:${checkpoints.length + 1}`;
			}
			header(
				this.checkpointsRef,
				`baton checkpoints: ${checkpoints.length}\n\n${snapshotsHeading}\n${checkpoints.map((c) => `${c.snapshot}\n`).join('')}`,
				from,
			);
			checkpoints.forEach((_, i) => chunks.push(Buffer.from(`merge :${i + 1}\n`)));
			chunks.push(Buffer.from('\n'));
		}
		chunks.push(Buffer.from('done\n'));
		const marksDir = checkpoints.length > 0 ? fs.mkdtempSync(path.join(os.tmpdir(), 'baton-marks-')) : null;
		try {
			await this.shadow.git([...fastImportArgs, ...(marksDir ? [`--export-marks=${path.join(marksDir, 'marks')}`] : [])], {
				input: Buffer.concat(chunks),
				timeoutMs: 120_000,
			});
			if (!marksDir) {
				return;
			}
			this.dropBuildRef(build);
			const marks = new Map(
				fs
					.readFileSync(path.join(marksDir, 'marks'), 'utf8')
					.split('\n')
					.filter(Boolean)
					.map((line) => [line.split(' ')[0] ?? '', line.split(' ')[1] ?? ''] as const),
			);
			const checkpointsTip = await this.tip(this.checkpointsRef);
			if (checkpointsTip && this.sharedAt && this.sharedAt.tip === checkpointsFrom) {
				const shared = marks.get(`:${checkpoints.length}`);
				const newest = checkpoints.at(-1);
				this.sharedAt = {
					tip: checkpointsTip,
					commits: new Set([...this.sharedAt.commits, ...checkpoints.map((c) => c.snapshot)]),
					last: shared && newest ? { snapshot: newest.snapshot, shared } : this.sharedAt.last,
				};
			}
		} finally {
			if (marksDir) {
				fs.rmSync(marksDir, { recursive: true, force: true });
			}
		}
	}

	/**
	 * Every `<snapshot> <shared>` pair this machine's checkpoints ref lists, oldest first (a commit
	 * written before shared trees lists none).
	 */
	async allSharedPairs(): Promise<SharedTree[]> {
		const tip = await this.tip(this.checkpointsRef);
		return tip ? (await this.sharedPairsIn(null, tip)).reverse() : [];
	}

	/**
	 * Deletes this machine's events ref, to be written again from nothing (a retraction: the ref no
	 * longer holds what was taken back; SyncExport.writeEvents writes what remains). Needs the shadow lock.
	 */
	async dropEvents(): Promise<void> {
		await this.shadow.git(['update-ref', '-d', this.eventsRef]);
	}

	/**
	 * Writes this machine's checkpoints ref again from nothing, sharing only `kept` (in order): each
	 * shared tree is written again on the one before it (same files, same message), and one chain
	 * commit lists them. None kept: the ref is deleted. Needs the shadow lock.
	 */
	async rewriteCheckpoints(kept: readonly SharedTree[], nowMs: number): Promise<void> {
		await this.shadow.git(['update-ref', '-d', this.checkpointsRef]);
		this.sharedAt = undefined;
		if (kept.length === 0) {
			return;
		}
		const found = await batchCheck(
			async (args, input) => (await this.shadow.git(args, input !== undefined ? { input } : {})).stdout,
			kept.map((k) => `${k.shared}^{tree}`),
		);
		const trees = found.map((o, i) => {
			if (o?.type !== 'tree') {
				throw new BatonError('gitFailed', `the shared checkpoint ${kept[i]?.shared ?? ''} has no tree in the store`);
			}
			return o.oid;
		});
		const build = `refs/baton-build/shared-tree-${process.pid}-${nowMs}`;
		const chunks: string[] = [];
		kept.forEach((k, i) => {
			const message = sharedTreeMessage(k.snapshot);
			chunks.push(
				`reset ${build}\ncommit ${build}\nmark :${i + 1}\ncommitter Baton <baton@localhost> 0 +0000\ndata ${Buffer.byteLength(message)}\n${message}${i > 0 ? `from :${i}\n` : ''}M 040000 ${trees[i]} ""\n\n`,
			);
		});
		const root = kept.length + 1;
		const time = Math.floor(nowMs / 1000);
		const rootMessage = 'baton checkpoints\n';
		chunks.push(
			`commit ${this.checkpointsRef}\nmark :${root}\ncommitter Baton <baton@localhost> ${time} +0000\ndata ${Buffer.byteLength(rootMessage)}\n${rootMessage}\n`,
		);
		const message = `baton checkpoints: ${kept.length}\n\n${snapshotsHeading}\n${kept.map((k) => `${k.snapshot}\n`).join('')}`;
		chunks.push(
			`commit ${this.checkpointsRef}\ncommitter Baton <baton@localhost> ${time} +0000\ndata ${Buffer.byteLength(message)}\n${message}from :${root}\n${kept.map((_, i) => `merge :${i + 1}\n`).join('')}\ndone\n`,
		);
		await this.shadow.git(fastImportArgs, { input: Buffer.from(chunks.join('')), timeoutMs: 120_000 });
		this.dropBuildRef(build);
	}

	/**
	 * Removes an export's scratch ref (its shared trees stay reachable from the checkpoints ref). The
	 * file itself: fast-import writes it loose, Baton never packs refs and its store keeps no reflogs,
	 * so this is all `update-ref -d` would do, without a git process on every push.
	 */
	private dropBuildRef(build: string): void {
		fs.rmSync(path.join(this.shadow.gitDir, build), { force: true });
	}

	/**
	 * The local snapshots this machine's checkpoints ref has shared, and the last shared tree written
	 * (its blobs were scanned). A commit that lists no pairs (written before shared trees) shared its
	 * extra parents themselves.
	 */
	async sharedCheckpoints(): Promise<{ commits: Set<string>; last: SharedTree | null }> {
		const tip = await this.tip(this.checkpointsRef);
		if (!tip) {
			return { commits: new Set(), last: null };
		}
		// What a commit reaches never changes: the answer for this tip is kept (one git process less per push).
		if (this.sharedAt?.tip !== tip) {
			this.sharedAt = { tip, ...(await this.readSharedCheckpoints(tip)) };
		}
		return { commits: new Set(this.sharedAt.commits), last: this.sharedAt.last };
	}

	private sharedAt: { tip: string; commits: Set<string>; last: SharedTree | null } | undefined;

	private async readSharedCheckpoints(tip: string): Promise<{ commits: Set<string>; last: SharedTree | null }> {
		const out = await this.shadow.gitText(['log', '--first-parent', '--format=%x01%P%x02%B', tip], { timeoutMs: 120_000 });
		const commits = new Set<string>();
		let last: SharedTree | null = null;
		const records = out.split('\u0001').slice(1);
		records.forEach((record, i) => {
			const [parentList = '', message = ''] = record.split('\u0002');
			const parents = parentList.split(' ').filter(Boolean);
			const pairs = sharedPairs(message, parents);
			if (pairs) {
				pairs.forEach((p) => commits.add(p.snapshot));
				last ??= pairs.at(-1) ?? null;
			} else {
				// Written before shared trees: the parents are the snapshots (the chain's first commit has no previous one).
				(i === records.length - 1 ? parents : parents.slice(1)).forEach((p) => commits.add(p));
			}
		});
		return { commits, last };
	}

	/**
	 * The `<snapshot> <shared>` pairs a pulled checkpoints ref added between `from` (null: its start) and
	 * `to`, read under a bound (a remote may hold anything).
	 */
	async sharedPairsIn(from: string | null, to: string): Promise<SharedTree[]> {
		const log = (range: string) =>
			this.shadow.git(['log', '--first-parent', '--format=%x01%P%x02%B', range], { timeoutMs: 120_000, maxStdoutBytes: 32 * 1024 * 1024 });
		// A ref rewritten since (a retraction) no longer descends from `from`: then the whole chain is read.
		const out = (await (from ? log(`${from}..${to}`).catch(() => log(to)) : log(to))).stdout.toString('utf8');
		return out
			.split('\u0001')
			.slice(1)
			.flatMap((record) => {
				const [parents = '', message = ''] = record.split('\u0002');
				return sharedPairs(message, parents.trim().split(' ').filter(Boolean)) ?? [];
			});
	}

	/** The events in the batch files that `newTip` holds and `oldTip` (null: nothing) did not. */
	async readEvents(oldTip: string | null, newTip: string): Promise<WireEvent[]> {
		return (await this.readBatches([{ ref: this.eventsRef, from: oldTip, to: newTip }])).events;
	}

	/**
	 * The events the batch files of each range added, for every fetched ref at once ({@link listBatches},
	 * then every group of {@link readBatchGroups} gathered).
	 */
	async readBatches(
		ranges: readonly RefRange[],
	): Promise<{ events: WireEvent[]; refused: RefusedLine[]; refusedRefs: string[]; bodies: Map<WireEvent, string> }> {
		const listed = await this.listBatches(ranges);
		const events: WireEvent[] = [];
		const refused = [...listed.refused];
		const bodies = new Map<WireEvent, string>();
		for await (const group of this.readBatchGroups(listed.blobs, maxReadBytes, listed.owners)) {
			pushAll(events, group.events);
			pushAll(refused, group.refused);
			for (const [event, body] of group.bodies) bodies.set(event, body);
		}
		return { events, refused, refusedRefs: listed.refusedRefs, bodies };
	}

	/**
	 * The batch files each range added, listed and not read: the refs and their `batches` trees checked
	 * and read a level at a time under `refTreeLimits` (refTrees.ts). A ref that is not a commit chain of
	 * batch files within the bounds is refused by name (`refusedRefs`), the others' batches are listed
	 * in order. No process runs for nothing (a pull that brought nothing new, the usual one, runs none).
	 */
	async listBatches(ranges: readonly RefRange[]): Promise<ListedBatches> {
		const listed = await addedFiles(
			this.boundedRun,
			ranges.filter((r) => r.from !== r.to),
			'batches',
			refTreeLimits,
		);
		// Whose ref each batch lies on (the same file can lie on two): a machine's events come on its own ref only.
		const owners = new Map<string, Set<string>>();
		for (const { ref, files } of listed.read) {
			const machine = ref.slice(ref.lastIndexOf('/') + 1);
			for (const file of files) {
				const set = owners.get(file.oid) ?? new Set<string>();
				set.add(machine);
				owners.set(file.oid, set);
			}
		}
		return { blobs: [...owners.keys()], owners, refused: [...listed.refused], refusedRefs: listed.refusedRefs };
	}

	/**
	 * The listed batches read and parsed a group at a time, in order: all of them through one
	 * `cat-file --batch` when they fit `groupBytes`, else groups of about that much (catBlobGroups). A
	 * pull that merges each group before asking for the next holds one group's files and events, not
	 * every one it fetched (a fresh clone's pull of 100,000 sessions' history held 2.96 GB).
	 */
	async *readBatchGroups(
		blobs: readonly string[],
		groupBytes: number | undefined,
		owners: ListedBatches['owners'],
	): AsyncGenerator<{ events: WireEvent[]; refused: RefusedLine[]; bodies: Map<WireEvent, string>; last: boolean }> {
		for await (const group of catBlobGroups(this.boundedRun, blobs, { maxBlobBytes: maxBatchBytes, maxGroupBytes: groupBytes ?? pullGroupBytes })) {
			const events: WireEvent[] = [];
			const refused: RefusedLine[] = [];
			const bodies = new Map<WireEvent, string>();
			group.found.forEach((blob, i) => {
				const name = (group.oids[i] as string).slice(0, 12);
				if (!blob) {
					refused.push({ id: name, reason: 'a batch that is not a blob Baton’s store holds (not read)' });
				} else if ('tooLarge' in blob) {
					refused.push({ id: name, reason: `a batch of ${blob.tooLarge} bytes, more than the ${maxBatchBytes} a batch may hold (not read)` });
				} else {
					const parsed: WireEvent[] = [];
					parseBatch(blob.content.toString('utf8'), name, parsed, refused, bodies);
					keepOwnersEvents(parsed, owners.get(group.oids[i] as string), this.machine, events, refused);
				}
			});
			yield { events, refused, bodies, last: group.last };
		}
	}

	private readonly boundedRun: BoundedGitRun = async (args, input, maxStdoutBytes) => (await this.shadow.git(args, { input, maxStdoutBytes })).stdout;

	/** How many events the commits in `from..to` added (their messages say). */
	async countEvents(from: string | null, to: string | null): Promise<number> {
		if (!to || from === to) {
			return 0;
		}
		let out: string;
		try {
			out = await this.shadow.gitText(['log', '--format=%s', from ? `${from}..${to}` : to]);
		} catch {
			// A ref at something that is not a commit (a pull refuses it by name): it brings no events.
			return 0;
		}
		let total = 0;
		for (const line of out.split('\n')) {
			const match = /^baton events: (\d+)$/.exec(line);
			total += match ? Number(match[1]) : 0;
		}
		return total;
	}
}

/** The batch files a pull's ranges added, each with the machines whose refs it lies on. */
interface ListedBatches {
	blobs: string[];
	owners: ReadonlyMap<string, ReadonlySet<string>>;
	refused: RefusedLine[];
	refusedRefs: string[];
}

/**
 * An export's wire lines (sorted by id, joined by newlines) as batch files of at most `maxBytes`
 * each, cut between lines; each is named by its last event's id (unique: ids carry the machine).
 */
export function splitBatch(text: string, lastId: string, maxBytes: number): { lastId: string; text: string }[] {
	// A character is at most three UTF-8 bytes: the usual export is settled without a pass over it.
	if (text.length * 3 <= maxBytes || Buffer.byteLength(text) <= maxBytes) {
		return [{ lastId, text }];
	}
	const batches: { lastId: string; text: string }[] = [];
	let start = 0;
	while (start < text.length) {
		// Bytes, not characters: walk forward line by line until the next line would pass the bound.
		let end = start;
		let bytes = 0;
		while (end < text.length) {
			const eol = text.indexOf('\n', end);
			const next = eol < 0 ? text.length : eol;
			const lineBytes = Buffer.byteLength(text.slice(end, next)) + 1;
			if (end > start && bytes + lineBytes > maxBytes) {
				break;
			}
			bytes += lineBytes;
			end = next + 1;
		}
		const piece = text.slice(start, Math.min(end, text.length)).replace(/\n$/, '');
		const lastLine = piece.slice(piece.lastIndexOf('\n') + 1);
		const id = /^\{"id":"([^"\\]+)"/.exec(lastLine)?.[1];
		batches.push({ lastId: end >= text.length ? lastId : (id ?? `${lastId}-${batches.length + 1}`), text: piece });
		start = end;
	}
	return batches;
}
