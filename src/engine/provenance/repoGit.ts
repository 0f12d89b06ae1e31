/**
 * Read-only git for provenance: the user's repository (blame, diffs, blobs — never a ref, note,
 * config or index written; no optional locks) and Baton's shadow store (the trees the turn capture
 * wrote). Blobs are read in batches through one `cat-file --batch` per call.
 */
import path from 'node:path';
import { BatonError } from '../errors';
import { userRepoEnv } from '../git/gitEnv';
import { runGit } from '../git/gitRunner';
import type { ShadowRepo } from '../shadow/shadowRepo';

import type { GitRun } from '../git/objectReader';

/** The repository's top level, the workspace's path inside it (`''` or `sub/dir/`), and git's common directory (refs and reflogs). */
interface Layout {
	top: string;
	prefix: string;
	commonDir: string;
	/** This worktree's own git directory (HEAD and its reflog). */
	gitDir: string;
}

export class RepoGit {
	private readonly env: NodeJS.ProcessEnv;
	private topLevel: Promise<Layout> | undefined;

	constructor(
		readonly workspaceRoot: string,
		isolatedConfigFile: string,
	) {
		this.env = userRepoEnv(isolatedConfigFile);
	}

	readonly run: GitRun = async (args, input) =>
		(
			await runGit(['-c', 'core.quotePath=false', ...args], {
				cwd: this.workspaceRoot,
				env: this.env,
				...(input !== undefined ? { input } : {}),
				timeoutMs: 120_000,
			})
		).stdout;

	/**
	 * A git call whose input is still being produced (another git call's output): git is started now,
	 * so its start-up overlaps the producer's run instead of following it.
	 */
	async textOf(args: readonly string[], input: Promise<Buffer>): Promise<string> {
		return (await runGit(['-c', 'core.quotePath=false', ...args], { cwd: this.workspaceRoot, env: this.env, input, timeoutMs: 120_000 })).stdout.toString(
			'utf8',
		);
	}

	/** A git call whose exit code is the answer (`merge-base --is-ancestor`): 0 and 1 are not failures. */
	async status(args: readonly string[]): Promise<{ code: number }> {
		const result = await runGit(args, { cwd: this.workspaceRoot, env: this.env, okCodes: [1], timeoutMs: 120_000 });
		return { code: result.code };
	}

	async text(args: readonly string[], input?: string): Promise<string> {
		return (await this.run(args, input)).toString('utf8');
	}

	/**
	 * The repository's top level, the workspace's path inside it (`''` or `sub/dir/`) and git's common
	 * directory (where the refs and reflogs are), from one git call.
	 */
	layout(): Promise<Layout> {
		// The promise is kept, so callers asking at the same time share one git call; a failure is not kept.
		this.topLevel ??= this.readLayout().catch((error: unknown) => {
			this.topLevel = undefined;
			throw error;
		});
		return this.topLevel;
	}

	private async readLayout(): Promise<Layout> {
		let top: string;
		let commonDir: string;
		let gitDir: string;
		try {
			[top = '', commonDir = '', gitDir = ''] = (await this.text(['rev-parse', '--show-toplevel', '--git-common-dir', '--git-dir'])).split('\n');
		} catch (error) {
			throw new BatonError(
				'invalidInput',
				`${this.workspaceRoot} is not inside a git repository: line provenance follows git history (${(error as Error).message})`,
			);
		}
		const prefix = path.relative(top, this.workspaceRoot).split(path.sep).join('/');
		return {
			top,
			prefix: prefix ? `${prefix}/` : '',
			commonDir: path.resolve(this.workspaceRoot, commonDir),
			gitDir: path.resolve(this.workspaceRoot, gitDir),
		};
	}
}

export function shadowRun(shadow: ShadowRepo): GitRun {
	return async (args, input) => (await shadow.git(args, input !== undefined ? { input } : {})).stdout;
}

/** A text blob's lines (no trailing empty line); null for binary content, which has no lines to attribute. */
export function textLines(content: Buffer): string[] | null {
	if (content.includes(0)) {
		return null;
	}
	const text = content.toString('utf8');
	if (text === '') {
		return [];
	}
	const lines = text.split('\n');
	if (lines[lines.length - 1] === '') {
		lines.pop();
	}
	return lines;
}
