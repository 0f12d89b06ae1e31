import fs from 'node:fs';
import path from 'node:path';
import initSqlJs, { type SqlJsStatic } from 'sql.js';

let loading: Promise<SqlJsStatic> | undefined;

/**
 * sql.js's WASM, loaded once per process. Bundles ship `sql-wasm.wasm` beside themselves (esbuild.mjs
 * copies it into dist/); unbundled runs (unit tests under tsx) find it in node_modules.
 */
export function loadSqlJs(wasmPath?: string): Promise<SqlJsStatic> {
	loading ??= initSqlJs({ locateFile: () => wasmPath ?? defaultWasmPath() });
	return loading;
}

function defaultWasmPath(): string {
	const beside = path.join(__dirname, 'sql-wasm.wasm');
	return fs.existsSync(beside) ? beside : require.resolve('sql.js/dist/sql-wasm.wasm');
}
