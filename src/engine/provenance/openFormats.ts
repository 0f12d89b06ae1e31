/**
 * The open formats teams already use, out and in, so their history is kept when they move:
 * - Agent Trace (`TraceRecord` per commit: vcs.revision, files → conversations → contributor and
 *   line ranges), JSON lines as in `.agent-trace/traces.jsonl`;
 * - git-ai's authorship log (v3): per commit, an attestation block (a path, then indented
 *   `<hash> <ranges>` lines), a line `---`, then JSON with `schema_version`, `base_commit_sha` and
 *   `sessions` (agent_id {tool, id, model} or human_author). Baton never writes the user's notes:
 *   it exports one note text per commit into a folder, and imports from such a folder or reads
 *   `refs/notes/ai` read-only.
 * Imported lines become attribution ranges; a contributor Baton cannot map (`mixed`) is `unknown`.
 */
import { createHash } from 'node:crypto';
import { unknownOrigin, type CommitAttribution, type FileAttribution, type LineOrigin, type OriginRange } from './attributionRecords';
import { pushAll } from '../arrays';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const hash14 = (text: string): string => sha256(text).slice(0, 14);

/**
 * The Agent Trace specification version Baton writes (v0.1.0; its schema takes `major.minor.patch`).
 * The published schema's version pattern is broken upstream (a doubled backslash in the generator's
 * regex makes it demand a literal backslash); test/fixtures/formats/agent-trace/SOURCE.md says how
 * the tests validate around that one pattern.
 */
const agentTraceVersion = '0.1.0';

/** A record id as the schema wants it (a UUID), the same for the same commit: version 8, from SHA-256. */
function recordId(commit: string): string {
	const h = sha256(`baton:agent-trace:${commit}`);
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A model id in models.dev's `provider/model` form (Agent Trace's convention), when the provider is plain from the name. */
function modelsDevId(model: string): string {
	if (model.includes('/')) {
		return model;
	}
	const provider = /^claude/i.test(model)
		? 'anthropic'
		: /^(gpt|o\d|codex|chatgpt)/i.test(model)
			? 'openai'
			: /^gemini/i.test(model)
				? 'google'
				: /^grok/i.test(model)
					? 'xai'
					: null;
	return provider ? `${provider}/${model}` : model;
}

/** Agent Trace conversation url for a Baton session (and turn). */
const sessionUrl = (origin: LineOrigin): string | undefined =>
	origin.session ? `baton:session/${origin.session}${origin.turn !== null ? `#turn=${encodeURIComponent(origin.turn)}` : ''}` : undefined;

export function toAgentTrace(attribution: CommitAttribution, at: string, tool: { name: string; version: string }): Record<string, unknown> {
	return {
		version: agentTraceVersion,
		id: recordId(attribution.commit),
		timestamp: at,
		vcs: { type: 'git', revision: attribution.commit },
		tool: { name: tool.name, version: tool.version },
		files: attribution.files.map((file) => {
			const groups = new Map<string, { origin: LineOrigin; ranges: { start_line: number; end_line: number }[] }>();
			for (const range of file.ranges) {
				const key = `${range.origin}\u0000${range.session ?? ''}\u0000${range.turn ?? ''}\u0000${range.model ?? ''}`;
				const group = groups.get(key) ?? { origin: range, ranges: [] };
				group.ranges.push({ start_line: range.start, end_line: range.end });
				groups.set(key, group);
			}
			return {
				path: file.path,
				conversations: [...groups.values()].map(({ origin, ranges }) => ({
					...(sessionUrl(origin) ? { url: sessionUrl(origin) } : {}),
					contributor: { type: origin.origin === 'agent' ? 'ai' : origin.origin, ...(origin.model ? { model_id: modelsDevId(origin.model) } : {}) },
					ranges,
				})),
			};
		}),
	};
}

export interface ImportedAttribution {
	attribution: CommitAttribution;
	warnings: string[];
}

export function fromAgentTrace(record: unknown, where: string): ImportedAttribution {
	const r = record as { vcs?: { type?: unknown; revision?: unknown }; files?: unknown };
	const revision = r?.vcs?.revision;
	if (typeof revision !== 'string' || !/^[0-9a-f]{40,64}$/.test(revision)) {
		throw new Error(`${where}: a trace record needs vcs.revision, a full git commit id`);
	}
	if (!Array.isArray(r.files)) {
		throw new Error(`${where}: a trace record needs a files array`);
	}
	const warnings: string[] = [];
	const files: FileAttribution[] = [];
	for (const [i, raw] of (r.files as unknown[]).entries()) {
		const file = raw as { path?: unknown; conversations?: unknown };
		if (typeof file?.path !== 'string' || !Array.isArray(file.conversations)) {
			throw new Error(`${where}: files[${i}] needs a path and conversations`);
		}
		const ranges: OriginRange[] = [];
		for (const conv of file.conversations as { url?: unknown; contributor?: { type?: unknown; model_id?: unknown }; ranges?: unknown }[]) {
			const type = conv?.contributor?.type;
			const origin: LineOrigin = {
				...unknownOrigin,
				origin: type === 'ai' ? 'agent' : type === 'human' ? 'human' : 'unknown',
				model: typeof conv?.contributor?.model_id === 'string' ? conv.contributor.model_id : null,
			};
			if (type !== 'ai' && type !== 'human' && type !== 'unknown') {
				warnings.push(`${where}: contributor type ${JSON.stringify(type)} in ${file.path} is kept as unknown`);
			}
			const url = typeof conv?.url === 'string' ? /^baton:session\/([^#]+)(?:#turn=(.*))?$/.exec(conv.url) : null;
			if (url) {
				origin.session = url[1] ?? null;
				origin.turn = url[2] !== undefined ? decodeURIComponent(url[2]) : null;
			}
			for (const range of Array.isArray(conv?.ranges) ? (conv.ranges as { start_line?: unknown; end_line?: unknown }[]) : []) {
				const start = Number(range?.start_line);
				const end = Number(range?.end_line);
				if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || end < start) {
					throw new Error(`${where}: ${file.path} has a malformed range ${JSON.stringify(range)}`);
				}
				ranges.push({ ...origin, start, end });
			}
		}
		files.push({ path: file.path, blob: '', ranges: ranges.sort((a, b) => a.start - b.start) });
	}
	return { attribution: { commit: revision, files, patchId: null }, warnings };
}

/** git-ai's name for an agent (its `agent_id.tool`), from Baton's agent kind. */
const gitAiTools: Readonly<Record<string, string>> = { 'claude-code': 'claude', copilot: 'copilot', cline: 'cline', codex: 'codex', gemini: 'gemini' };

/** A path as git-ai writes it in the attestation section: quoted when it holds a space, a tab or a newline. */
const attestedPath = (p: string): string => (/[ \t\n]/.test(p) ? `"${p}"` : p);

/**
 * git-ai's authorship log text for one commit (Git AI Standard v3.0.0): the attestation section (a
 * path, then `  <key> <ranges>` lines) for agents' lines (`s_<14hex>::t_<14hex>`, the session id
 * being SHA-256 of `<tool>:<conversation id>`, as git-ai computes it) and known humans' lines
 * (`h_<14hex>` of the author identity `authorIdentity`), `---`, then the metadata: `schema_version`,
 * `base_commit_sha`, `prompts` (required, empty: Baton writes no legacy records), `sessions` and
 * `humans`. Lines of unknown origin are not attested: git-ai reads an unattested line as untracked.
 */
export function toGitAiLog(attribution: CommitAttribution, authorIdentity: string): string {
	const sessions: Record<string, unknown> = {};
	const humans: Record<string, unknown> = {};
	const lines: string[] = [];
	for (const file of attribution.files) {
		const byKey = new Map<string, string[]>();
		for (const range of file.ranges) {
			let key: string;
			if (range.origin === 'agent') {
				const tool = (range.agent && Object.hasOwn(gitAiTools, range.agent) ? gitAiTools[range.agent] : range.agent) ?? 'unknown';
				const conversation = range.session ?? '';
				const session = `s_${hash14(`${tool}:${conversation}`)}`;
				key = `${session}::t_${hash14(`${conversation}:${range.turn ?? ''}:${range.step ?? ''}`)}`;
				sessions[session] = { agent_id: { tool, id: conversation, model: range.model ?? 'unknown' } };
			} else if (range.origin === 'human') {
				key = `h_${hash14(authorIdentity)}`;
				humans[key] = { author: authorIdentity };
			} else {
				continue;
			}
			byKey.set(key, [...(byKey.get(key) ?? []), range.start === range.end ? `${range.start}` : `${range.start}-${range.end}`]);
		}
		if (byKey.size > 0) {
			pushAll(lines, [attestedPath(file.path), ...[...byKey].map(([key, ranges]) => `  ${key} ${ranges.join(',')}`)]);
		}
	}
	const meta = { schema_version: 'authorship/3.0.0', base_commit_sha: attribution.commit, prompts: {}, sessions, humans };
	return `${lines.join('\n')}\n---\n${JSON.stringify(meta, null, 2)}\n`;
}

export function fromGitAiLog(commit: string, text: string, where: string): ImportedAttribution {
	const split = text.split(/\r?\n---\r?\n/);
	if (split.length < 2) {
		throw new Error(`${where}: not a git-ai authorship log (no "---" line between the attestations and the JSON)`);
	}
	type Described = { agent_id?: { tool?: unknown; id?: unknown; model?: unknown }; human_author?: unknown; author?: unknown };
	let meta: { schema_version?: unknown; sessions?: Record<string, Described>; prompts?: Record<string, Described>; humans?: Record<string, Described> };
	try {
		meta = JSON.parse(split.slice(1).join('\n---\n')) as typeof meta;
	} catch (error) {
		throw new Error(`${where}: the authorship log's JSON does not parse (${(error as Error).message})`, { cause: error });
	}
	const warnings: string[] = [];
	if (typeof meta.schema_version === 'string' && !meta.schema_version.startsWith('authorship/3.')) {
		warnings.push(`${where}: schema ${meta.schema_version} is newer than authorship/3.x; read as 3.x`);
	}
	const files: FileAttribution[] = [];
	let current: FileAttribution | undefined;
	for (const line of (split[0] ?? '').split(/\r?\n/)) {
		if (!line.trim()) {
			continue;
		}
		if (!/^\s/.test(line)) {
			// A path with a space, a tab or a newline is quoted (the standard's §1.2.3).
			const quoted = /^"(.*)"\s*$/.exec(line);
			current = { path: quoted ? (quoted[1] as string) : line.trim(), blob: '', ranges: [] };
			files.push(current);
			continue;
		}
		const match = /^\s+(\S+)\s+([\d,\s-]+)$/.exec(line);
		if (!match || !current) {
			throw new Error(`${where}: malformed attestation line ${JSON.stringify(line)}`);
		}
		const id = match[1]!;
		// The key's prefix says where it is described: `s_` in sessions, `h_` in humans, a bare hash in the legacy prompts.
		const look = (map: Record<string, Described> | undefined, key: string): Described | undefined =>
			map && typeof map === 'object' && Object.hasOwn(map, key) ? map[key] : undefined;
		const entry = id.startsWith('s_')
			? (look(meta.sessions, id.split('::')[0] ?? '') ?? look(meta.sessions, id))
			: id.startsWith('h_')
				? (look(meta.humans, id) ?? look(meta.sessions, id))
				: (look(meta.prompts, id) ?? look(meta.sessions, id));
		const agent = entry?.agent_id;
		const origin: LineOrigin = agent
			? {
					...unknownOrigin,
					origin: 'agent',
					agent: typeof agent.tool === 'string' ? agent.tool : null,
					model: typeof agent.model === 'string' ? agent.model : null,
				}
			: id.startsWith('h_') || entry?.human_author !== undefined
				? { ...unknownOrigin, origin: 'human' }
				: unknownOrigin;
		if (!entry) {
			warnings.push(
				`${where}: ${id} is not described in the log's ${id.startsWith('s_') ? 'sessions' : id.startsWith('h_') ? 'humans' : 'prompts'}; its lines are ${origin.origin}`,
			);
		}
		for (const part of match[2]!
			.split(',')
			.map((p) => p.trim())
			.filter(Boolean)) {
			const [a, b] = part.split('-').map(Number);
			const start = a!;
			const end = b ?? a!;
			if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || end < start) {
				throw new Error(`${where}: malformed range ${JSON.stringify(part)}`);
			}
			current.ranges.push({ ...origin, start, end });
		}
	}
	for (const file of files) {
		file.ranges.sort((x, y) => x.start - y.start);
	}
	return { attribution: { commit, files, patchId: null }, warnings };
}
