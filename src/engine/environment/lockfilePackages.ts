/**
 * Package versions declared by the lockfiles at the workspace root: name → version, bounded
 * (`maxPackages` per file) so an environment snapshot stays a few kilobytes. For npm, pnpm and yarn
 * only the project's direct dependencies are listed (their resolved versions); for the others the
 * lockfile's own list. Parsing is line-based and forgiving: a format it does not know yields fewer
 * packages, never an error.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface PackageSet {
	manager: string;
	packages: Record<string, string>;
	truncated: boolean;
}

const maxPackages = 500;

/** Parsed lockfiles by path, with the fingerprint they were read at (the environment cache). */
interface LockfileCache {
	lockfile(file: string, key: string): { value: PackageSet | null } | undefined;
	setLockfile(file: string, key: string, value: PackageSet | null): void;
}

/** Lockfiles Baton reads, relative to the workspace root. `requirements*.txt` are found by name. */
const lockfileNames = ['package-lock.json', 'pnpm-lock.yaml', 'yarn.lock', 'poetry.lock', 'Cargo.lock', 'go.sum'];

export function readLockfiles(root: string, cache: LockfileCache): { sets: Record<string, PackageSet>; problems: string[] } {
	const sets: Record<string, PackageSet> = {};
	const problems: string[] = [];
	let names: string[];
	try {
		names = fs.readdirSync(root).filter((n) => lockfileNames.includes(n) || /^requirements.*\.txt$/.test(n));
	} catch {
		return { sets, problems };
	}
	const direct = directDependencies(root);
	for (const name of names.sort()) {
		const file = path.join(root, name);
		try {
			const stat = fs.statSync(file);
			if (!stat.isFile() || stat.size > 64 * 1024 * 1024) {
				continue;
			}
			// The direct dependencies choose what is listed: they are part of the key.
			const key = `${stat.size}:${stat.mtimeMs}:${stat.ino}:${direct ? [...direct].sort().join(',') : '-'}`;
			const hit = cache.lockfile(file, key);
			const value = hit ? hit.value : parseLockfile(name, fs.readFileSync(file, 'utf8'), direct);
			cache.setLockfile(file, key, value);
			if (value) {
				sets[name] = value;
			}
		} catch (error) {
			problems.push(`lockfile ${name}: ${(error as Error).message}`);
		}
	}
	return { sets, problems };
}

export function parseLockfile(name: string, text: string, direct: Set<string> | null): PackageSet | null {
	if (name === 'package-lock.json') return npmLock(text, direct);
	if (name === 'pnpm-lock.yaml') return pnpmLock(text, direct);
	if (name === 'yarn.lock') return yarnLock(text, direct);
	if (name === 'poetry.lock') return tomlPackages('poetry', text);
	if (name === 'Cargo.lock') return tomlPackages('cargo', text);
	if (name === 'go.sum') return goSum(text);
	if (/^requirements.*\.txt$/.test(name)) return requirements(text);
	return null;
}

/** Names in package.json's dependencies and devDependencies, or null without a package.json. */
function directDependencies(root: string): Set<string> | null {
	try {
		const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
		const names = new Set<string>();
		for (const field of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
			const deps = pkg[field];
			if (deps && typeof deps === 'object') {
				Object.keys(deps).forEach((n) => names.add(n));
			}
		}
		return names;
	} catch {
		return null;
	}
}

function bounded(manager: string, entries: Iterable<[string, string]>): PackageSet {
	const packages: Record<string, string> = {};
	let count = 0;
	let truncated = false;
	for (const [name, version] of entries) {
		if (name in packages) {
			continue;
		}
		if (count >= maxPackages) {
			truncated = true;
			break;
		}
		packages[name] = version;
		count++;
	}
	return { manager, packages: sortKeys(packages), truncated };
}

function npmLock(text: string, direct: Set<string> | null): PackageSet {
	const lock = JSON.parse(text) as { packages?: Record<string, { version?: string }>; dependencies?: Record<string, { version?: string }> };
	const out: [string, string][] = [];
	if (lock.packages) {
		for (const [key, value] of Object.entries(lock.packages)) {
			// Only top-level installs: `node_modules/a`, `node_modules/@s/b` (not nested copies).
			const match = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(key);
			if (match?.[1] && value.version && (!direct || direct.has(match[1]))) {
				out.push([match[1], value.version]);
			}
		}
	} else if (lock.dependencies) {
		for (const [name, value] of Object.entries(lock.dependencies)) {
			if (value.version && (!direct || direct.has(name))) {
				out.push([name, value.version]);
			}
		}
	}
	return bounded('npm', out);
}

/** pnpm v6–v9: `importers: '.': dependencies: name: {version}`; v5: top-level `dependencies: name: version`. */
function pnpmLock(text: string, direct: Set<string> | null): PackageSet {
	const doc = blockYaml(text, ['packages', 'snapshots']);
	const out: [string, string][] = [];
	const importers = asRecord(doc['importers']);
	const root = asRecord(importers?.['.']) ?? doc;
	for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
		for (const [name, value] of Object.entries(asRecord(root[field]) ?? {})) {
			const version = typeof value === 'string' ? value : asRecord(value)?.['version'];
			if (typeof version === 'string' && version) {
				out.push([name, version.replace(/\(.*$/, '')]);
			}
		}
	}
	return bounded('pnpm', direct ? out.filter(([n]) => direct.has(n)) : out);
}

type YamlNode = { [key: string]: YamlNode | string };

/**
 * The block-mapping subset of YAML that lockfiles use (`key:` / `key: value`, nesting by indent).
 * Top-level keys in `stopAt` end the parse: pnpm's long package sections are not needed.
 */
function blockYaml(text: string, stopAt: readonly string[]): YamlNode {
	const rootNode: YamlNode = {};
	const stack: { indent: number; node: YamlNode }[] = [{ indent: -1, node: rootNode }];
	for (const line of text.split(/\r?\n/)) {
		const trimmed = line.trim();
		if (!trimmed || trimmed.startsWith('#') || trimmed.startsWith('- ')) continue;
		const indent = line.length - line.trimStart().length;
		const match = /^(['"]?)(.+?)\1:(?:\s+(.*))?$/.exec(trimmed);
		if (!match) continue;
		const key = match[2] as string;
		if (indent === 0 && stopAt.includes(key)) break;
		while (stack.length > 1 && (stack[stack.length - 1] as { indent: number }).indent >= indent) stack.pop();
		const parent = (stack[stack.length - 1] as { node: YamlNode }).node;
		const value = match[3]?.trim();
		if (value && value !== '{}') {
			parent[key] = value.replace(/^['"]|['"]$/g, '');
		} else {
			const child: YamlNode = {};
			parent[key] = child;
			stack.push({ indent, node: child });
		}
	}
	return rootNode;
}

function asRecord(value: unknown): YamlNode | undefined {
	return value && typeof value === 'object' ? (value as YamlNode) : undefined;
}

/** yarn v1 (`"a@^1", a@^1.1:` + `  version "1.2.3"`) and berry (`"a@npm:^1":` + `  version: 1.2.3`). */
function yarnLock(text: string, direct: Set<string> | null): PackageSet {
	const out: [string, string][] = [];
	let names: string[] = [];
	for (const line of text.split(/\r?\n/)) {
		if (!line.trim() || line.startsWith('#')) continue;
		if (!line.startsWith(' ') && line.trimEnd().endsWith(':')) {
			names = line
				.trimEnd()
				.slice(0, -1)
				.split(/,\s*/)
				.map((spec) => spec.replace(/^"|"$/g, ''))
				.map((spec) => spec.slice(0, spec.indexOf('@', 1) > 0 ? spec.indexOf('@', 1) : spec.length))
				.filter((n) => n && n !== '__metadata');
			continue;
		}
		const version = /^\s{2}version:?\s+"?([^"\s]+)"?/.exec(line)?.[1];
		if (version) {
			for (const name of new Set(names)) {
				if (!direct || direct.has(name)) out.push([name, version]);
			}
			names = [];
		}
	}
	return bounded('yarn', out);
}

/** `[[package]]` tables with `name = "…"` and `version = "…"` (poetry.lock, Cargo.lock). */
function tomlPackages(manager: string, text: string): PackageSet {
	const out: [string, string][] = [];
	let name: string | null = null;
	for (const line of text.split(/\r?\n/)) {
		if (line.startsWith('[')) {
			name = null;
			continue;
		}
		const match = /^(name|version)\s*=\s*"([^"]*)"/.exec(line);
		if (match?.[1] === 'name') {
			name = match[2] ?? null;
		} else if (match?.[1] === 'version' && name) {
			out.push([name, match[2] ?? '']);
			name = null;
		}
	}
	return bounded(manager, out);
}

function goSum(text: string): PackageSet {
	const versions = new Map<string, string>();
	for (const line of text.split(/\r?\n/)) {
		const [module, version] = line.trim().split(/\s+/);
		if (module && version && !version.endsWith('/go.mod')) {
			versions.set(module, version);
		}
	}
	return bounded('go', versions);
}

function requirements(text: string): PackageSet {
	const out: [string, string][] = [];
	for (const raw of text.split(/\r?\n/)) {
		const line = raw.replace(/\s+#.*$/, '').trim();
		if (!line || line.startsWith('#') || line.startsWith('-')) continue;
		const match = /^([A-Za-z0-9._-]+)(?:\[[^\]]*\])?\s*(===|==|~=|>=|<=|!=|>|<)?\s*([^;\s]*)/.exec(line);
		if (match?.[1]) {
			out.push([
				match[1].toLowerCase().replace(/_/g, '-'),
				match[2] ? `${match[2] === '==' || match[2] === '===' ? '' : match[2]}${match[3] ?? ''}` : '*',
			]);
		}
	}
	return bounded('pip', out);
}

function sortKeys(record: Record<string, string>): Record<string, string> {
	return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
