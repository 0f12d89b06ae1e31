/**
 * Finding this workspace's sessions in each agent's own files (issue 26, item 1), matched by the project
 * path the agent itself records, never by a guess from a folder name alone:
 *
 * - Claude Code: `<claude home>/projects/<cwd, every non-alphanumeric as '-'>/<id>.jsonl` (claudeProjects.ts),
 *   kept when the first record that names a `cwd` names this workspace;
 * - Codex CLI: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`, its first line `session_meta` with the
 *   `cwd`, the thread `id` and, for a fork, `forked_from_id`;
 * - Gemini CLI: `<GEMINI_CLI_HOME or ~>/.gemini/tmp/<project>/chats/session-*.jsonl` (and the older
 *   `.json`), whose header records `projectHash`, sha256 of the project root (google-gemini/gemini-cli
 *   `packages/core/src/utils/paths.ts` getProjectHash, used by `services/chatRecordingService.ts`). The
 *   `<project>` folder is that hash in older versions and a short name since (`config/projectRegistry.ts`,
 *   `~/.gemini/projects.json` and the `.project_root` file in the folder); every folder of `tmp/` is
 *   read, the header decides;
 * - Copilot CLI: `~/.copilot/session-state/<id>/events.jsonl`, the `cwd` in `workspace.yaml` beside it
 *   (else in the `session.start` event);
 * - VS Code's chat sessions (agent kind `copilot`, product `vscode`): `<user data>/User/workspaceStorage/<hash>/
 *   chatSessions/<id>.json(l)`, the folder named by the `workspace.json` beside (transcripts/vscodeChatSessions.ts);
 * - Cline and Roo Code tasks and Cline SDK sessions (agent kind `cline`, products `cline`, `roo-code`, `cline-sdk`),
 *   the workspace from the product's own task history (transcripts/clineTasks.ts).
 *
 * Everything here only reads. A file that is not a regular file (a FIFO), a symlink that leads out of the
 * agent's folder, a file over the size limit, or one whose head cannot be read is skipped with its reason.
 * A folder that is a symlink is followed as a file that is one is: what it holds is read when it lies
 * inside the agent's folder, and skipped with that reason when it does not.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentKind } from '../agentKinds';
import { claudeProjectDir, isBootstrapTranscript, subagentTranscripts, type DiscoveredTranscript } from '../transcripts/claudeProjects';
import { pushAll } from '../arrays';
import { isFolder, isoTime, readTextFile, RealFolders, type AgentDiscovery, type AgentFileOptions } from '../transcripts/agentFiles';
import { discoverClineTasks } from '../transcripts/clineTasks';
import { discoverVscodeChatSessions } from '../transcripts/vscodeChatSessions';
import { claudeHead, claudeHeadBytes, firstCwd, headLines, readDir, readHead, safeId, sourceProblem } from './historyFiles';
import type { FileBytes } from '../storage/regularFile';

export interface HistorySource {
	agent: AgentKind;
	/** Which product wrote it: the agent's kind, or `copilot-cli`, `vscode`, `cline`, `roo-code`, `cline-sdk`. */
	product: string;
	agentSessionId: string;
	/** The session's transcripts for the archive: the main one, and Claude's subagents. */
	transcripts: DiscoveredTranscript[];
	sourcePath: string;
	size: number;
	mtimeMs: number;
	/** The file's last change (ISO): its last activity for `--since`. */
	modifiedAt: string;
	/** When the agent says it started, from its own records; null when they do not say. */
	startedAt: string | null;
	/** Codex: the thread this one was forked from. */
	forkedFrom: string | null;
	/** Claude: the session ids the transcript's first records carry (a resumed conversation). */
	earlierIds: string[];
}

interface SkippedSource {
	agent: AgentKind;
	path: string;
	reason: string;
}

interface HistoryHomes {
	claudeHome: string;
	codexHome: string;
	/** The `.gemini` folder. */
	geminiDir: string;
	/** The `.copilot` folder. */
	copilotDir: string;
	/** Where VS Code-based editors and Cline keep their data (agentFiles.ts finds the folders from these). */
	homeDir: string;
	env: NodeJS.ProcessEnv;
}

/** Where each agent keeps its files, as each agent finds them itself. */
export function historyHomes(claudeHome: string, env: NodeJS.ProcessEnv, homeDir: string = os.homedir()): HistoryHomes {
	return {
		claudeHome,
		codexHome: env['CODEX_HOME'] || path.join(homeDir, '.codex'),
		geminiDir: path.join(env['GEMINI_CLI_HOME'] || homeDir, '.gemini'),
		copilotDir: path.join(homeDir, '.copilot'),
		homeDir,
		env,
	};
}

export const historyAgents = ['claude-code', 'codex', 'gemini', 'copilot', 'cline'] as const satisfies readonly AgentKind[];
export type HistoryAgent = (typeof historyAgents)[number];

interface DiscoverInput {
	workspaceRoot: string;
	homes: HistoryHomes;
	agents: readonly HistoryAgent[];
	/** Files larger than this are skipped (default 512 MiB; 64 MiB for the files read whole). */
	maxFileBytes?: number;
	/** Only these products' sessions of an agent named here (`cline: ['roo-code']`); every product of the others. */
	products?: Partial<Record<HistoryAgent, readonly string[]>>;
}

interface Discovery {
	sources: HistorySource[];
	skipped: SkippedSource[];
}

const defaultMaxBytes = 512 * 1024 * 1024;
/**
 * A JSONL file this small is read whole when its head is read, and its bytes go to the archive's sync
 * with the source (DiscoveredTranscript.whole): each file is then opened and read once per import. At
 * most `wholeBudget` bytes of them are held in all; the files past it are read again by the sync.
 */
const wholeUpTo = 256 * 1024;
/** How far a Claude Code transcript whose head names no folder is read for one (firstCwd). */
const claudeCwdScanBytes = 64 * 2 ** 20;
/** Far above what the CLI writes (a few hundred bytes): a larger one is no workspace.yaml of its own. */
const maxWorkspaceYamlBytes = 1024 * 1024;
const wholeBudget = 32 * 1024 * 1024;

class Finder {
	readonly sources: HistorySource[] = [];
	readonly skipped: SkippedSource[] = [];
	private readonly roots: Set<string>;
	private readonly maxBytes: number;
	private readonly folders = new RealFolders();
	private wholeLeft = wholeBudget;

	constructor(private readonly input: DiscoverInput) {
		this.roots = new Set([path.resolve(input.workspaceRoot)]);
		try {
			this.roots.add(fs.realpathSync(input.workspaceRoot));
		} catch {
			// The workspace is where it says it is.
		}
		this.maxBytes = input.maxFileBytes ?? defaultMaxBytes;
	}

	isWorkspace(recorded: unknown): boolean {
		return typeof recorded === 'string' && recorded !== '' && this.roots.has(path.resolve(recorded));
	}

	/** The file's stats when it may be read; otherwise it is listed as skipped and undefined returned. */
	check(agent: AgentKind, file: string, within: string): fs.Stats | undefined {
		const problem = sourceProblem(file, within, this.maxBytes, this.folders);
		if (typeof problem === 'string') {
			this.skipped.push({ agent, path: file, reason: problem });
			return undefined;
		}
		return problem;
	}

	/** The first records of a JSONL file (historyFiles.ts `readHead`), and the whole file's bytes while the budget lasts (spent by `add`). */
	head(file: string, limit: number, maxLines: number): { records: Record<string, unknown>[]; whole?: FileBytes } {
		return readHead(file, limit, maxLines, Math.min(wholeUpTo, this.wholeLeft));
	}

	/**
	 * A Copilot CLI session's workspace.yaml: its keys (none when there is no such file), or why it is
	 * not read — a FIFO or a device would hang the import or never end, and a link may lead out.
	 */
	workspaceYaml(file: string, within: string): Record<string, string> | string {
		if (!fs.lstatSync(file, { throwIfNoEntry: false })) {
			return parseWorkspaceYaml('');
		}
		const problem = sourceProblem(file, within, maxWorkspaceYamlBytes, this.folders);
		if (typeof problem === 'string') {
			return problem;
		}
		const warnings: string[] = [];
		const text = readTextFile(file, maxWorkspaceYamlBytes, warnings);
		return text === null ? (warnings[0] ?? 'it cannot be read') : parseWorkspaceYaml(text);
	}

	skip(agent: AgentKind, file: string, reason: string): void {
		this.skipped.push({ agent, path: file, reason });
	}

	add(
		source: Omit<HistorySource, 'transcripts' | 'size' | 'mtimeMs' | 'modifiedAt' | 'product'> & { transcripts?: DiscoveredTranscript[]; product?: string },
		stat: fs.Stats,
		whole?: FileBytes,
	): void {
		const product = source.product ?? (source.agent === 'copilot' ? 'copilot-cli' : source.agent);
		const only = this.input.products?.[source.agent as HistoryAgent];
		if (only && !only.includes(product)) {
			return;
		}
		if (!safeId(source.agentSessionId)) {
			this.skip(source.agent, source.sourcePath, `its session id ${JSON.stringify(source.agentSessionId.slice(0, 80))} is not one Baton keeps`);
			return;
		}
		this.wholeLeft -= whole?.size ?? 0;
		const main: DiscoveredTranscript = {
			id: source.agentSessionId,
			agentSessionId: source.agentSessionId,
			parentAgentSessionId: null,
			sourcePath: source.sourcePath,
			agentType: null,
			description: null,
			...(whole ? { whole } : {}),
		};
		this.sources.push({
			...source,
			// What an agent's file says of its start is read as a time or not at all: it names the session (derivedSessionId).
			startedAt: isoTime(source.startedAt),
			product,
			transcripts: [main, ...(source.transcripts ?? [])],
			size: stat.size,
			mtimeMs: stat.mtimeMs,
			modifiedAt: new Date(stat.mtimeMs).toISOString(),
		});
	}

	/** The workspace's project folder as Claude names it, for its path as given and, when a symlink leads there, its real path. */
	claude(): void {
		for (const dir of new Set([...this.roots].map((root) => claudeProjectDir(this.input.homes.claudeHome, root)))) {
			this.claudeDir(dir);
		}
	}

	private claudeDir(dir: string): void {
		const listing = readDir(dir);
		// A session's subagents live in a folder named after it: only a session the listing shows one for has any.
		const folders = new Set(listing.filter((e) => isFolder(dir, e)).map((e) => e.name));
		for (const entry of listing) {
			if (!entry.name.endsWith('.jsonl')) {
				continue;
			}
			const file = path.join(dir, entry.name);
			const stat = this.check('claude-code', file, dir);
			if (!stat) {
				continue;
			}
			const id = entry.name.slice(0, -'.jsonl'.length);
			// One read of the head answers whose file it is, when it started, whether it is a bootstrap and
			// which conversation it resumes (each used to open the file again and parse its first 64 KiB).
			const head = claudeHead(file, id, Math.min(wholeUpTo, this.wholeLeft));
			// Claude's folder name stands for more than one path (`/a/b-c` and `/a/b/c`): the file's own cwd says whose it is.
			const cwd = head.cwd ?? (stat.size > claudeHeadBytes ? (firstCwd(file, claudeCwdScanBytes) ?? undefined) : undefined);
			if (cwd === undefined && stat.size > claudeCwdScanBytes) {
				this.skip('claude-code', file, `no record in its first ${claudeCwdScanBytes / 2 ** 20} MiB says which folder it is of (cwd)`);
				continue;
			}
			if (cwd !== undefined && !this.isWorkspace(cwd)) {
				this.skip('claude-code', file, `it records another project (${String(cwd)})`);
				continue;
			}
			if (stat.size === 0 || (head.snapshotsOnly && (stat.size <= claudeHeadBytes || isBootstrapTranscript(file)))) {
				continue; // No conversation: a session id Claude created and left.
			}
			const startedAt = head.startedAt;
			const subagents = folders.has(id)
				? subagentTranscripts(path.join(dir, id), id).filter((t) => sourceProblem(t.sourcePath, dir, this.maxBytes, this.folders) instanceof fs.Stats)
				: [];
			this.add(
				{
					agent: 'claude-code',
					agentSessionId: id,
					sourcePath: file,
					startedAt: typeof startedAt === 'string' ? startedAt : null,
					forkedFrom: null,
					earlierIds: head.earlierIds,
					transcripts: subagents,
				},
				stat,
				head.whole,
			);
		}
	}

	/**
	 * Codex's rollouts of this workspace. A subagent's rollout (`source.subagent.thread_spawn.parent_thread_id`)
	 * is a transcript of its parent's session, as Claude's subagents are; one whose parent is not here
	 * is a session of its own under the parent's, when Baton knows it.
	 */
	codex(): void {
		const sessions = path.join(this.input.homes.codexHome, 'sessions');
		const subagents: { parent: string; transcript: DiscoveredTranscript; stat: fs.Stats; startedAt: string | null }[] = [];
		for (const file of datedFiles(sessions)) {
			const stat = this.check('codex', file, sessions);
			if (!stat) {
				continue;
			}
			const head = this.head(file, 4 * 1024 * 1024, 1);
			const first = head.records[0];
			const meta = first?.['type'] === 'session_meta' ? (first['payload'] as Record<string, unknown> | undefined) : undefined;
			if (!meta || typeof meta['id'] !== 'string') {
				this.skip('codex', file, 'its first line is not a session_meta record');
				continue;
			}
			if (!this.isWorkspace(meta['cwd'])) {
				continue; // Another project's session.
			}
			const startedAt = typeof meta['timestamp'] === 'string' ? meta['timestamp'] : typeof first?.['timestamp'] === 'string' ? first['timestamp'] : null;
			const spawn = ((meta['source'] as Record<string, unknown> | undefined)?.['subagent'] as Record<string, unknown> | undefined)?.['thread_spawn'] as
				Record<string, unknown> | undefined;
			const parent = typeof spawn?.['parent_thread_id'] === 'string' ? spawn['parent_thread_id'] : null;
			if (parent && safeId(parent) && safeId(meta['id'])) {
				const transcript: DiscoveredTranscript = {
					id: `${parent}/${meta['id']}`,
					agentSessionId: meta['id'],
					parentAgentSessionId: parent,
					sourcePath: file,
					agentType: 'subagent',
					description: null,
					...(head.whole ? { whole: head.whole } : {}),
				};
				subagents.push({ parent, transcript, stat, startedAt });
				continue;
			}
			const forkedFrom = typeof meta['forked_from_id'] === 'string' ? meta['forked_from_id'] : null;
			this.add({ agent: 'codex', agentSessionId: meta['id'], sourcePath: file, startedAt, forkedFrom, earlierIds: [] }, stat, head.whole);
		}
		for (const sub of subagents) {
			const parent = this.sources.find((s) => s.agent === 'codex' && s.agentSessionId === sub.parent);
			if (parent) {
				parent.transcripts.push(sub.transcript);
				this.wholeLeft -= sub.transcript.whole?.size ?? 0;
			} else {
				this.add(
					{
						agent: 'codex',
						agentSessionId: sub.transcript.agentSessionId,
						sourcePath: sub.transcript.sourcePath,
						startedAt: sub.startedAt,
						forkedFrom: sub.parent,
						earlierIds: [],
					},
					sub.stat,
					sub.transcript.whole,
				);
			}
		}
	}

	gemini(): void {
		const tmp = path.join(this.input.homes.geminiDir, 'tmp');
		const hashes = new Set([...this.roots].map((root) => createHash('sha256').update(root).digest('hex')));
		for (const project of readDir(tmp)) {
			const chats = path.join(tmp, project.name, 'chats');
			for (const entry of readDir(chats)) {
				if (!entry.name.startsWith('session-') || !(entry.name.endsWith('.jsonl') || entry.name.endsWith('.json'))) {
					continue;
				}
				const file = path.join(chats, entry.name);
				const stat = this.check('gemini', file, tmp);
				if (!stat) {
					continue;
				}
				const head = entry.name.endsWith('.json') ? { records: [wholeJson(file)] } : this.head(file, 1024 * 1024, 1);
				const header = head.records[0];
				if (!header || typeof header['sessionId'] !== 'string' || typeof header['projectHash'] !== 'string') {
					this.skip('gemini', file, 'it has no session header (sessionId, projectHash)');
					continue;
				}
				if (!hashes.has(header['projectHash'])) {
					continue; // Another project's chat.
				}
				const startedAt = typeof header['startTime'] === 'string' ? header['startTime'] : null;
				const whole = 'whole' in head ? head.whole : undefined;
				this.add({ agent: 'gemini', agentSessionId: header['sessionId'], sourcePath: file, startedAt, forkedFrom: null, earlierIds: [] }, stat, whole);
			}
		}
	}

	/**
	 * VS Code's chat sessions (`copilot`) or Cline's and Roo Code's tasks (`cline`), found by their readers'
	 * discovery: each is read whole on every change (archiveSource.ts), so one over 64 MiB is skipped.
	 */
	agentFiles(agent: 'copilot' | 'cline'): void {
		const { homeDir, env } = this.input.homes;
		const options: AgentFileOptions = { homeDir, env };
		const found: AgentDiscovery =
			agent === 'copilot' ? discoverVscodeChatSessions(this.input.workspaceRoot, options) : discoverClineTasks(this.input.workspaceRoot, options);
		for (const warning of found.warnings) {
			const at = warning.indexOf(': ');
			this.skip(agent, at > 0 ? warning.slice(0, at) : '', at > 0 ? warning.slice(at + 2) : warning);
		}
		const maxBytes = Math.min(this.maxBytes, 64 * 1024 * 1024);
		for (const file of found.files) {
			// The session's folder (a task's, the chat sessions'): a symlink may not lead out of it.
			const problem = sourceProblem(file.path, path.dirname(file.path), maxBytes, this.folders);
			if (typeof problem === 'string') {
				this.skip(agent, file.path, problem);
				continue;
			}
			// A Cline task's id is the time it started (epoch ms); VS Code's session records its own.
			const startedAt = /^\d{13}$/.test(file.agentSessionId)
				? isoTime(Number(file.agentSessionId))
				: agent === 'copilot'
					? vscodeCreation(file.path)
					: null;
			this.add(
				{ agent, product: file.product, agentSessionId: file.agentSessionId, sourcePath: file.path, startedAt, forkedFrom: null, earlierIds: [] },
				problem,
			);
		}
	}

	copilot(): void {
		const states = path.join(this.input.homes.copilotDir, 'session-state');
		for (const dir of readDir(states)) {
			const file = path.join(states, dir.name, 'events.jsonl');
			if (!isFolder(states, dir) || !fs.existsSync(file)) {
				continue;
			}
			const stat = this.check('copilot', file, states);
			if (!stat) {
				continue;
			}
			const workspace = this.workspaceYaml(path.join(states, dir.name, 'workspace.yaml'), states);
			if (typeof workspace === 'string') {
				this.skip('copilot', file, `its workspace.yaml cannot be read: ${workspace}`);
				continue;
			}
			const head = this.head(file, 256 * 1024, 20);
			const start = head.records.find((r) => r['type'] === 'session.start')?.['data'] as Record<string, unknown> | undefined;
			const context = start?.['context'] as Record<string, unknown> | undefined;
			// Either may name it: workspace.yaml is read as plain `key: value` lines (an anchor, a comment or a block scalar reads as something else).
			const named = [workspace['cwd'], context?.['cwd']].filter((c) => c !== undefined);
			if (named.length === 0) {
				this.skip('copilot', file, 'neither workspace.yaml nor the session.start event names its folder (cwd)');
				continue;
			}
			if (!named.some((c) => this.isWorkspace(c))) {
				continue;
			}
			const startedAt = workspace['created_at'] ?? (typeof start?.['startTime'] === 'string' ? start['startTime'] : null);
			this.add({ agent: 'copilot', agentSessionId: dir.name, sourcePath: file, startedAt, forkedFrom: null, earlierIds: [] }, stat, head.whole);
		}
	}
}

/** This workspace's sessions in the named agents' files, and the files passed over with their reasons. */
export function discoverHistory(input: DiscoverInput): Discovery {
	const finder = new Finder(input);
	for (const agent of input.agents) {
		if (agent === 'claude-code') finder.claude();
		else if (agent === 'codex') finder.codex();
		else if (agent === 'gemini') finder.gemini();
		else if (agent === 'copilot') {
			finder.copilot();
			finder.agentFiles('copilot');
		} else finder.agentFiles('cline');
	}
	return { sources: finder.sources, skipped: finder.skipped };
}

/** `sessions/YYYY/MM/DD/rollout-*.jsonl`, oldest first. */
function datedFiles(root: string): string[] {
	const out: string[] = [];
	const folders = (dir: string, n: number) => readDir(dir).filter((e) => isFolder(dir, e) && new RegExp(`^\\d{${n}}$`).test(e.name));
	for (const year of folders(root, 4)) {
		for (const month of folders(path.join(root, year.name), 2)) {
			for (const day of folders(path.join(root, year.name, month.name), 2)) {
				const dir = path.join(root, year.name, month.name, day.name);
				pushAll(
					out,
					readDir(dir)
						.filter((e) => e.name.startsWith('rollout-') && e.name.endsWith('.jsonl'))
						.map((e) => path.join(dir, e.name)),
				);
			}
		}
	}
	return out.sort();
}

/** When a VS Code chat session was created, from its first line (the JSONL's Initial entry, or the JSON form on one line). */
function vscodeCreation(file: string): string | null {
	const first = headLines(file, 1024 * 1024, 1)[0];
	const state = first && first['kind'] === 0 && first['v'] && typeof first['v'] === 'object' ? (first['v'] as Record<string, unknown>) : first;
	return isoTime(state?.['creationDate']);
}

/** A whole JSON document's top-level object (Gemini's older chat file), or undefined. */
function wholeJson(file: string): Record<string, unknown> | undefined {
	try {
		const value: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
		return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
	} catch {
		return undefined;
	}
}

/** The flat `key: value` lines of Copilot CLI's workspace.yaml (all it writes there). */
function parseWorkspaceYaml(text: string): Record<string, string> {
	const out: Record<string, string> = Object.create(null) as Record<string, string>;
	for (const line of text.split('\n')) {
		const match = /^([A-Za-z_]+):\s*(.*?)\s*$/.exec(line);
		if (match?.[1] && match[2] !== undefined) {
			out[match[1]] = match[2].replace(/^(["'])(.*)\1$/, '$2');
		}
	}
	return out;
}
