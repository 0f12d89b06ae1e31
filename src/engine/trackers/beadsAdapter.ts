/**
 * Beads issues. Current Beads keeps its data in Dolt and `issues.jsonl`
 * is an export, so the `bd` CLI is preferred whenever it is on PATH; without it the adapter edits
 * the `issues.jsonl` file itself (beadsFile.ts: one line per edit, atomic, lossless).
 */
import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../errors';
import { BeadsCliAdapter } from './beadsCli';
import { beadsIssue, type BeadsFile, type BeadsRecord } from './beadsFile';
import { renderCheckpointNote } from './checkpointNote';
import type { CheckpointNote, IssueStatus, NewIssue, TrackerAdapter, TrackerIssue } from './trackerTypes';

interface BeadsAdapterOptions {
	file: BeadsFile;
	prefix: string;
	nowIso: () => string;
	/** Who comments (Beads' `author`). */
	author: string;
}

export class BeadsFileAdapter implements TrackerAdapter {
	readonly tracker = 'beads' as const;

	constructor(private readonly options: BeadsAdapterOptions) {}

	async getIssue(id: string): Promise<TrackerIssue> {
		const record = this.options.file.find(id);
		if (!record) {
			throw new BatonError('notFound', `Beads: no issue ${id} in ${this.options.file.file}`);
		}
		return beadsIssue(record);
	}

	async updateStatus(id: string, status: IssueStatus): Promise<TrackerIssue> {
		const now = this.options.nowIso();
		const record = await this.options.file.update(id, (r) => {
			const next: BeadsRecord = { ...r, status, updated_at: now };
			if (status === 'closed') {
				next['closed_at'] = now;
				next['close_reason'] ??= 'Closed by Baton';
			} else {
				delete next['closed_at'];
				delete next['close_reason'];
			}
			return next;
		});
		return beadsIssue(record);
	}

	async comment(id: string, body: string): Promise<void> {
		const now = this.options.nowIso();
		await this.options.file.update(id, (r) => {
			const comments = Array.isArray(r['comments']) ? (r['comments'] as Record<string, unknown>[]) : [];
			const nextId = comments.reduce((max, c) => (typeof c['id'] === 'number' && c['id'] > max ? c['id'] : max), 0) + 1;
			return { ...r, comments: [...comments, { id: nextId, issue_id: id, author: this.options.author, text: body, created_at: now }], updated_at: now };
		});
	}

	async createIssue(input: NewIssue): Promise<TrackerIssue> {
		const now = this.options.nowIso();
		const record = await this.options.file.create(this.options.prefix, {
			title: input.title,
			description: input.body,
			status: 'open',
			priority: input.type === 'bug' ? 1 : 2,
			issue_type: input.type ?? 'task',
			...(input.labels?.length ? { labels: input.labels } : {}),
			created_at: now,
			created_by: this.options.author,
			updated_at: now,
		});
		return beadsIssue(record);
	}

	async linkCheckpoint(id: string, note: CheckpointNote): Promise<void> {
		await this.comment(id, renderCheckpointNote(note));
	}
}

/** The `bd` executable on PATH, or null: a stat per PATH entry, no process started. */
export function findOnPath(name: string, searchPath = process.env['PATH'] ?? ''): string | null {
	const names = process.platform === 'win32' ? [`${name}.exe`, `${name}.cmd`, name] : [name];
	for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
		for (const candidate of names) {
			const full = path.join(dir, candidate);
			try {
				fs.accessSync(full, fs.constants.X_OK);
				if (fs.statSync(full).isFile()) {
					return full;
				}
			} catch {
				// not here
			}
		}
	}
	return null;
}

interface BeadsChoice {
	mode: 'auto' | 'never';
	searchPath?: string;
	cwd: string;
	timeoutMs: number;
}

/** The CLI when it is installed (and allowed), else the file adapter. */
export function chooseBeadsAdapter(choice: BeadsChoice, fileAdapter: () => TrackerAdapter): TrackerAdapter {
	const bd = choice.mode === 'auto' ? findOnPath('bd', choice.searchPath) : null;
	return bd ? new BeadsCliAdapter({ executable: bd, cwd: choice.cwd, timeoutMs: choice.timeoutMs }) : fileAdapter();
}
