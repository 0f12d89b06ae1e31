/**
 * Export and import of Agent Trace records and git-ai authorship logs (openFormats.ts) for a range of
 * commits. An import is all or nothing: every record is read and checked before any is stored, and a
 * commit Baton already attributed keeps its attribution (the import is reported as skipped there).
 */
import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../errors';
import { appendSharedEvent } from '../shared/sharedEvents';
import { machineIdentity } from '../shared/machineIdentity';
import { fromAgentTrace, fromGitAiLog, toAgentTrace, toGitAiLog, type ImportedAttribution } from './openFormats';
import type { ProvenanceService } from './provenanceService';
import { catBatch } from '../git/objectReader';
import { textLines } from './repoGit';
import { pushAll } from '../arrays';

export type OpenFormat = 'agent-trace' | 'git-ai';
export const openFormats: readonly OpenFormat[] = ['agent-trace', 'git-ai'];

export async function exportOpenFormat(
	service: ProvenanceService,
	format: OpenFormat,
	range: string,
	out: string,
	tool: { name: string; version: string },
): Promise<{ format: OpenFormat; out: string; commits: number }> {
	await service.attributePending();
	let commits: string[];
	try {
		commits = (await service.git.text(['rev-list', range])).split('\n').filter(Boolean);
	} catch (error) {
		throw new BatonError('invalidInput', `git could not read the range ${range}: ${(error as Error).message}`);
	}
	const attributions = await service.attributions(commits);
	const ordered = commits.map((c) => attributions.get(c)).filter((a) => a !== undefined);
	const at = new Date(service.ctx.clock.now()).toISOString();
	if (format === 'agent-trace') {
		fs.mkdirSync(path.dirname(out), { recursive: true });
		fs.writeFileSync(out, ordered.map((a) => `${JSON.stringify(toAgentTrace(a, at, tool))}\n`).join(''));
	} else {
		fs.mkdirSync(out, { recursive: true });
		// A known human's lines are attested under the commit's author (`Name <email>`), as git-ai keys them.
		const authors = new Map<string, string>();
		if (ordered.length > 0) {
			const shown = await service.git.text(['show', '-s', '--format=%H %an <%ae>', ...ordered.map((a) => a.commit)]);
			for (const line of shown.split('\n').filter(Boolean)) {
				authors.set(line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1));
			}
		}
		for (const a of ordered) {
			fs.writeFileSync(path.join(out, `${a.commit}.txt`), toGitAiLog(a, authors.get(a.commit) ?? 'unknown <unknown>'));
		}
	}
	return { format, out, commits: ordered.length };
}

interface ImportResult {
	format: OpenFormat;
	imported: string[];
	skipped: { commit: string; reason: string }[];
	warnings: string[];
	/** Attributed lines that could not be placed (a path the commit does not have, lines past a file's end), with why; 0 when every line was placed. */
	droppedLines: number;
	dropped: { commit: string; path: string; lines: number; reason: string }[];
}

/** `source`: a JSON-lines file (Agent Trace), a folder of `<commit>.txt` logs (git-ai), or for git-ai nothing: the repository's `refs/notes/ai`, read only. */
export async function importOpenFormat(service: ProvenanceService, format: OpenFormat, source: string | undefined, actor: string): Promise<ImportResult> {
	const records = format === 'agent-trace' ? readAgentTrace(source) : source ? readGitAiFolder(source) : await readGitAiNotes(service);
	const merged = mergeByCommit(records);
	const existing = await service.attributions(merged.map((r) => r.attribution.commit));
	const result: ImportResult = { format, imported: [], skipped: [], warnings: merged.flatMap((r) => r.warnings), droppedLines: 0, dropped: [] };
	const fresh = merged.filter((r) => {
		if (existing.has(r.attribution.commit)) {
			result.skipped.push({ commit: r.attribution.commit, reason: 'already attributed by Baton' });
			return false;
		}
		return true;
	});
	await placeOnCommits(service, fresh, result.dropped);
	result.droppedLines = result.dropped.reduce((n, d) => n + d.lines, 0);
	const machine = machineIdentity(service.ctx.workspaceRoot);
	const now = service.ctx.clock.now();
	await service.ctx.store.write((db) => {
		for (const r of fresh) {
			appendSharedEvent(db, machine, now, {
				kind: 'provenance.attribution',
				subject: r.attribution.commit,
				actor,
				body: { files: r.attribution.files, patchId: null, importedFrom: format },
			});
		}
	});
	result.imported = fresh.map((r) => r.attribution.commit);
	return result;
}

/** Every record of an Agent Trace JSON-lines file, checked (a bad line fails the whole import). */
function readAgentTrace(source: string | undefined): ImportedAttribution[] {
	if (!source) {
		throw new BatonError('invalidInput', 'an Agent Trace import needs the traces file (e.g. .agent-trace/traces.jsonl)');
	}
	const records: ImportedAttribution[] = [];
	const text = readSource(source);
	for (const [i, line] of text.split('\n').entries()) {
		if (!line.trim()) {
			continue;
		}
		let parsed: unknown;
		try {
			parsed = JSON.parse(line);
		} catch (error) {
			throw new BatonError('invalidInput', `${source}:${i + 1}: not JSON (${(error as Error).message}); nothing was imported`);
		}
		records.push(checked(() => fromAgentTrace(parsed, `${source}:${i + 1}`)));
	}
	return records;
}

/** Every `<commit>.txt` git-ai log of a folder, checked. */
function readGitAiFolder(source: string): ImportedAttribution[] {
	let names: string[];
	try {
		names = fs.readdirSync(source).filter((n) => /^[0-9a-f]{40,64}\.txt$/.test(n));
	} catch (error) {
		throw new BatonError('invalidInput', `cannot read the folder ${source}: ${(error as Error).message}`);
	}
	return names.map((name) => checked(() => fromGitAiLog(name.slice(0, -4), readSource(path.join(source, name)), name)));
}

/** Every git-ai log in the repository's `refs/notes/ai` (none when there is no such ref), checked. */
async function readGitAiNotes(service: ProvenanceService): Promise<ImportedAttribution[]> {
	let list = '';
	try {
		list = await service.git.text(['notes', '--ref=ai', 'list']);
	} catch {
		// No refs/notes/ai here: nothing to import.
	}
	const pairs = list
		.split('\n')
		.map((l) => l.trim().split(/\s+/))
		.filter((p): p is [string, string] => p.length === 2);
	const notes = await catBatch(
		service.git.run,
		pairs.map(([note]) => note),
		'blob',
	);
	const records: ImportedAttribution[] = [];
	pairs.forEach(([, commit], i) => {
		const note = notes[i];
		if (note) {
			records.push(checked(() => fromGitAiLog(commit, note.content.toString('utf8'), `refs/notes/ai:${commit.slice(0, 10)}`)));
		}
	});
	return records;
}

/** Several records for one commit (Agent Trace writes one per agent run) are one attribution: their files and ranges together. */
function mergeByCommit(records: readonly ImportedAttribution[]): ImportedAttribution[] {
	const byCommit = new Map<string, ImportedAttribution>();
	for (const r of records) {
		const held = byCommit.get(r.attribution.commit);
		if (!held) {
			byCommit.set(r.attribution.commit, {
				attribution: { ...r.attribution, files: r.attribution.files.map((f) => ({ ...f, ranges: [...f.ranges] })) },
				warnings: [...r.warnings],
			});
			continue;
		}
		pushAll(held.warnings, r.warnings);
		for (const f of r.attribution.files) {
			const same = held.attribution.files.find((x) => x.path === f.path);
			if (same) {
				pushAll(same.ranges, f.ranges);
				same.ranges.sort((a, b) => a.start - b.start);
			} else {
				held.attribution.files.push({ ...f, ranges: [...f.ranges] });
			}
		}
	}
	return [...byCommit.values()];
}

/**
 * Sets each file's blob id where the commit is here, so the records match what blame reads. A line is
 * placed only where the commit has it: a path the commit lacks, or lines past the file's end, are
 * removed and listed in `dropped` (the import says so; it is not a success that lost lines).
 */
async function placeOnCommits(service: ProvenanceService, fresh: readonly ImportedAttribution[], dropped: ImportResult['dropped']): Promise<void> {
	const { prefix } = await service.git.layout();
	const specs = fresh.flatMap((r) => r.attribution.files.map((f) => `${r.attribution.commit}:${prefix}${f.path}`));
	const blobs = await catBatch(service.git.run, specs, 'blob');
	let k = 0;
	const linesIn = (ranges: readonly { start: number; end: number }[]): number => ranges.reduce((n, x) => n + x.end - x.start + 1, 0);
	for (const r of fresh) {
		r.attribution.files = r.attribution.files.filter((f) => {
			const blob = blobs[k++];
			if (!blob) {
				dropped.push({ commit: r.attribution.commit, path: f.path, lines: linesIn(f.ranges), reason: 'the commit has no such file' });
				return false;
			}
			f.blob = blob.oid;
			const count = textLines(blob.content)?.length ?? 0;
			const kept = f.ranges.filter((x) => x.start <= count).map((x) => (x.end > count ? { ...x, end: count } : x));
			const lost = linesIn(f.ranges) - linesIn(kept);
			if (lost > 0) {
				dropped.push({ commit: r.attribution.commit, path: f.path, lines: lost, reason: `past the file's ${count} line(s) at that commit` });
			}
			f.ranges = kept;
			return true;
		});
	}
}

function readSource(file: string): string {
	try {
		return fs.readFileSync(file, 'utf8');
	} catch (error) {
		throw new BatonError('invalidInput', `cannot read ${file}: ${(error as Error).message}`);
	}
}

function checked(read: () => ImportedAttribution): ImportedAttribution {
	try {
		return read();
	} catch (error) {
		throw new BatonError('invalidInput', `${(error as Error).message}; nothing was imported`);
	}
}
