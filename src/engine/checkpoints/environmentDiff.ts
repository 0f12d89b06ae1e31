/**
 * What changed in the environment between two checkpoints: per category, the entries added,
 * removed and changed. Snapshots are flattened to `key → value` strings first, so every category
 * diffs the same way and the result reads well in JSON and in the comparison view.
 */
import type { EnvironmentSnapshot } from '../storage/jsonShapes';

export const environmentCategories = ['agents', 'vscode', 'extensions', 'mcpServers', 'runtimes', 'packages', 'git'] as const;
export type EnvironmentCategory = (typeof environmentCategories)[number];

export interface CategoryDiff {
	added: { key: string; value: string }[];
	removed: { key: string; value: string }[];
	changed: { key: string; from: string; to: string }[];
}

export type EnvironmentDiff = Record<EnvironmentCategory, CategoryDiff> & {
	/** False when nothing differs (or neither side has a snapshot). */
	changed: boolean;
	/** Set when a side has no snapshot (taken before capture existed, or capture was skipped). */
	note: string | null;
};

export function flattenEnvironment(env: EnvironmentSnapshot | null): Record<EnvironmentCategory, Record<string, string>> {
	const out: Record<EnvironmentCategory, Record<string, string>> = { agents: {}, vscode: {}, extensions: {}, mcpServers: {}, runtimes: {}, packages: {}, git: {} };
	if (!env) return out;
	for (const [name, agent] of Object.entries(env.agents)) {
		if (agent.version) out.agents[`${name}.version`] = agent.version;
		if (agent.binaryHash) out.agents[`${name}.binaryHash`] = agent.binaryHash;
		if (agent.path) out.agents[`${name}.path`] = agent.path;
	}
	if (env.vscode) {
		if (env.vscode.version) out.vscode['version'] = env.vscode.version;
		Object.assign(out.extensions, env.vscode.extensions);
	}
	for (const [name, server] of Object.entries(env.mcpServers)) {
		const what = server.command ? [server.command, ...server.args].join(' ') : (server.url ?? server.type ?? '?');
		out.mcpServers[name] = `${what} [${server.configHash.replace(/^sha256:/, '').slice(0, 12)}]`;
	}
	Object.assign(out.runtimes, env.runtimes);
	for (const [file, set] of Object.entries(env.packages)) {
		for (const [pkg, version] of Object.entries(set.packages)) out.packages[`${file}:${pkg}`] = version;
	}
	if (env.git) {
		out.git['branch'] = env.git.branch ?? '(detached)';
		out.git['head'] = env.git.head ?? '(none)';
		out.git['changedFiles'] = String(env.git.changedFiles);
		out.git['untrackedFiles'] = String(env.git.untrackedFiles);
	}
	return out;
}

export function diffEnvironments(from: EnvironmentSnapshot | null, to: EnvironmentSnapshot | null): EnvironmentDiff {
	// Without both sides there is nothing to compare: everything would look added or removed.
	const a = flattenEnvironment(from && to ? from : null);
	const b = flattenEnvironment(from && to ? to : null);
	let changed = false;
	const result = { changed: false, note: null as string | null } as EnvironmentDiff;
	for (const category of environmentCategories) {
		const diff: CategoryDiff = { added: [], removed: [], changed: [] };
		const left = a[category];
		const right = b[category];
		for (const key of Object.keys(right).sort()) {
			if (!(key in left)) diff.added.push({ key, value: right[key] as string });
			else if (left[key] !== right[key]) diff.changed.push({ key, from: left[key] as string, to: right[key] as string });
		}
		for (const key of Object.keys(left).sort()) {
			if (!(key in right)) diff.removed.push({ key, value: left[key] as string });
		}
		changed ||= diff.added.length + diff.removed.length + diff.changed.length > 0;
		result[category] = diff;
	}
	result.changed = changed && !!from && !!to;
	result.note = !from || !to ? `no environment snapshot for the ${!from ? 'first' : 'second'} side` : null;
	return result;
}
