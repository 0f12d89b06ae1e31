/**
 * Sync's side of transcripts (docs/sync.md "Transcripts"): this machine's archived transcripts go on
 * `refs/baton/transcripts/<machine>` when some enabled remote was enabled with `--transcripts`, and
 * a pull imports every other machine's transcripts ref it fetched into this machine's archive.
 */
import path from 'node:path';
import type { ShadowRepo } from '../shadow/shadowRepo';
import type { EngineContext } from '../context';
import { machineIdentity } from '../shared/machineIdentity';
import type { TranscriptArchive } from '../transcripts/transcriptArchive';
import type { EventRefs } from './eventRefs';
import { dropTranscripts, exportTranscripts, maxTranscriptBytes, readTranscripts, transcriptsRefPrefix } from './transcriptRefs';
import { readRetracted, type TakenBack } from './retraction';
import { syncDir } from './syncState';
import { pushAll } from '../arrays';

export class TranscriptSync {
	readonly ref: string;
	private archiveCache: TranscriptArchive | undefined;

	constructor(
		private readonly ctx: EngineContext,
		private readonly shadow: ShadowRepo,
		private readonly refs: EventRefs,
		/** The engine's transcript archive (engine.ts: one rule for the agents' homes). */
		private readonly openArchive: () => TranscriptArchive,
	) {
		this.ref = `${transcriptsRefPrefix}${refs.machine}`;
	}

	/** Baton's archive, read and imported into only. */
	private get archive(): TranscriptArchive {
		this.archiveCache ??= this.openArchive();
		return this.archiveCache;
	}

	/** Writes the transcripts that changed onto this machine's ref. Needs the shadow lock. */
	async export(nowMs: number): Promise<number> {
		const me = machineIdentity(this.ctx.workspaceRoot);
		// A session taken back (retraction.ts) has its transcripts kept here, never shared again.
		const retracted = readRetracted(this.ctx.workspaceRoot).sessions;
		const shareable = this.archive
			.shareable({ machine: me.id, machineName: me.name, author: me.author })
			.filter((t) => !retracted.has(t.path.split('/')[0] ?? ''));
		return exportTranscripts(this.shadow, this.ref, (ref) => this.refs.tip(ref), shareable, this.cacheFile, nowMs);
	}

	private get cacheFile(): string {
		return path.join(syncDir(this.ctx.workspaceRoot), 'transcripts.json');
	}

	/** Takes the sessions' transcripts out of this machine's transcripts ref (a retraction). Needs the shadow lock. */
	async drop(sessions: readonly string[], nowMs: number): Promise<boolean> {
		return dropTranscripts(this.shadow, this.ref, (ref) => this.refs.tip(ref), sessions, this.cacheFile, nowMs);
	}

	/**
	 * Teammates took these sessions back: the copies of their transcripts imported here from the machine
	 * that took each back go too. This machine's own transcripts, and its archive switch, stay.
	 */
	async forget(taken: readonly TakenBack[]): Promise<number> {
		return this.archive.forgetShared(taken);
	}

	/**
	 * Imports the transcripts other machines' refs fetched from `remote` hold beyond `pulled`; returns
	 * the refs processed. `tracking` is the pull's one read of the remote's refs (ref → oid).
	 */
	async import(
		remote: string,
		pulled: Readonly<Record<string, string>>,
		tracking: ReadonlyMap<string, string>,
	): Promise<{ processed: Record<string, string>; imported: number; refused: { id: string; reason: string }[] }> {
		const processed: Record<string, string> = {};
		const refused: { id: string; reason: string }[] = [];
		let imported = 0;
		const prefix = `refs/baton-remotes/${remote}/transcripts/`;
		for (const [ref, oid] of tracking) {
			if (!ref.startsWith(prefix)) {
				continue;
			}
			const machine = ref.slice(ref.lastIndexOf('/') + 1);
			if (machine === this.refs.machine || pulled[ref] === oid) {
				continue;
			}
			const { files, tooLarge, refused: broken, refusedRef } = await readTranscripts(this.shadow, pulled[ref] ?? null, oid, maxTranscriptBytes, ref);
			pushAll(refused, broken);
			for (const big of tooLarge) {
				this.ctx.log.warn(
					`sync: transcript ${JSON.stringify(big.path)} from remote "${remote}" holds ${big.bytes} bytes, more than the ${maxTranscriptBytes} a pulled transcript may (skipped)`,
				);
			}
			let problems: string[];
			try {
				problems = await this.archive.importShared(files.map((f) => ({ ...f, origin: { machine, machineName: null, author: null } })));
			} catch (error) {
				// One ref's transcripts stop nothing else: the events are merged, and the next pull reads this ref again.
				this.ctx.log.warn(`sync: the transcripts of ${ref} from remote "${remote}" were not imported: ${(error as Error).message}`);
				continue;
			}
			for (const problem of problems) {
				this.ctx.log.warn(`sync: ${problem} (from remote "${remote}"; skipped)`);
			}
			imported += files.length - problems.length;
			// A refused ref is not taken as imported: the next pull names it again, and reads it once it is mended.
			if (!refusedRef) {
				processed[ref] = oid;
			}
		}
		return { processed, imported, refused };
	}
}
