/**
 * The comparison view's arithmetic and wording, without the DOM (unit-tested in node, like graphLayout.ts).
 */
import type { FileChangeDto } from '../src/protocol/checkpointDto';

/** Git modes worth naming. */
const modeNames: Record<string, string> = {
	'100644': 'regular file',
	'100755': 'executable',
	'120000': 'symlink',
	'160000': 'submodule',
	'040000': 'directory',
};

export interface FileCounts {
	added: number;
	modified: number;
	deleted: number;
	linesAdded: number;
	linesRemoved: number;
	binary: number;
}

/** One pass over the files. */
export function countFiles(files: readonly FileChangeDto[]): FileCounts {
	const counts: FileCounts = { added: 0, modified: 0, deleted: 0, linesAdded: 0, linesRemoved: 0, binary: 0 };
	for (const f of files) {
		if (f.change === 'added') counts.added++;
		else if (f.change === 'deleted') counts.deleted++;
		else counts.modified++;
		if (f.binary) counts.binary++;
		counts.linesAdded += f.additions ?? 0;
		counts.linesRemoved += f.deletions ?? 0;
	}
	return counts;
}

/** "100644 → 100755" for a mode change; "symlink" or "executable" for a file that is one; null for plain files. */
export function modeChange(f: Pick<FileChangeDto, 'oldMode' | 'newMode'>): { text: string; spoken: string; notable: boolean } | null {
	const name = (mode: string): string => modeNames[mode] ?? `mode ${mode}`;
	if (f.oldMode && f.newMode && f.oldMode !== f.newMode) {
		return { text: `${f.oldMode} → ${f.newMode}`, spoken: `mode changed from ${name(f.oldMode)} to ${name(f.newMode)}`, notable: true };
	}
	const mode = f.newMode ?? f.oldMode;
	if (mode && mode !== '100644') {
		return { text: modeNames[mode] ?? mode, spoken: name(mode), notable: false };
	}
	return null;
}

const integer = new Intl.NumberFormat('en-US');

/** 4812 → "4,812". */
export function formatCount(value: number): string {
	return integer.format(value);
}

/** 73400320 → "70 MB"; binary units, as git and file managers count. */
export function formatBytes(bytes: number): string {
	const units = ['B', 'KB', 'MB', 'GB', 'TB'];
	let value = Math.max(0, bytes);
	let unit = 0;
	while (value >= 1024 && unit < units.length - 1) {
		value /= 1024;
		unit++;
	}
	return `${unit === 0 || value >= 10 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

const gitKeys: Readonly<Record<string, string>> = {
	branch: 'Branch',
	head: 'Commit (HEAD)',
	changedFiles: 'Uncommitted files',
	untrackedFiles: 'Untracked files',
};
const agentFields: Readonly<Record<string, string>> = { version: 'version', binaryHash: 'binary (hash)', path: 'path' };
const agentNames: Readonly<Record<string, string>> = { 'claude-code': 'Claude Code', copilot: 'Copilot', cline: 'Cline', codex: 'Codex', gemini: 'Gemini CLI' };

/**
 * An environment key as a person reads it: `untrackedFiles` → "Untracked files", `claude-code.version`
 * → "Claude Code version", `package-lock.json:express` → "express (package-lock.json)". Names that
 * are already a person's (an extension id, a runtime, an MCP server) stay as they are; the view keeps
 * the raw key in the hover.
 */
export function environmentKeyLabel(category: string, key: string): string {
	if (category === 'git' && Object.hasOwn(gitKeys, key)) {
		return gitKeys[key] as string;
	}
	if (category === 'vscode' && key === 'version') {
		return 'Version';
	}
	if (category === 'agents') {
		const dot = key.lastIndexOf('.');
		const agent = dot > 0 ? key.slice(0, dot) : key;
		const field = dot > 0 ? key.slice(dot + 1) : '';
		const name = Object.hasOwn(agentNames, agent) ? (agentNames[agent] as string) : agent;
		return field && Object.hasOwn(agentFields, field) ? `${name} ${agentFields[field] as string}` : name;
	}
	if (category === 'packages') {
		// `file:package`; a scoped package's name holds no colon, so the first one ends the file.
		const colon = key.indexOf(':');
		return colon > 0 ? `${key.slice(colon + 1)} (${key.slice(0, colon)})` : key;
	}
	return key;
}
