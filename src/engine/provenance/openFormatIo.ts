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
import { catBatch } from './repoGit';

export type OpenFormat = 'agent-trace' | 'git-ai';
export const openFormats: readonly OpenFormat[] = ['agent-trace', 'git-ai'];

export async function exportOpenFormat(service: ProvenanceService, format: OpenFormat, range: string, out: string): Promise<{ format: OpenFormat; out: string; commits: number }> {
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
		fs.writeFileSync(out, ordered.map((a) => `${JSON.stringify(toAgentTrace(a, at))}\n`).join(''));
	} else {
		fs.mkdirSync(out, { recursive: true });
		for (const a of ordered) {
			fs.writeFileSync(path.join(out, `${a.commit}.txt`), toGitAiLog(a));
		}
	}
	return { format, out, commits: ordered.length };
}

export interface ImportResult {
	format: OpenFormat;
	imported: string[];
	skipped: { commit: string; reason: string }[];
	warnings: string[];
}

/** `source`: a JSON-lines file (Agent Trace), a folder of `<commit>.txt` logs (git-ai), or for git-ai nothing: the repository's `refs/notes/ai`, read only. */
export async function importOpenFormat(service: ProvenanceService, format: OpenFormat, source: string | undefined, actor: string): Promise<ImportResult> {
	const records: ImportedAttribution[] = [];
	if (format === 'agent-trace') {
		if (!source) {
			throw new BatonError('invalidInput', 'an Agent Trace import needs the traces file (e.g. .agent-trace/traces.jsonl)');
		}
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
	} else if (source) {
		let names: string[];
		try {
			names = fs.readdirSync(source).filter((n) => /^[0-9a-f]{40,64}\.txt$/.test(n));
		} catch (error) {
			throw new BatonError('invalidInput', `cannot read the folder ${source}: ${(error as Error).message}`);
		}
		for (const name of names) {
			records.push(checked(() => fromGitAiLog(name.slice(0, -4), readSource(path.join(source, name)), name)));
		}
	} else {
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
		);
		pairs.forEach(([, commit], i) => {
			const note = notes[i];
			if (note) {
				records.push(checked(() => fromGitAiLog(commit, note.content.toString('utf8'), `refs/notes/ai:${commit.slice(0, 10)}`)));
			}
		});
	}
	const existing = await service.attributions(records.map((r) => r.attribution.commit));
	const result: ImportResult = { format, imported: [], skipped: [], warnings: records.flatMap((r) => r.warnings) };
	const fresh = records.filter((r) => {
		if (existing.has(r.attribution.commit)) {
			result.skipped.push({ commit: r.attribution.commit, reason: 'already attributed by Baton' });
			return false;
		}
		return true;
	});
	// Blob ids where the commit is here, so the records match what blame reads.
	const { prefix } = await service.git.layout();
	const specs = fresh.flatMap((r) => r.attribution.files.map((f) => `${r.attribution.commit}:${prefix}${f.path}`));
	const blobs = await catBatch(service.git.run, specs);
	let k = 0;
	for (const r of fresh) {
		for (const f of r.attribution.files) {
			f.blob = blobs[k++]?.oid ?? '';
		}
	}
	const machine = machineIdentity(service.ctx.workspaceRoot);
	const now = service.ctx.clock.now();
	await service.ctx.store.write((db) => {
		for (const r of fresh) {
			appendSharedEvent(db, machine, now, { kind: 'provenance.attribution', subject: r.attribution.commit, actor, body: { files: r.attribution.files, patchId: null, importedFrom: format } });
		}
	});
	result.imported = fresh.map((r) => r.attribution.commit);
	return result;
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
