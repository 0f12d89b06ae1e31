// @ts-check
// Lint: the rules that catch what review misses. Type-aware (typescript-eslint reads tsconfig.json):
// a promise nobody awaits, a type imported as a value, and the layer boundaries (which layer may
// import which; the same table test/unit/architecture.test.ts enforces on every import). Formatting
// is Prettier's job (`npm run format`), not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** A layer may not import these layers (relative paths from src/<layer>/ or webview/, any depth). */
const forbid = (layers) => layers.flatMap((l) => [`../**/${l}/**`, `../${l}`, `../../${l}`]);

/** The engine files the protocol may name types from (test/unit/architecture.test.ts keeps them leaves). */
const engineShapes = [
	'storage/records',
	'storage/jsonShapes',
	'checkpoints/checkpointShapes',
	'environment/environmentDiff',
	'shadow/shadowShapes',
	'sessions/sessionShapes',
	'tasks/taskShapes',
	'interop/importTypes',
	'agentConfig/agentConfigShapes',
	'sync/syncShapes',
	'timeline/timelineShapes',
	'provenance/provenanceShapes',
	'agentHistory/historyShapes',
	'search/searchShapes',
	'board/boardShapes',
];
/** Engine files that import nothing, which the protocol may re-export as values (test/unit/architecture.test.ts: pureLeaves). */
const enginePureLeaves = ['text/controlChars', 'text/actorNames', 'agentKinds'];

/**
 * Size (CONTRIBUTING.md): a file holds at most 400 lines and a function at most 80, blank lines and
 * comments not counted. A test file's `describe` callback is its list of cases, not a function with a
 * job, so the function rule covers src/, scripts/ and bench/; every file, tests included, keeps to 400.
 */
const sizeOptions = { skipBlankLines: true, skipComments: true };

/** no-restricted-imports for one layer: other layers it must not reach, and packages it must not use. */
function layerRule(message, { layers = [], packages = [] }) {
	return [
		'error',
		{
			paths: packages.map((name) => ({ name, message })),
			patterns: [...(layers.length ? [{ group: forbid(layers), message }] : []), ...packages.map((p) => ({ group: [`${p}/*`], message }))],
		},
	];
}

// The syntax every source file avoids (the rules are explained where they are used below).
const srcSyntax = [
	...['CallExpression', 'NewExpression'].map((call) => ({
		selector: `${call} > SpreadElement`,
		message: 'A spread argument puts every element on the stack and overflows it past ~120k: loop, or use pushAll/maxOf/minOf (src/engine/arrays.ts).',
	})),
	// esbuild escapes non-ASCII characters in strings, not in regular expressions: one there makes
	// the whole bundle a two-byte string to V8 (~30 ms more to load a backend). test/unit/bundleText.test.ts.
	{
		selector: 'Literal[regex.pattern=/[^\\x00-\\x7F]/]',
		message: 'Write a non-ASCII character in a regular expression as \\uXXXX: the bundle stays ASCII, one byte a character to V8.',
	},
];

export default tseslint.config(
	{ ignores: ['dist/**', 'out/**', 'node_modules/**', 'artifacts/**', 'bench/results/**', 'drizzle/**', 'test/fixtures/**', '**/*.d.mts'] },
	{
		files: ['**/*.ts'],
		extends: [js.configs.recommended, ...tseslint.configs.recommended],
		languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
		rules: {
			// node:test's describe/it return promises the runner itself awaits.
			'@typescript-eslint/no-floating-promises': [
				'error',
				{
					allowForKnownSafeCalls: [
						{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] },
					],
				},
			],
			'@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
			'@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'separate-type-imports' }],
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
			// tsc (strict) already checks these; the lint would only repeat or contradict it.
			'no-undef': 'off',
			'no-redeclare': 'off',
			'@typescript-eslint/no-explicit-any': 'off',
			'@typescript-eslint/no-require-imports': 'off',
			'@typescript-eslint/no-non-null-assertion': 'off',
		},
	},
	{ files: ['**/*.ts'], rules: { 'max-lines': ['error', { max: 400, ...sizeOptions }] } },
	{ files: ['src/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts'], rules: { 'max-lines-per-function': ['error', { max: 80, ...sizeOptions }] } },
	// No spread arguments: `f(...xs)` puts every element on the stack, and past about 120,000 of them
	// throws RangeError: Maximum call stack size exceeded (Math.max(0, ...seqs) and push(...events) did,
	// at 100k sessions). Write a loop, or pushAll/maxOf/minOf from src/engine/arrays.ts; a spread into
	// an array literal ([...a, ...b]) is fine. A call that must stay variadic gets a disable comment on
	// the line before, saying why its array is tiny. Tested by test/unit/engine/largeArrays.test.ts.
	{
		files: ['src/**/*.ts'],
		rules: {
			'no-restricted-syntax': ['error', ...srcSyntax],
		},
	},
	// Notifications obey VS Code's link syntax (`[label](command:…)` runs a command when clicked), and
	// their text, like a quick pick's items, holds what teammates and agents wrote: every message and
	// quick pick goes through src/extension/messages.ts, which shows it escaped. Tested by
	// test/unit/extension/shownMessage.test.ts.
	{
		files: ['src/extension/**/*.ts'],
		ignores: ['src/extension/messages.ts'],
		rules: {
			'no-restricted-syntax': [
				'error',
				...srcSyntax,
				{
					selector: 'MemberExpression[property.name=/^(show(Information|Warning|Error)Message|showQuickPick)$/]',
					message: 'Show a message or a quick pick through src/extension/messages.ts: its text is shown escaped, never obeyed.',
				},
			],
		},
	},
	// A test asserts no speed (speed is the benchmarks' ratios, npm run bench): a bound on a time fails
	// on a loaded machine and proves nothing on an idle one (graphLayout's 500 ms did). Count the work
	// instead. Kept by the selector on assertions comparing a value named as a time.
	{
		files: ['test/**/*.ts'],
		rules: {
			'no-restricted-syntax': [
				'error',
				{
					// An upper bound on a value named as a time (`ms < 500`, `500 > took`); `> 0` checks stay allowed.
					selector:
						"CallExpression[callee.object.name='assert'] > :matches(BinaryExpression[operator=/^<=?$/][left.name=/^(ms|elapsed|took|duration|seconds)$|[a-z](Ms|Seconds|Elapsed)$/], BinaryExpression[operator=/^<=?$/][left.property.name=/^(ms|elapsed|took|duration|seconds)$|[a-z](Ms|Seconds|Elapsed)$/], BinaryExpression[operator=/^>=?$/][right.name=/^(ms|elapsed|took|duration|seconds)$|[a-z](Ms|Seconds|Elapsed)$/], BinaryExpression[operator=/^>=?$/][right.property.name=/^(ms|elapsed|took|duration|seconds)$|[a-z](Ms|Seconds|Elapsed)$/])",
					message: 'A test asserts no time: count the work it does (speed is measured in npm run bench, as ratios).',
				},
			],
		},
	},
	// The extension-host suite is bundled by scripts/runEditorTests.mjs, outside tsconfig.json: lint it without types.
	{
		files: ['test/integration/**/*.ts'],
		extends: [tseslint.configs.disableTypeChecked],
		languageOptions: { parserOptions: { projectService: false, project: null } },
	},
	// The layers (see docs/architecture.md): the engine is pure TypeScript, the protocol is types and
	// schemas, the extension is thin glue that talks to the server only through the protocol.
	{
		files: ['src/engine/**/*.ts'],
		rules: {
			'no-restricted-imports': layerRule('The engine never sees the editor, the server, the CLI, the hook host or the protocol.', {
				layers: ['extension', 'server', 'cli', 'hookHost', 'protocol', 'webview', 'ui'],
				packages: ['vscode', 'vscode-jsonrpc'],
			}),
		},
	},
	{
		files: ['src/protocol/**/*.ts'],
		rules: {
			'no-restricted-imports': layerRule('The protocol holds only zod schemas and vscode-jsonrpc types.', {
				layers: ['extension', 'server', 'cli', 'hookHost', 'webview', 'ui'],
				packages: ['vscode', 'drizzle-orm', 'drizzle-zod', 'sql.js'],
			}),
			// The engine's shape files, as types only (erased from bundles); the rest of the engine never.
			'@typescript-eslint/no-restricted-imports': [
				'error',
				{
					patterns: [
						{
							regex: `(^|/)engine/(?!(${[...engineShapes, ...enginePureLeaves].join('|')})$)`,
							message: 'The protocol names only the engine’s shape files (docs/architecture.md §2).',
						},
						{
							group: engineShapes.map((f) => `**/engine/${f}`),
							allowTypeImports: true,
							message: 'The engine’s shapes reach the protocol as `import type` only, so no engine code lands in a bundle.',
						},
					],
				},
			],
		},
	},
	{
		files: ['src/server/**/*.ts'],
		rules: {
			'no-restricted-imports': layerRule(
				'The server uses the engine, the protocol and the hook host, never the editor or the CLI (only server/bundledCli.ts builds the CLI in).',
				{
					layers: ['extension', 'webview', 'ui', 'cli'],
					packages: ['vscode'],
				},
			),
		},
	},
	{
		// The one crossing (test/unit/architecture.test.ts `crossings`, which allows src/cli/main.ts alone): the CLI built into the server's bundle.
		files: ['src/server/bundledCli.ts'],
		rules: {
			'no-restricted-imports': layerRule('The CLI built into the server: src/cli/main.ts, and never the editor.', {
				layers: ['extension', 'webview', 'ui'],
				packages: ['vscode'],
			}),
		},
	},
	{
		files: ['src/cli/**/*.ts'],
		rules: {
			'no-restricted-imports': layerRule('The CLI uses the engine, the protocol and the hook host, never the editor or the server.', {
				layers: ['extension', 'webview', 'ui', 'server'],
				packages: ['vscode'],
			}),
		},
	},
	{
		files: ['src/hookHost/**/*.ts'],
		rules: {
			'no-restricted-imports': layerRule('The hook host uses the engine only: the CLI and the daemon both import it.', {
				layers: ['extension', 'webview', 'ui', 'server', 'cli', 'protocol'],
				packages: ['vscode', 'vscode-jsonrpc'],
			}),
		},
	},
	{
		files: ['src/extension/**/*.ts'],
		rules: {
			'no-restricted-imports': layerRule('The extension talks to the engine only through the server (the protocol).', {
				layers: ['engine', 'server', 'cli', 'hookHost', 'webview'],
				packages: ['drizzle-orm', 'drizzle-zod', 'sql.js'],
			}),
		},
	},
	{
		// The one crossing of the editor (test/unit/architecture.test.ts `crossings`): the import-free engine/ownFiles.ts, which reads the daemon's endpoint file.
		files: ['src/extension/daemonSocket.ts'],
		rules: {
			'no-restricted-imports': layerRule('The editor reads the endpoint file with engine/ownFiles.ts alone.', {
				layers: ['server', 'cli', 'hookHost', 'webview'],
				packages: ['drizzle-orm', 'drizzle-zod', 'sql.js'],
			}),
		},
	},
	{
		files: ['src/ui/**/*.ts'],
		rules: {
			'no-restricted-imports': layerRule('What the extension and the webviews both draw runs in a browser too: the protocol only.', {
				layers: ['engine', 'server', 'cli', 'hookHost', 'extension', 'webview'],
				packages: ['vscode', 'vscode-jsonrpc', 'drizzle-orm', 'drizzle-zod', 'sql.js', 'zod'],
			}),
		},
	},
	{
		files: ['webview/**/*.ts'],
		rules: {
			'no-restricted-imports': layerRule('A webview runs in the browser: the protocol only.', {
				layers: ['engine', 'server', 'cli', 'hookHost', 'extension'],
				packages: ['vscode', 'drizzle-orm', 'drizzle-zod', 'sql.js'],
			}),
		},
	},
);
