/**
 * Beads through its own CLI: `bd show ID --json`, `bd update ID --status S --json`,
 * `bd close ID --reason R --json`, `bd comments add ID TEXT`, `bd create TITLE … --json`. No shell:
 * arguments go to the process as they are, so issue text can never become a command.
 */
import { execFile } from 'node:child_process';
import { trackerError } from './trackerHttp';
import { beadsIssue } from './beadsFile';
import { renderCheckpointNote } from './checkpointNote';
import type { CheckpointNote, IssueStatus, NewIssue, TrackerAdapter, TrackerIssue } from './trackerTypes';

interface BeadsCliOptions {
	executable: string;
	cwd: string;
	timeoutMs: number;
}

export class BeadsCliAdapter implements TrackerAdapter {
	readonly tracker = 'beads' as const;

	constructor(private readonly options: BeadsCliOptions) {}

	async getIssue(id: string): Promise<TrackerIssue> {
		return beadsIssue(firstRecord(await this.json(['show', id, '--json']), id));
	}

	async updateStatus(id: string, status: IssueStatus): Promise<TrackerIssue> {
		const args = status === 'closed' ? ['close', id, '--reason', 'Closed by Baton', '--json'] : ['update', id, '--status', status, '--json'];
		const answer = await this.json(args);
		const record = firstRecordOrNull(answer);
		return record ? beadsIssue(record) : { tracker: 'beads', id, url: null, title: null, state: status };
	}

	async comment(id: string, body: string): Promise<void> {
		await this.run(['comments', 'add', id, body]);
	}

	async createIssue(input: NewIssue): Promise<TrackerIssue> {
		const args = ['create', input.title, '--description', input.body, '--type', input.type ?? 'task', '--json'];
		if (input.labels?.length) {
			args.splice(args.length - 1, 0, '--labels', input.labels.join(','));
		}
		return beadsIssue(firstRecord(await this.json(args), input.title));
	}

	async linkCheckpoint(id: string, note: CheckpointNote): Promise<void> {
		await this.comment(id, renderCheckpointNote(note));
	}

	private async json(args: string[]): Promise<unknown> {
		const out = await this.run(args);
		try {
			return JSON.parse(out) as unknown;
		} catch {
			throw trackerError({ tracker: 'beads', secrets: new Map() }, `bd ${args[0]} printed no JSON: ${out.trim().slice(0, 120)}`, 0);
		}
	}

	private run(args: string[]): Promise<string> {
		return new Promise((resolve, reject) => {
			execFile(
				this.options.executable,
				args,
				{ cwd: this.options.cwd, timeout: this.options.timeoutMs, maxBuffer: 8 * 1024 * 1024, windowsHide: true },
				(error, stdout, stderr) => {
					if (error) {
						const why = (error as { killed?: boolean }).killed
							? `no answer within ${this.options.timeoutMs} ms`
							: (stderr.trim() || error.message).split('\n')[0]?.slice(0, 200);
						reject(trackerError({ tracker: 'beads', secrets: new Map() }, `bd ${args[0]} ${args[1] ?? ''} failed: ${why}`, 0));
						return;
					}
					resolve(stdout);
				},
			);
		});
	}
}

/** `bd show --json` prints an array (it takes several ids); `bd create --json` one object. */
function firstRecordOrNull(answer: unknown): Record<string, unknown> | null {
	const value = Array.isArray(answer) ? answer[0] : answer;
	return value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string' ? (value as Record<string, unknown>) : null;
}

function firstRecord(answer: unknown, what: string): Record<string, unknown> {
	const record = firstRecordOrNull(answer);
	if (!record) {
		throw trackerError({ tracker: 'beads', secrets: new Map() }, `bd answered without an issue for ${what}`, 0);
	}
	return record;
}
