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

const hash14 = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 14);

/** Agent Trace conversation url for a Baton session (and turn). */
const sessionUrl = (origin: LineOrigin): string | undefined => (origin.session ? `baton:session/${origin.session}${origin.turn !== null ? `#turn=${encodeURIComponent(origin.turn)}` : ''}` : undefined);

export function toAgentTrace(attribution: CommitAttribution, at: string): Record<string, unknown> {
	return {
		version: '0.1.0',
		id: hash14(`baton:${attribution.commit}`),
		timestamp: at,
		vcs: { type: 'git', revision: attribution.commit },
		tool: { name: 'baton' },
		files: attribution.files.map((file) => {
			const groups = new Map<string, { origin: LineOrigin; ranges: { start_line: number; end_line: number }[] }>();
			for (const range of file.ranges) {
				const key = `${range.origin}\u0000${range.session ?? ''}\u0000${range.turn ?? ''}`;
				const group = groups.get(key) ?? { origin: range, ranges: [] };
				group.ranges.push({ start_line: range.start, end_line: range.end });
				groups.set(key, group);
			}
			return {
				path: file.path,
				conversations: [...groups.values()].map(({ origin, ranges }) => ({
					...(sessionUrl(origin) ? { url: sessionUrl(origin) } : {}),
					contributor: { type: origin.origin === 'agent' ? 'ai' : origin.origin, ...(origin.model ? { model_id: origin.model } : {}) },
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
			const origin: LineOrigin = { ...unknownOrigin, origin: type === 'ai' ? 'agent' : type === 'human' ? 'human' : 'unknown', model: typeof conv?.contributor?.model_id === 'string' ? conv.contributor.model_id : null };
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

/** git-ai's authorship log text for one commit. */
export function toGitAiLog(attribution: CommitAttribution): string {
	const sessions: Record<string, unknown> = {};
	const lines: string[] = [];
	for (const file of attribution.files) {
		const byHash = new Map<string, string[]>();
		for (const range of file.ranges) {
			let id: string;
			if (range.origin === 'agent') {
				id = `s_${hash14(`${range.agent ?? 'agent'}:${range.session ?? ''}`)}::t_${hash14(`${range.session ?? ''}:${range.turn ?? ''}`)}`;
				sessions[id] = { agent_id: { tool: range.agent ?? 'agent', id: range.session ?? '', model: range.model ?? 'unknown' } };
			} else if (range.origin === 'human') {
				id = `h_${hash14('human')}`;
				sessions[id] = { human_author: 'human' };
			} else {
				continue;
			}
			byHash.set(id, [...(byHash.get(id) ?? []), range.start === range.end ? `${range.start}` : `${range.start}-${range.end}`]);
		}
		if (byHash.size > 0) {
			pushAll(lines, [file.path, ...[...byHash].map(([id, ranges]) => `  ${id} ${ranges.join(',')}`)]);
		}
	}
	return `${lines.join('\n')}\n---\n${JSON.stringify({ schema_version: 'authorship/3.0.0', base_commit_sha: attribution.commit, sessions }, null, 2)}\n`;
}

export function fromGitAiLog(commit: string, text: string, where: string): ImportedAttribution {
	const split = text.split(/\r?\n---\r?\n/);
	if (split.length < 2) {
		throw new Error(`${where}: not a git-ai authorship log (no "---" line between the attestations and the JSON)`);
	}
	let meta: { schema_version?: unknown; sessions?: Record<string, { agent_id?: { tool?: unknown; id?: unknown; model?: unknown }; human_author?: unknown }> };
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
			current = { path: line.trim(), blob: '', ranges: [] };
			files.push(current);
			continue;
		}
		const match = /^\s+(\S+)\s+([\d,\s-]+)$/.exec(line);
		if (!match || !current) {
			throw new Error(`${where}: malformed attestation line ${JSON.stringify(line)}`);
		}
		const id = match[1]!;
		const entry = meta.sessions?.[id] ?? meta.sessions?.[id.split('::')[0] ?? ''];
		const agent = entry?.agent_id;
		const origin: LineOrigin = agent
			? { ...unknownOrigin, origin: 'agent', agent: typeof agent.tool === 'string' ? agent.tool : null, model: typeof agent.model === 'string' ? agent.model : null }
			: id.startsWith('h_') || entry?.human_author !== undefined
				? { ...unknownOrigin, origin: 'human' }
				: unknownOrigin;
		if (!entry) {
			warnings.push(`${where}: ${id} is not described in the log's sessions; its lines are ${origin.origin}`);
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
