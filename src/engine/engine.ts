/**
 * The composition root: one Engine per workspace, shared by the backend server and the CLI.
 */
import { pushAll } from './arrays';
import { saveOpenTasks } from './tasks/briefingTasksOf';
import path from 'node:path';
import { CheckpointService } from './checkpoints/checkpointService';
import { shadowDirName } from './shadow/shadowRepo';
import { mergeNotifications, resolveConfig, readConfigFile, type BatonConfig, type BatonConfigInput } from './config';
import { EngineContext } from './context';
import { BatonError } from './errors';
import { NotificationService } from './notifications/notificationService';
import { OutboxDispatcher } from './outbox/outbox';
import { systemClock, type Clock, type Logger } from './ports';
import { briefingMemory } from './memory/briefingMemory';
import { MemoryService } from './memory/memoryService';
import { envSecretSource, type SecretSource } from './secrets';
import { createGitStateReader, type GitStateReader } from './sessions/gitState';
import { SessionService } from './sessions/sessionService';
import { JournalStore } from './storage/journalStore';
import { TaskService } from './tasks/taskService';
import { ExportService } from './interop/exportService';
import { ImportService } from './interop/importService';
import { TrackerService } from './trackers/trackerService';
import { dropForeignOwnFiles, ownFileNames } from './ownFiles';
import { checkedOutNames } from './git/userRepoState';
import { batonDir, initWorkspace, isInitialized, tightenPrivateTree } from './workspace';
import type { BriefingSources } from './sessions/briefing';
import { laterWork } from './timeline/laterWork';
import { BriefingService } from './sessions/briefingService';
import { recordSharedEvents } from './sync/localEvents';
import { SyncService } from './sync/syncService';
import type { SyncPaging } from './sync/syncMerge';
import { ProvenanceService } from './provenance/provenanceService';
import { SearchService } from './search/searchService';
import { TimelineService } from './timeline/timelineService';
import type { TranscriptArchive } from './transcripts/transcriptArchive';
import { transcriptArchiveFor } from './transcripts/archiveHome';
import { agentSettingsOrDefaults, type AgentSettings } from './agentConfig/agentSettings';
import { AgentHistoryService } from './agentHistory/historyImport';
import { BoardService } from './board/boardService';

interface EngineOptions {
	workspaceRoot: string;
	log: Logger;
	clock?: Clock;
	/** Overrides on top of `.baton/config.json` (VS Code settings, CLI flags). */
	config?: BatonConfigInput;
	/** Create `.baton/` when missing (`baton init`, the extension's init command). */
	create?: boolean;
	wasmPath?: string;
	git?: GitStateReader;
	lockTimeoutMs?: number;
	compactAfterBytes?: number;
	/** Events per page of a sync export and of a pull's merge (sync/exportMark.ts, sync/syncMerge.ts; tests make it small). */
	syncPageEvents?: number;
	/** Bytes of fetched batch files a pull reads at a time (sync/eventRefs.ts `pullGroupBytes`; tests make it small). */
	syncGroupBytes?: number;
	/** Tokens, webhook URLs, passwords (default: the `BATON_*` environment variables). */
	secrets?: SecretSource;
	/** An untrusted workspace: reads write nothing derived and run no git (project memory's stale marks are not refreshed). */
	readOnly?: boolean;
}

/** How far past the threshold a short CLI call lets the journal grow before compacting inline. */
const shortProcessCompactFactor = 16;

/** Whose archive (the agent settings, the environment and home folder of whoever reported) and where its warnings go. */
interface TranscriptsInput {
	env?: NodeJS.ProcessEnv;
	homeDir?: string;
	log?: Logger;
	settings?: AgentSettings;
}

export class Engine {
	readonly sessions: SessionService;
	readonly tasks: TaskService;
	readonly briefings: BriefingService;
	readonly checkpoints: CheckpointService;
	/** Project memory (knowledge, gotchas, staleness) and session summaries. */
	readonly memory: MemoryService;
	/** Deliveries to the outside world (notifications, issue trackers); hosts call `deliverDue()`. */
	readonly outbox: OutboxDispatcher;
	/** CLEO, JSON-file and Beads history in (issue 6). */
	readonly imports: ImportService;
	/** Every agent's own history of this workspace in (issue 26): `baton import agents`. */
	readonly agentHistory: AgentHistoryService;
	/** Sessions and chains out as JSON files; handoffs and briefings as markdown views. */
	readonly exports: ExportService;
	/** Issue trackers: links, auto-linking, and tracker actions delivered through the outbox. */
	readonly trackers: TrackerService;
	/** Push notifications: queued inside writes; hosts `attach()` the channels they can deliver. */
	readonly notifications: NotificationService;
	/** Sessions shared through the repository's git remote (docs/sync.md). */
	readonly sync: SyncService;
	/** Each session's replay axis: steps, prompts, checkpoints; a step's files and its revert (docs/replay.md). */
	readonly timeline: TimelineService;
	/** The Agents board: every agent session running now and whether it waits for you (`baton agents`). */
	readonly board: BoardService;
	private provenanceService: ProvenanceService | undefined;
	private searchService: SearchService | undefined;

	private constructor(
		readonly ctx: EngineContext,
		git: GitStateReader,
		readonly secrets: SecretSource,
		private readonly readOnly: boolean,
		syncPaging: SyncPaging,
	) {
		// Project memory and the timeline sit above the sessions: the briefings get their parts from here.
		const memorySection: BriefingSources = {
			memory: (db, input) => briefingMemory(ctx, db, input),
			laterWork: (db, input) => laterWork(db, input.sessionId, input.since),
		};
		this.sessions = new SessionService(ctx, git, memorySection);
		this.tasks = new TaskService(ctx);
		this.briefings = new BriefingService(ctx, memorySection);
		this.checkpoints = new CheckpointService(ctx);
		this.memory = new MemoryService(ctx, this.checkpoints, () => this.transcripts());
		this.outbox = new OutboxDispatcher(ctx);
		this.notifications = new NotificationService(ctx, this.outbox, secrets);
		this.trackers = new TrackerService(ctx, this.outbox, secrets);
		this.imports = new ImportService(ctx);
		this.agentHistory = new AgentHistoryService(ctx, (env, homeDir) => this.transcripts({ env, ...(homeDir ? { homeDir } : {}) }));
		this.exports = new ExportService(ctx, this.briefings);
		// Before each export, commits made since are attributed (sync needs a git remote, so a repository).
		this.sync = new SyncService(
			ctx,
			this.checkpoints.shadow,
			() => this.provenance.attributePending(),
			() => this.transcripts(),
			syncPaging,
		);
		this.timeline = new TimelineService(ctx, this.checkpoints);
		this.board = new BoardService(ctx, () => this.transcripts().list());
		recordSharedEvents(ctx);
		this.sessions.afterEnd = async (session, actor) => {
			// In a hook event's one write (storage/oneWrite.ts) the `complete` checkpoint runs once that write is
			// durable: its git snapshot takes the shadow store's lock, and the event holds the journal's.
			const warnings: string[] = [];
			await ctx.store.afterOneWrite(async () => void pushAll(warnings, await this.checkpoints.onSessionEnded(session, actor)));
			return pushAll(warnings, await this.memory.afterSessionEnded(session, actor));
		};
		this.sessions.afterAutoEnd = (session, actor) => this.memory.afterSessionEnded(session, actor);
		if (!readOnly) {
			const refresh = (): Promise<void> => this.memory.refreshStalenessQuietly();
			this.sessions.beforeBriefing = refresh;
			this.briefings.beforeBriefing = refresh;
		}
	}

	static async open(options: EngineOptions): Promise<Engine> {
		const root = path.resolve(options.workspaceRoot);
		if (options.create) {
			initWorkspace(root);
		} else if (!isInitialized(root)) {
			throw new BatonError('notInitialized', `${root} has no .baton folder; run \`baton init\` there first`);
		}
		const dir = batonDir(root);
		const checkedOut = await checkedOutNames(root, dir, ownFileNames, 5000);
		const foreign = dropForeignOwnFiles(dir, checkedOut);
		if (foreign.length > 0) {
			// Baton's own file at a path the repository tracks shows as a change a `git commit -a` would take: say how to stop tracking it.
			const tracked = [...checkedOut].map((name) => path.relative(root, path.join(dir, name)).split(path.sep).join('/'));
			options.log.warn(
				`removed ${foreign.map((f) => `.baton/${f}`).join(', ')}: this user did not write ${foreign.length === 1 ? 'it' : 'them'} (a repository or an archive carried ${foreign.length === 1 ? 'it' : 'them'}); Baton makes its own${tracked.length > 0 ? `; this repository tracks ${tracked.length === 1 ? 'that path' : 'those paths'}: run \`git rm --cached ${tracked.join(' ')}\` so this machine's never goes into a commit` : ''}`,
			);
		}
		const loose = tightenPrivateTree(dir, [shadowDirName]);
		if (loose.length > 0) {
			options.log.warn(
				`other users may read Baton's data: could not make ${loose.slice(0, 3).join(', ')}${loose.length > 3 ? ` and ${loose.length - 3} more` : ''} private (run \`chmod -R go= ${dir}\` as its owner)`,
			);
		}
		const configFile = path.join(dir, 'config.json');
		const config: BatonConfig = resolveConfig(mergeConfig(readConfigFile(configFile), options.config ?? {}), configFile);
		const clock = options.clock ?? systemClock;
		const store = await JournalStore.open({
			dir,
			clock,
			log: options.log,
			...(options.wasmPath ? { wasmPath: options.wasmPath } : {}),
			...(options.lockTimeoutMs ? { lockTimeoutMs: options.lockTimeoutMs } : {}),
			...(options.compactAfterBytes ? { compactAfterBytes: options.compactAfterBytes } : {}),
		});
		const ctx = new EngineContext(store, clock, options.log, config, root);
		return new Engine(
			ctx,
			options.git ?? createGitStateReader(root, options.log),
			options.secrets ?? envSecretSource(process.env),
			options.readOnly ?? false,
			{ pageEvents: options.syncPageEvents, groupBytes: options.syncGroupBytes },
		);
	}

	/**
	 * Line provenance (docs/provenance.md), made on first use: what it keeps (the repository's layout,
	 * parsed records, file blames, commits with nothing to say) serves every later command of a daemon
	 * or an editor's backend. Every cache in it is keyed by what it depends on.
	 */
	get provenance(): ProvenanceService {
		this.provenanceService ??= new ProvenanceService(this.ctx);
		return this.provenanceService;
	}

	/**
	 * Full-text search over every session (docs/search.md), made on first use: its index is this
	 * process's own, kept current from the store and the transcript archive before each search.
	 */
	get search(): SearchService {
		this.searchService ??= new SearchService(this.ctx, () => this.transcripts(), {
			file: path.join(batonDir(this.ctx.workspaceRoot), 'cache', 'search-index.db'),
			save: !this.readOnly,
		});
		return this.searchService;
	}

	/**
	 * The archive of agents' transcripts, its Claude home found by the one rule (`claudeHomeDir`): the
	 * workspace's agent settings (the defaults, with a warning, when that file is broken, unless the
	 * caller read them itself), then the environment given — a hook's is the agent's own.
	 */
	transcripts(input: TranscriptsInput = {}): TranscriptArchive {
		return Engine.transcriptArchive(this.ctx.workspaceRoot, { ...input, log: input.log ?? this.ctx.log });
	}

	/**
	 * The same archive, by the same rule, where no store is open: the CLI's and the editor's transcript
	 * listings, which read only the archive's own files, and `baton doctor`'s index check.
	 */
	static transcriptArchive(workspaceRoot: string, input: TranscriptsInput & { log: Logger }): TranscriptArchive {
		const settings = input.settings ?? agentSettingsOrDefaults(workspaceRoot, input.log);
		return transcriptArchiveFor(workspaceRoot, {
			claudeHome: settings.claudeHome,
			env: input.env ?? process.env,
			...(input.homeDir ? { homeDir: input.homeDir } : {}),
			log: input.log,
		});
	}

	get store(): JournalStore {
		return this.ctx.store;
	}

	get config(): BatonConfig {
		return this.ctx.config;
	}

	/**
	 * Compact when the journal has grown past its threshold; cheap to call when idle. A short process
	 * (a CLI call) leaves it to the backend's idle time unless the journal is far past it.
	 */
	async maintain(options: { shortProcess?: boolean } = {}): Promise<boolean> {
		if (!this.ctx.store.needsCompaction(options.shortProcess ? shortProcessCompactFactor : 1)) {
			return false;
		}
		await this.ctx.store.compact();
		return true;
	}

	/**
	 * Saves for the next process what it would otherwise derive again from the store (the briefing's
	 * open tasks, tasks/openTasksFile.ts) when this one holds it as it is now: the daemon runs it when
	 * idle. Returns whether it wrote.
	 */
	async saveDerived(): Promise<boolean> {
		// In a read: never beside a write whose rows are applied and not yet durable.
		return !this.readOnly && (await this.ctx.store.read(() => saveOpenTasks(this.ctx)));
	}

	close(): void {
		this.searchService?.close();
		this.ctx.store.close();
	}
}

/** Host overrides on top of `.baton/config.json`; the nested checkpoint, tracker and notification settings merge key by key. */
export function mergeConfig(file: BatonConfigInput, overrides: BatonConfigInput): BatonConfigInput {
	const merged: BatonConfigInput = { ...file, ...overrides };
	if (file.checkpoints || overrides.checkpoints) {
		merged.checkpoints = {
			...file.checkpoints,
			...overrides.checkpoints,
			...(file.checkpoints?.escalation || overrides.checkpoints?.escalation
				? { escalation: { ...file.checkpoints?.escalation, ...overrides.checkpoints?.escalation } }
				: {}),
		};
	}
	if (file.trackers || overrides.trackers) {
		const [a, b] = [file.trackers ?? {}, overrides.trackers ?? {}];
		merged.trackers = { ...a, ...b };
		for (const key of ['github', 'linear', 'beads'] as const) {
			if (a[key] || b[key]) {
				merged.trackers[key] = { ...a[key], ...b[key] };
			}
		}
	}
	if (file.notifications || overrides.notifications) {
		merged.notifications = mergeNotifications(file.notifications ?? {}, overrides.notifications ?? {});
	}
	return merged;
}
