#!/usr/bin/env node
// The unused-export check `npm test` runs (CONTRIBUTING.md): an export of src/ or webview/ that no
// file of the repository imports is dead weight or a forgotten seam, and fails here. Parse-only
// (TypeScript's parser, no type-check), so the whole tree takes a few seconds. An export used only
// in its own file drops its `export`. What nothing imports by design is listed below with a reason.
//
// Imports are followed through re-exports (`export { a } from`, `export * from`); a namespace import,
// `import()`/`require()` of a file, or `import('./x').T` in a type counts as using every export of it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The folders whose exports are checked. */
const checkedRoots = ['src', 'webview'];
/** The folders whose imports count as uses (tests, scripts and benches use the code as well). */
const scannedRoots = ['src', 'webview', 'test', 'scripts', 'bench'];
const sourceExtensions = ['.ts', '.tsx', '.mts', '.mjs', '.js'];

/**
 * Exports nothing in the repository imports, on purpose: file → names ('*' for all), with why.
 * @type {Record<string, { names: string[]; reason: string }>}
 */
export const allowedUnused = {
	'src/extension/extension.ts': { names: ['activate', 'deactivate'], reason: 'the extension entry point (esbuild.mjs): VS Code calls them by name' },
	'src/engine/storage/jsonShapes.ts': {
		names: ['sessionSummarySchema'],
		reason: 'the schema SessionSummary is inferred from (z.infer), which ESLint counts as a type use only',
	},
	'src/cli/hookMain.ts': { names: ['main'], reason: 'dist/hook.js: the launcher calls main' },
	'src/engine/storage/model.ts': {
		names: [
			'SchemasMatchRecords',
			'auditEntrySchema',
			'checkpointSessionSettingsSchema',
			'handoffSchema',
			'importRecordSchema',
			'memoryEntrySchema',
			'notificationOutboxSchema',
			'rollbackSchema',
			'sharedEventSchema',
			'taskDependencySchema',
			'taskSchema',
		],
		reason: 'one zod schema per stored record, each proven against its record at compile time (SchemasMatchRecords, which nothing imports either); the import reads some, the rest complete the set for the next reader of records from outside',
	},
};

/** @param {string} dir @returns {string[]} */
function walk(dir) {
	if (!fs.existsSync(dir)) {
		return [];
	}
	const out = [];
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) {
			if (entry.name !== 'node_modules' && entry.name !== 'fixtures') {
				out.push(...walk(full));
			}
		} else if (sourceExtensions.some((e) => entry.name.endsWith(e)) && !/\.d\.[mc]?ts$/.test(entry.name)) {
			out.push(full);
		}
	}
	return out;
}

/** The file a relative specifier names, or undefined (a package, or nothing there). @param {string} from @param {string} specifier */
function resolve(from, specifier) {
	if (!specifier.startsWith('.')) {
		return undefined;
	}
	const base = path.resolve(path.dirname(from), specifier);
	const stripped = base.replace(/\.(m?js)$/, '');
	const candidates = [base, ...sourceExtensions.map((e) => stripped + e), ...sourceExtensions.map((e) => path.join(base, `index${e}`))];
	return candidates.find((c) => fs.existsSync(c) && fs.statSync(c).isFile());
}

/** @param {ts.Node} node */
function hasExport(node) {
	return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

/** @param {ts.Node} node */
function isDefault(node) {
	return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
}

/**
 * One file's own exports (name → line), its re-exports, and what it imports.
 * @param {string} file
 */
function readModule(file) {
	const text = fs.readFileSync(file, 'utf8');
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : undefined);
	/** @type {Map<string, number>} */
	const exports = new Map();
	/** @type {{ target: string; from: string; as: string }[]} */
	const reexports = [];
	/** @type {string[]} */
	const starExports = [];
	/** @type {{ target: string; name: string }[]} */
	const uses = [];
	const line = (/** @type {ts.Node} */ node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
	const own = (/** @type {string} */ name, /** @type {ts.Node} */ node) => exports.set(name, line(node));
	const visit = (/** @type {ts.Node} */ node) => {
		if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
			const target = resolve(file, node.moduleSpecifier.text);
			const clause = node.importClause;
			if (target && clause) {
				if (clause.name) {
					uses.push({ target, name: 'default' });
				}
				const bindings = clause.namedBindings;
				if (bindings && ts.isNamespaceImport(bindings)) {
					uses.push({ target, name: '*' });
				} else if (bindings) {
					for (const el of bindings.elements) {
						uses.push({ target, name: (el.propertyName ?? el.name).text });
					}
				}
			}
		} else if (ts.isExportDeclaration(node)) {
			const target = node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) ? resolve(file, node.moduleSpecifier.text) : undefined;
			if (node.moduleSpecifier && !target) {
				// A package re-exported: the names are this file's own.
				for (const el of node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : []) {
					own(el.name.text, el);
				}
			} else if (!node.exportClause && target) {
				starExports.push(target);
			} else if (node.exportClause && ts.isNamespaceExport(node.exportClause) && target) {
				own(node.exportClause.name.text, node);
				reexports.push({ target, from: '*', as: node.exportClause.name.text });
			} else if (node.exportClause && ts.isNamedExports(node.exportClause)) {
				for (const el of node.exportClause.elements) {
					if (target) {
						reexports.push({ target, from: (el.propertyName ?? el.name).text, as: el.name.text });
					}
					own(el.name.text, el);
				}
			}
		} else if (ts.isExportAssignment(node)) {
			own('default', node);
		} else if (hasExport(node) && node.parent === source) {
			if (isDefault(node)) {
				own('default', node);
			} else if (ts.isVariableStatement(node)) {
				for (const decl of node.declarationList.declarations) {
					for (const name of bindingNames(decl.name)) {
						own(name, decl);
					}
				}
			} else if ('name' in node && node.name && ts.isIdentifier(/** @type {ts.Node} */ (node.name))) {
				own(/** @type {ts.Identifier} */ (node.name).text, node);
			}
		} else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteralLike(node.arguments[0])) {
			const dynamic = node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require');
			const target = dynamic ? resolve(file, node.arguments[0].text) : undefined;
			if (target) {
				uses.push({ target, name: '*' });
			}
		} else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
			const target = resolve(file, node.argument.literal.text);
			if (target) {
				uses.push({ target, name: node.qualifier ? ts.getTextOfNode(node.qualifier).split('.')[0] : '*' });
			}
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return { exports, reexports, starExports, uses };
}

/** @param {ts.BindingName} name @returns {string[]} */
function bindingNames(name) {
	if (ts.isIdentifier(name)) {
		return [name.text];
	}
	return name.elements.flatMap((el) => (ts.isOmittedExpression(el) ? [] : bindingNames(el.name)));
}

/**
 * Every export of a checked folder that no other file imports (through any chain of re-exports),
 * less the allowed ones. Returns `path:line name`, sorted.
 * @param {string} root the repository
 * @param {{ allowed?: typeof allowedUnused }} [options]
 * @returns {string[]}
 */
export function findUnusedExports(root, options = {}) {
	const allowed = options.allowed ?? allowedUnused;
	const files = scannedRoots.flatMap((r) => walk(path.join(root, r)));
	const modules = new Map(files.map((f) => [f, readModule(f)]));
	/** @type {Map<string, Set<string>>} */
	const used = new Map();
	/** @type {{ target: string; name: string }[]} */
	const work = [];
	for (const mod of modules.values()) {
		for (const use of mod.uses) {
			work.push(use);
		}
	}
	while (work.length > 0) {
		const { target, name } = /** @type {{ target: string; name: string }} */ (work.pop());
		const seen = used.get(target) ?? new Set();
		used.set(target, seen);
		if (seen.has(name) || seen.has('*')) {
			continue;
		}
		seen.add(name);
		const mod = modules.get(target);
		if (!mod) {
			continue;
		}
		// Using a name (or everything) of a file uses what it re-exports under that name.
		for (const r of mod.reexports) {
			if (name === '*' || r.as === name) {
				work.push({ target: r.target, name: r.from });
			}
		}
		for (const star of mod.starExports) {
			if (name === '*' || !mod.exports.has(name)) {
				work.push({ target: star, name });
			}
		}
	}
	const problems = [];
	for (const [file, mod] of modules) {
		const rel = path.relative(root, file).split(path.sep).join('/');
		if (!checkedRoots.some((r) => rel.startsWith(`${r}/`))) {
			continue;
		}
		const seen = used.get(file) ?? new Set();
		const ok = allowed[rel]?.names ?? [];
		for (const [name, line] of mod.exports) {
			if (!seen.has(name) && !seen.has('*') && !ok.includes(name) && !ok.includes('*')) {
				problems.push(`${rel}:${line} ${name}`);
			}
		}
	}
	// An allowed name that is imported after all, or no longer exported, leaves the list.
	for (const [rel, { names }] of Object.entries(allowed)) {
		const mod = modules.get(path.join(root, rel));
		const seen = used.get(path.join(root, rel)) ?? new Set();
		for (const name of names) {
			if (name !== '*' && (!mod?.exports.has(name) || seen.has(name) || seen.has('*'))) {
				problems.push(
					`${rel} ${name}: listed as unused in scripts/unusedExports.mjs, but it is ${mod?.exports.has(name) ? 'imported' : 'not exported'}`,
				);
			}
		}
	}
	return problems.sort();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
	const problems = findUnusedExports(root);
	if (problems.length > 0) {
		console.error(
			`Exports nothing imports (drop the \`export\`, delete the code, or list it with a reason in scripts/unusedExports.mjs):\n${problems.map((p) => `  ${p}`).join('\n')}`,
		);
		process.exit(1);
	}
	console.log('unused exports: none');
}
