/**
 * docs/architecture.md §2, enforced: which layer may import what. Every import in src/ and webview/ is checked
 * against its layer's allowlist, so a stray `import 'vscode'` in the engine fails here, not in review.
 * Inside the engine, every room (a folder, or a file at its top) has a rank and imports only rooms
 * ranked below it, so nothing reaches up and no cycle between rooms can form.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const root = path.resolve(__dirname, '../..');

type Layer = 'protocol' | 'engine' | 'hookHost' | 'server' | 'cli' | 'extension' | 'webview' | 'ui';

interface Rule {
	/** Other layers it may import. */
	layers: Layer[];
	/** Packages (bare specifiers, matched by name or name/subpath). */
	packages: string[];
	nodeBuiltins: boolean;
	/** Files outside the layers it may import (relative to the repo root). */
	files?: string[];
}

/**
 * The engine files that declare what crosses the wire (stored records, JSON columns, comparison and
 * rollback results). The protocol may import these, with `import type` only: type imports are erased,
 * so the extension's and the webviews' bundles never hold engine code, drizzle or sql.js. They must
 * stay leaves (importing only each other, zod and drizzle's types) so that type-checking a webview
 * never loads Node or the rest of the engine either.
 */
export const shapeFiles = [
	'src/engine/storage/records.ts',
	'src/engine/storage/schema.ts',
	'src/engine/storage/jsonShapes.ts',
	'src/engine/checkpoints/checkpointShapes.ts',
	'src/engine/environment/environmentDiff.ts',
	'src/engine/shadow/shadowShapes.ts',
	'src/engine/sessions/sessionShapes.ts',
	'src/engine/tasks/taskShapes.ts',
	'src/engine/interop/importTypes.ts',
	'src/engine/agentKinds.ts',
	'src/engine/agentConfig/agentConfigShapes.ts',
	'src/engine/sync/syncShapes.ts',
	'src/engine/timeline/timelineShapes.ts',
	'src/engine/provenance/provenanceShapes.ts',
	'src/engine/agentHistory/historyShapes.ts',
	'src/engine/search/searchShapes.ts',
	'src/engine/board/boardShapes.ts',
];
const shapePackages = ['zod', 'drizzle-orm'];

/**
 * Engine files that import nothing at all, which the protocol may import as values and so hand to
 * every layer: the one function that shows stored control characters escaped (docs/architecture.md
 * §2, "Stored text is shown, never obeyed") serves the engine's markdown, the CLI, the editor and
 * the webviews alike; the agents' and actors' names people read (agentKinds.ts, text/actorNames.ts) likewise. Importing nothing, they bring no Node, drizzle or other engine code along.
 */
export const pureLeaves = ['src/engine/text/controlChars.ts', 'src/engine/text/actorNames.ts', 'src/engine/agentKinds.ts'];

const rules: Record<Layer, Rule> = {
	protocol: { layers: [], packages: ['zod', 'vscode-jsonrpc'], nodeBuiltins: false },
	// nodemailer: the email notification channel (an SMTP client; the engine's channels serve both the server and the CLI).
	engine: { layers: [], packages: ['zod', 'drizzle-orm', 'drizzle-zod', 'sql.js', 'nodemailer'], nodeBuiltins: true },
	// The hook host: the process plumbing around the engine's hook runtime (stdin, budgets, the spool, exactly once,
	// the engine a process lends) and the CLI bundle's interface, which both the CLI and the daemon use.
	hookHost: { layers: ['engine'], packages: [], nodeBuiltins: true },
	server: { layers: ['engine', 'protocol', 'hookHost'], packages: ['vscode-jsonrpc/node', 'zod'], nodeBuiltins: true },
	cli: { layers: ['engine', 'protocol', 'hookHost'], packages: ['zod', '@modelcontextprotocol/sdk'], nodeBuiltins: true, files: ['package.json'] },
	extension: { layers: ['protocol', 'ui'], packages: ['vscode', 'vscode-jsonrpc/node', 'zod'], nodeBuiltins: true, files: ['package.json'] },
	webview: { layers: ['protocol', 'ui'], packages: ['@vscode-elements/elements', 'zod'], nodeBuiltins: false },
	// What the extension and the webviews both draw (a Replay row as the first screen's HTML and as the
	// page's DOM, the page's stylesheet): browser-safe, so no Node, no editor, no engine.
	ui: { layers: ['protocol'], packages: [], nodeBuiltins: false },
};

function layerOf(file: string): Layer | undefined {
	const rel = path.relative(root, file).split(path.sep);
	if (rel[0] === 'webview') {
		return 'webview';
	}
	if (rel[0] === 'src' && rel[1] && rel[1] in rules) {
		return rel[1] as Layer;
	}
	return undefined;
}

function sourceFiles(dir: string): string[] {
	return (fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) {
			return entry.name === 'node_modules' ? [] : sourceFiles(full);
		}
		return /\.(ts|tsx|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
	});
}

const importPattern = /(?:import|export)\s+(type\s+)?(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]|(?:require|import)\(\s*['"]([^'"]+)['"]\s*\)/g;

interface ImportOf {
	specifier: string;
	/** `import type …` / `export type … from`: erased from the bundle (inline `{ type X }` does not count). */
	typeOnly: boolean;
}

export function importStatementsOf(text: string): ImportOf[] {
	const out: ImportOf[] = [];
	for (const match of text.matchAll(importPattern)) {
		out.push({ specifier: (match[2] ?? match[3]) as string, typeOnly: match[1] !== undefined });
	}
	return out;
}

export function importsOf(text: string): string[] {
	return importStatementsOf(text).map((i) => i.specifier);
}

/** The repo-relative `.ts` file a relative specifier names. */
function resolveRelative(file: string, specifier: string): string {
	const target = path.resolve(path.dirname(file), specifier);
	return path
		.relative(root, target.endsWith('.ts') ? target : `${target}.ts`)
		.split(path.sep)
		.join('/');
}

/** Imports one named file may make against its layer's rule (docs/architecture.md §2: the CLI built into dist/server.js). */
// The second: the editor reads the daemon's endpoint file as the CLI and the daemon do, with an import-free engine file.
const crossings = new Set(['src/server/bundledCli.ts > src/cli/main.ts', 'src/extension/daemonSocket.ts > src/engine/ownFiles.ts']);

function violation(file: string, specifier: string, typeOnly = false): string | undefined {
	const layer = layerOf(file) as Layer;
	const rule = rules[layer];
	if (specifier.startsWith('.')) {
		const target = path.resolve(path.dirname(file), specifier);
		const targetLayer = layerOf(target.endsWith('.ts') ? target : `${target}.ts`) ?? layerOf(target);
		if (targetLayer === layer) {
			return undefined;
		}
		if (layer === 'protocol' && targetLayer === 'engine') {
			if (pureLeaves.includes(resolveRelative(file, specifier))) {
				return undefined;
			}
			if (!shapeFiles.includes(resolveRelative(file, specifier))) {
				return `protocol may import only the engine's shape files (${specifier})`;
			}
			return typeOnly ? undefined : `protocol may import the engine's shape files with \`import type\` only (${specifier})`;
		}
		if (targetLayer) {
			const crossing = crossings.has(`${path.relative(root, file).split(path.sep).join('/')} > ${resolveRelative(file, specifier)}`);
			return rule.layers.includes(targetLayer) || crossing ? undefined : `${layer} may not import ${targetLayer} (${specifier})`;
		}
		const rel = path.relative(root, target);
		return rule.files?.includes(rel) ? undefined : `${layer} may not import ${rel}`;
	}
	if (specifier.startsWith('node:')) {
		return rule.nodeBuiltins ? undefined : `${layer} may not import Node built-ins (${specifier})`;
	}
	const allowed = rule.packages.some((p) => specifier === p || specifier.startsWith(`${p}/`));
	// `vscode-jsonrpc` covers its /node entry for protocol types only when the rule names the bare package.
	return allowed ? undefined : `${layer} may not import ${specifier}`;
}

/**
 * The engine's rooms, lowest first (docs/architecture.md §2): storage below tasks below sessions below
 * the features below the hook runtime below `engine.ts`. Rooms of one rank do not import each other;
 * a room that needs another of its rank moves up a rank.
 */
export const engineRanks: Readonly<Record<string, number>> = {
	// Leaves: no engine imports, or only each other's types.
	errors: 0,
	ids: 0,
	ports: 0,
	secrets: 0,
	workspace: 0,
	agentKinds: 0,
	ownFiles: 0, // This user's own files in .baton/ (the daemon's endpoint, the hook secret): the CLI's client and the editor read it too.
	arrays: 0,
	text: 0,
	// Git: the one runner and spawner, environment policy, object reader and reader of the user's repository state.
	git: 1,
	storage: 1,
	config: 1,
	// The normalised shape of an agent's hook payload: hooks read it, the replay timeline records from it.
	hookEvent: 1,
	audit: 2,
	events: 2,
	shared: 2,
	// Baton's own object store (.baton/shadow.git): repository, index, tree building, diffing, restoring a tree.
	shadow: 2,
	// The backend's file watcher: which paths changed since the last snapshot.
	watcher: 2,
	context: 3,
	// The environment around a checkpoint: agent CLIs, editor, MCP servers, runtimes, packages, the user's git state (reads a snapshot's tree).
	environment: 3,
	tasks: 4,
	sessions: 5,
	// Features that stand on the sessions alone.
	transcripts: 6,
	agentConfig: 6,
	checkpoints: 6,
	outbox: 6,
	interop: 6,
	// Features built on the features above (memory reads transcripts and checkpoints; notifications and
	// trackers deliver through the outbox). The replay timeline and provenance are expected here.
	memory: 7,
	notifications: 7,
	trackers: 7,
	timeline: 7,
	provenance: 7,
	// Every agent's own history in: reads the agents' files into the archive and the sessions.
	agentHistory: 7,
	// The Agents board: sessions, their hook signals and pending checkpoints, read together.
	board: 7,
	hooks: 8,
	// Sync carries every feature's records, the timeline's step files among them.
	sync: 8,
	// Search indexes what the rooms below record: sessions, memory, timeline events, transcripts.
	search: 8,
	engine: 9,
};

const engineRoot = path.join(root, 'src/engine');

/** `sessions` for src/engine/sessions/x.ts, `context` for src/engine/context.ts; undefined outside the engine. */
export function engineRoomOf(file: string): string | undefined {
	const rel = path.relative(engineRoot, file);
	if (rel.startsWith('..') || path.isAbsolute(rel)) {
		return undefined;
	}
	const [first, ...rest] = rel.split(path.sep);
	return rest.length ? first : first?.replace(/\.(ts|js)$/, '');
}

export function engineOrderViolation(file: string, specifier: string): string | undefined {
	const from = engineRoomOf(file);
	if (!from || !specifier.startsWith('.')) {
		return undefined;
	}
	const to = engineRoomOf(path.resolve(path.dirname(file), specifier));
	if (!to || to === from) {
		return undefined;
	}
	const [a, b] = [engineRanks[from], engineRanks[to]];
	if (a === undefined || b === undefined) {
		return `engine room ${a === undefined ? from : to} has no rank in engineRanks`;
	}
	return b < a ? undefined : `engine room ${from} (rank ${a}) may not import ${to} (rank ${b}): ${specifier}`;
}

/**
 * The rooms and ranks of docs/architecture.md's rank table (the table whose header is
 * `| Rank | Rooms | Job |`): each row a rank and the rooms named in backticks in its second cell.
 * Throws when there is no such table, a row is not a rank row, ranks go down, or a room is named twice.
 */
export function documentedRanks(doc: string): Record<string, number> {
	const lines = doc.split('\n');
	const header = lines.findIndex((line) => /^\| Rank \| Rooms \| Job \|/.test(line));
	if (header < 0) {
		throw new Error('docs/architecture.md has no rank table (| Rank | Rooms | Job |)');
	}
	const ranks: Record<string, number> = {};
	let previous = -1;
	for (const line of lines.slice(header + 2)) {
		if (!line.startsWith('|')) {
			break;
		}
		const row = /^\| (\d+) \| ([^|]+) \|/.exec(line);
		if (!row) {
			throw new Error(`not a rank row: ${line}`);
		}
		const rank = Number(row[1]);
		if (rank < previous) {
			throw new Error(`rank ${rank} follows rank ${previous}`);
		}
		previous = rank;
		for (const name of row[2]!.matchAll(/`([A-Za-z]+)\/?`/g)) {
			if (name[1]! in ranks) {
				throw new Error(`${name[1]} is listed twice`);
			}
			ranks[name[1]!] = rank;
		}
	}
	return ranks;
}

function sortedEntries(ranks: Readonly<Record<string, number>>): [string, number][] {
	return Object.entries(ranks).sort(([a], [b]) => a.localeCompare(b));
}

void describe('architecture', () => {
	void it('finds imports of every form', () => {
		assert.deepEqual(
			importsOf(
				`import a from 'x';\nimport type { B } from "y";\nexport { c } from './z';\nconst d = require('w');\nimport 'side';\nawait import('dyn');`,
			),
			['x', 'y', './z', 'w', 'side', 'dyn'],
		);
	});

	void it('keeps every layer to the imports docs/architecture.md §2 allows', () => {
		const files = [...sourceFiles(path.join(root, 'src')), ...sourceFiles(path.join(root, 'webview'))];
		assert.ok(files.length > 20, 'the scan sees the source tree');
		const problems: string[] = [];
		for (const file of files) {
			if (!layerOf(file)) {
				problems.push(`${path.relative(root, file)} is in no layer`);
				continue;
			}
			for (const { specifier, typeOnly } of importStatementsOf(fs.readFileSync(file, 'utf8'))) {
				const problem = violation(file, specifier, typeOnly);
				if (problem) {
					problems.push(`${path.relative(root, file)}: ${problem}`);
				}
			}
		}
		assert.deepEqual(problems, []);
	});

	void it('keeps the shape files leaves: only each other, zod and drizzle, never Node or the rest of the engine', () => {
		const problems: string[] = [];
		for (const rel of shapeFiles) {
			const file = path.join(root, rel);
			assert.ok(fs.existsSync(file), `${rel} exists`);
			for (const { specifier } of importStatementsOf(fs.readFileSync(file, 'utf8'))) {
				if (specifier.startsWith('.')) {
					const target = resolveRelative(file, specifier);
					if (!shapeFiles.includes(target)) {
						problems.push(`${rel}: imports ${target}, not a shape file`);
					}
				} else if (!shapePackages.some((p) => specifier === p || specifier.startsWith(`${p}/`))) {
					problems.push(`${rel}: imports ${specifier}`);
				}
			}
		}
		assert.deepEqual(problems, []);
	});

	void it('names the same shape files and pure leaves as the lint rule (eslint.config.mjs), so the two lists cannot drift', () => {
		const config = fs.readFileSync(path.join(root, 'eslint.config.mjs'), 'utf8');
		const listed = (name: string): string[] => {
			const body = new RegExp(`const ${name} = \\[([^\\]]*)\\]`).exec(config)?.[1];
			assert.ok(body, `eslint.config.mjs declares ${name}`);
			return [...body.matchAll(/'([^']+)'/g)].map((m) => `src/engine/${m[1]}.ts`).sort();
		};
		// schema.ts is a shape file only records.ts reads (its drizzle tables); the protocol names records.ts.
		const lintless = ['src/engine/storage/schema.ts'];
		assert.deepEqual(
			[...listed('engineShapes'), ...listed('enginePureLeaves')].sort(),
			[...new Set([...shapeFiles, ...pureLeaves])].filter((f) => !lintless.includes(f)).sort(),
		);
	});

	void it('opens the transcript archive through Engine only: one composition root, one rule for the agents’ homes', () => {
		const openers = /\btranscriptArchiveFor\b|\bnew TranscriptArchive\b/;
		const outside = sourceFiles(path.join(root, 'src'))
			.map((file) => path.relative(root, file).split(path.sep).join('/'))
			.filter((rel) => rel !== 'src/engine/engine.ts' && !rel.startsWith('src/engine/transcripts/'))
			.filter((rel) => openers.test(fs.readFileSync(path.join(root, rel), 'utf8')));
		assert.deepEqual(outside, []);
		assert.ok(openers.test(fs.readFileSync(path.join(root, 'src/engine/engine.ts'), 'utf8')), 'the scan recognises the opener Engine uses');
	});

	void it('keeps the pure leaves the protocol shares free of any import', () => {
		for (const rel of pureLeaves) {
			assert.deepEqual(importsOf(fs.readFileSync(path.join(root, rel), 'utf8')), [], rel);
		}
		assert.equal(violation(path.join(root, 'src/protocol/x.ts'), '../engine/text/controlChars'), undefined, 'the protocol re-exports it as a value');
		assert.match(
			violation(path.join(root, 'src/protocol/x.ts'), '../engine/text/clip') ?? '',
			/only the engine's shape files/,
			'other text helpers stay in the engine',
		);
	});

	void it('rejects what the rules forbid', () => {
		const engineFile = path.join(root, 'src/engine/x.ts');
		assert.match(violation(engineFile, 'vscode') ?? '', /may not import vscode/);
		assert.match(violation(engineFile, '../server/main') ?? '', /engine may not import server/);
		assert.match(violation(path.join(root, 'src/extension/x.ts'), '../engine/engine') ?? '', /extension may not import engine/);
		assert.match(violation(path.join(root, 'src/protocol/x.ts'), 'node:fs') ?? '', /built-ins/);
		assert.match(violation(path.join(root, 'webview/x.ts'), 'vscode') ?? '', /may not import vscode/);
		assert.match(violation(path.join(root, 'src/ui/x.ts'), 'vscode') ?? '', /ui may not import vscode/);
		assert.match(violation(path.join(root, 'src/ui/x.ts'), 'node:fs') ?? '', /built-ins/);
		assert.match(violation(path.join(root, 'src/ui/x.ts'), '../extension/ids') ?? '', /ui may not import extension/);
		assert.match(violation(path.join(root, 'src/protocol/x.ts'), '../ui/replayRows') ?? '', /protocol may not import ui/);
		assert.equal(violation(path.join(root, 'webview/x.ts'), '../src/ui/replayRows'), undefined);
		assert.equal(violation(path.join(root, 'src/server/x.ts'), '../engine/engine'), undefined);
		assert.equal(violation(path.join(root, 'src/server/x.ts'), '../hookHost/cliBundle'), undefined);
		assert.equal(violation(path.join(root, 'src/cli/x.ts'), '../hookHost/hookRunner'), undefined);
		assert.match(violation(path.join(root, 'src/server/x.ts'), '../cli/main', true) ?? '', /server may not import cli/);
		assert.equal(violation(path.join(root, 'src/server/bundledCli.ts'), '../cli/main'), undefined, 'the one crossing');
		assert.match(violation(path.join(root, 'src/server/bundledCli.ts'), '../cli/mcpServer') ?? '', /server may not import cli/);
		assert.match(violation(path.join(root, 'src/hookHost/x.ts'), '../cli/main') ?? '', /hookHost may not import cli/);
		assert.match(violation(path.join(root, 'src/hookHost/x.ts'), '../server/daemon') ?? '', /hookHost may not import server/);
		assert.match(violation(path.join(root, 'src/hookHost/x.ts'), 'vscode') ?? '', /may not import vscode/);
		assert.match(violation(engineFile, '../hookHost/hookRunner') ?? '', /engine may not import hookHost/);
		assert.match(violation(path.join(root, 'src/extension/x.ts'), '../hookHost/cliBundle', true) ?? '', /extension may not import hookHost/);
	});

	void it('lets the protocol name the engine’s shapes as types, and nothing more of the engine', () => {
		const protocolFile = path.join(root, 'src/protocol/x.ts');
		assert.equal(violation(protocolFile, '../engine/storage/records', true), undefined);
		assert.equal(violation(protocolFile, '../engine/checkpoints/checkpointShapes', true), undefined);
		assert.match(violation(protocolFile, '../engine/storage/records', false) ?? '', /with `import type` only/);
		assert.match(violation(protocolFile, '../engine/storage/model', true) ?? '', /only the engine's shape files/);
		assert.match(violation(protocolFile, '../engine/engine', true) ?? '', /only the engine's shape files/);
		assert.match(violation(protocolFile, 'drizzle-orm', true) ?? '', /protocol may not import drizzle-orm/);
		assert.match(violation(protocolFile, 'drizzle-zod') ?? '', /protocol may not import drizzle-zod/);
		assert.match(violation(protocolFile, 'sql.js') ?? '', /protocol may not import sql.js/);
		assert.match(violation(path.join(root, 'webview/x.ts'), '../src/engine/storage/records', true) ?? '', /webview may not import engine/);
		assert.match(violation(path.join(root, 'src/extension/x.ts'), '../engine/storage/records', true) ?? '', /extension may not import engine/);
		assert.match(violation(path.join(root, 'webview/x.ts'), 'drizzle-orm', true) ?? '', /webview may not import drizzle-orm/);
	});

	void it('tells type-only imports from the ones a bundle keeps', () => {
		assert.deepEqual(
			importStatementsOf(`import type { A } from './a';\nexport type { B } from './b';\nimport { type C } from './c';\nimport d from './d';`),
			[
				{ specifier: './a', typeOnly: true },
				{ specifier: './b', typeOnly: true },
				{ specifier: './c', typeOnly: false },
				{ specifier: './d', typeOnly: false },
			],
		);
	});

	void it('keeps the engine rooms in their order', () => {
		const problems: string[] = [];
		for (const entry of fs.readdirSync(engineRoot, { withFileTypes: true })) {
			const room = entry.isDirectory() ? entry.name : entry.name.replace(/\.ts$/, '');
			if (engineRanks[room] === undefined) {
				problems.push(`src/engine/${entry.name} has no rank in engineRanks`);
			}
		}
		const files = sourceFiles(engineRoot);
		assert.ok(files.length > 50, 'the scan sees the engine');
		for (const file of files) {
			for (const specifier of importsOf(fs.readFileSync(file, 'utf8'))) {
				const problem = engineOrderViolation(file, specifier);
				if (problem) {
					problems.push(`${path.relative(root, file)}: ${problem}`);
				}
			}
		}
		assert.deepEqual(problems, []);
	});

	void it('keeps the map true: docs/architecture.md’s table of rooms gives every room the rank engineRanks gives it', () => {
		const documented = documentedRanks(fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8'));
		assert.deepEqual(sortedEntries(documented), sortedEntries(engineRanks));
	});

	void it('reads the rank table so that a drift between it and engineRanks fails', () => {
		const table = (rows: string): string =>
			`Text | 9 | \`engine\` | not a row |\n\n| Rank | Rooms | Job |\n| --- | --- | --- |\n${rows}\n\n| 7 | \`after\` | another table |\n`;
		assert.deepEqual(
			documentedRanks(table('| 0 | `errors`, `text/` | leaves |\n| 1 | `storage/` | the journal |')),
			{ errors: 0, text: 0, storage: 1 },
			'only the rank table counts',
		);
		assert.throws(() => documentedRanks('| Rank | Rooms |\n'), /no rank table/);
		assert.throws(() => documentedRanks(table('| 0 | `errors` | a |\n| 1 | `errors/` | b |')), /errors is listed twice/);
		assert.throws(() => documentedRanks(table('| 1 | `storage/` | a |\n| 0 | `errors` | b |')), /rank 0 follows rank 1/);
		assert.throws(() => documentedRanks(table('| 0 | `errors` | a |\n| x | `ids` | b |')), /not a rank row/);
		const drifted = documentedRanks(table('| 0 | `errors` | a |\n| 2 | `storage/` | b |'));
		assert.notDeepEqual(sortedEntries(drifted), sortedEntries({ errors: 0, storage: 1 }), 'a room at another rank is told apart');
	});

	void it('rejects an import that goes up or sideways inside the engine', () => {
		const at = (rel: string): string => path.join(engineRoot, rel);
		assert.match(engineOrderViolation(at('storage/x.ts'), '../tasks/taskGraph') ?? '', /storage \(rank 1\) may not import tasks/);
		assert.match(engineOrderViolation(at('tasks/x.ts'), '../sessions/scope') ?? '', /tasks .* may not import sessions/);
		assert.match(engineOrderViolation(at('context.ts'), './tasks/taskGraph') ?? '', /context .* may not import tasks/);
		assert.match(engineOrderViolation(at('transcripts/x.ts'), '../hooks/hookEvent') ?? '', /transcripts .* may not import hooks/);
		assert.match(engineOrderViolation(at('hooks/x.ts'), '../engine') ?? '', /hooks .* may not import engine/);
		assert.match(
			engineOrderViolation(at('memory/x.ts'), '../trackers/y') ?? '',
			/memory \(rank 7\) may not import trackers \(rank 7\)/,
			'one rank, two rooms: no import',
		);
		assert.match(engineOrderViolation(at('nowhere/x.ts'), '../storage/model') ?? '', /nowhere has no rank/);
		assert.equal(engineOrderViolation(at('hooks/x.ts'), '../engine/../sessions/scope'), undefined);
		assert.equal(engineOrderViolation(at('sessions/x.ts'), '../tasks/taskGraph'), undefined);
		assert.equal(engineOrderViolation(at('sessions/x.ts'), './scope'), undefined);
		assert.equal(engineOrderViolation(at('engine.ts'), './hooks/runHook'), undefined);
	});
});
