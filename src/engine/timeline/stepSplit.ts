/**
 * A person's edits made while an agent's edit tool call was open (docs/replay.md). An edit tool names
 * the files it writes (`file_path`, `filePath`, `path`, …); a file that changed between its Pre- and
 * PostToolUse and that the call does not name was not written by it. When no other call of the
 * session ran meanwhile, such files are split off into a step of their own with actor `human`. Shell
 * and MCP tools name no files they may write, so nothing is split from them (see the docs).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ShadowRepo } from '../shadow/shadowRepo';
import type { TimelineFile } from './timelineShapes';

/** `base` with `paths` taken as they are in `source` (absent there: removed). The caller holds the shadow's lock. */
export async function treeWithPaths(shadow: ShadowRepo, base: string, source: string, paths: readonly string[]): Promise<string> {
	const index = path.join(shadow.gitDir, `baton-split-${process.pid}.index`);
	const env = { GIT_INDEX_FILE: index, GIT_LITERAL_PATHSPECS: '1' };
	try {
		await shadow.git(['read-tree', base], { env });
		const listed = (await shadow.git(['ls-tree', '-r', '-z', '--full-tree', source, '--', ...paths], { env })).stdout.toString('utf8');
		const present = new Map<string, string>();
		for (const entry of listed.split('\0').filter(Boolean)) {
			const tab = entry.indexOf('\t');
			const [mode, , sha] = entry.slice(0, tab).split(' ');
			present.set(entry.slice(tab + 1), `${mode} ${sha}`);
		}
		const zero = '0'.repeat(source.length);
		const lines = paths.map((p) => `${present.get(p) ?? `0 ${zero}`}\t${p}\0`).join('');
		await shadow.git(['update-index', '-z', '--index-info'], { env, input: lines });
		return await shadow.gitText(['write-tree'], { env });
	} finally {
		fs.rmSync(index, { force: true });
	}
}

/** The step's files split into what the call names and what it does not. */
export function splitByNamed(files: readonly TimelineFile[], named: readonly string[]): { agent: TimelineFile[]; others: TimelineFile[] } {
	const names = new Set(named);
	return { agent: files.filter((f) => names.has(f.path)), others: files.filter((f) => !names.has(f.path)) };
}
