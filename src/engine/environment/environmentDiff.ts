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

/** Something one side could not observe: neither added nor removed, just not compared. */
interface NotCompared {
	category: EnvironmentCategory;
	/** null: the whole category. */
	key: string | null;
	reason: string;
}

export type EnvironmentDiff = Record<EnvironmentCategory, CategoryDiff> & {
	/** False when nothing differs (or neither side has a snapshot). */
	changed: boolean;
	/** Set when a side has no snapshot (taken before capture existed, or capture was skipped). */
	note: string | null;
	/**
	 * What only one side observed: a checkpoint taken by the CLI sees no editor, a probe that failed
	 * or ran late saw nothing. Comparing like with like, these are unknown, not removed or added.
	 */
	notCompared: NotCompared[];
};

function flattenEnvironment(env: EnvironmentSnapshot | null): Record<EnvironmentCategory, Record<string, string>> {
	const out: Record<EnvironmentCategory, Record<string, string>> = {
		agents: {},
		vscode: {},
		extensions: {},
		mcpServers: {},
		runtimes: {},
		packages: {},
		git: {},
	};
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

export function diffEnvironments(fromSnapshot: EnvironmentSnapshot | null, toSnapshot: EnvironmentSnapshot | null): EnvironmentDiff {
	// A pending environment (capture still running, or never finished) is no snapshot to compare.
	const from = fromSnapshot?.pending ? null : fromSnapshot;
	const to = toSnapshot?.pending ? null : toSnapshot;
	// Without both sides there is nothing to compare: everything would look added or removed.
	const a = flattenEnvironment(from && to ? from : null);
	const b = flattenEnvironment(from && to ? to : null);
	let changed = false;
	const result = { changed: false, note: null as string | null, notCompared: [] as NotCompared[] } as EnvironmentDiff;
	const sides = from && to ? ([from, to] as const) : null;
	const blind = sides ? blindCategories(sides[0], sides[1]) : new Map<EnvironmentCategory, string>();
	for (const [category, reason] of blind) {
		result.notCompared.push({ category, key: null, reason });
	}
	for (const category of environmentCategories) {
		const diff: CategoryDiff = { added: [], removed: [], changed: [] };
		result[category] = diff;
		if (blind.has(category)) continue;
		const left = a[category];
		const right = b[category];
		/** A key only one side has is unknown when the other side tried to look and could not. */
		const unseen = (key: string, by: EnvironmentSnapshot | undefined, side: string): boolean => {
			const reason = by ? probeFailure(by, category, key) : undefined;
			if (reason !== undefined) result.notCompared.push({ category, key, reason: `not observed by the ${side} side (${reason})` });
			return reason !== undefined;
		};
		for (const key of Object.keys(right).sort()) {
			if (!(key in left)) {
				if (!unseen(key, sides?.[0], 'first')) diff.added.push({ key, value: right[key] as string });
			} else if (left[key] !== right[key]) diff.changed.push({ key, from: left[key] as string, to: right[key] as string });
		}
		for (const key of Object.keys(left).sort()) {
			if (!(key in right) && !unseen(key, sides?.[1], 'second')) diff.removed.push({ key, value: left[key] as string });
		}
		changed ||= diff.added.length + diff.removed.length + diff.changed.length > 0;
	}
	result.changed = changed && !!from && !!to;
	result.note = !from || !to ? missingNote(!from ? fromSnapshot : toSnapshot, !from ? 'first' : 'second') : null;
	return result;
}

function missingNote(side: EnvironmentSnapshot | null, which: string): string {
	return side?.pending
		? `the environment of the ${which} side is not captured yet, or its capture never finished (${side.unknown[0] ?? 'pending'})`
		: `no environment snapshot for the ${which} side`;
}

/** Whole categories one side could not see: the editor (a checkpoint taken by the CLI or a hook) and git. */
function blindCategories(from: EnvironmentSnapshot, to: EnvironmentSnapshot): Map<EnvironmentCategory, string> {
	const blind = new Map<EnvironmentCategory, string>();
	const side = (missingFrom: boolean): string => (missingFrom ? 'the first side' : 'the second side');
	if (!from.vscode !== !to.vscode) {
		const reason = `${side(!from.vscode)} was taken outside VS Code, which it could not observe`;
		blind.set('vscode', reason);
		blind.set('extensions', reason);
	}
	if (!from.git !== !to.git) {
		blind.set('git', `${side(!from.git)} could not read the git state`);
	}
	return blind;
}

/** Why a snapshot has no value for `key` although it looked for one (its probe failed or ran late); undefined when it simply is not there. */
function probeFailure(env: EnvironmentSnapshot, category: EnvironmentCategory, key: string): string | undefined {
	const name = key.split('.')[0] ?? key;
	const prefix = category === 'runtimes' ? `runtime ${key}:` : category === 'agents' ? `agent ${name} ` : undefined;
	if (prefix) {
		const failure = env.unknown.find((u) => u.startsWith(prefix));
		if (failure) return failure;
	}
	// An agent found on both sides whose version or hash one side could not read.
	if (category === 'agents' && env.agents[name]) return `${name} found, its ${key.slice(name.length + 1) || 'details'} unread`;
	return undefined;
}
