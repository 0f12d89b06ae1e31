/**
 * Baton's opt-in provenance git hooks, installed by `baton connect git` (never by provenance on its
 * own: the user's `.git` is theirs). `post-commit` attributes the new commit at once (otherwise it is
 * found later, from HEAD's reflog); `post-rewrite` records git's own old → new pairs after an amend or
 * a rebase, the exact rewrite map. Each hook gets a block of Baton's between markers, right after the
 * shebang, merged into the user's own hook when there is one (the original is copied to
 * `<hook>.baton-backup` first); `--remove` takes the blocks out again and deletes a hook Baton created.
 * The blocks never fail the user's git command and do their work in the background; post-rewrite's
 * stdin is kept for the user's own part of the hook.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../errors';
import { hostEnv, runGit } from '../checkpoints/gitProcess';

export interface ProvenanceHookLines {
	'post-commit': string[];
	'post-rewrite': string[];
}

export const provenanceHookNames = ['post-commit', 'post-rewrite'] as const;

const begin = '# >>> baton provenance (baton connect git; remove with: baton connect git --remove) >>>';
const end = '# <<< baton provenance <<<';

export function provenanceGitHooks(baton = 'baton'): ProvenanceHookLines {
	return {
		'post-commit': [`( ${baton} provenance commit HEAD --new-only </dev/null >/dev/null 2>&1 || true ) &`],
		'post-rewrite': [
			'baton_pairs="$(mktemp 2>/dev/null)" || baton_pairs=""',
			'if [ -n "$baton_pairs" ] && cat > "$baton_pairs"; then',
			// The rest of the hook (the user's part) reads the same pairs from the saved copy.
			'\texec < "$baton_pairs"',
			`\t( ${baton} provenance rewritten "$1" --pairs-file "$baton_pairs" </dev/null >/dev/null 2>&1; rm -f "$baton_pairs" ) &`,
			'fi',
		],
	};
}

export interface ProvenanceHookFile {
	path: string;
	action: 'created' | 'updated' | 'unchanged' | 'removed' | 'deleted';
	backup?: string;
}

async function hooksDir(repo: string): Promise<string> {
	try {
		const out = await runGit(['-C', repo, 'rev-parse', '--git-path', 'hooks'], { cwd: repo, env: hostEnv({ GIT_OPTIONAL_LOCKS: '0', HOME: process.env['HOME'] ?? '' }), timeoutMs: 10_000 });
		return path.resolve(repo, out.stdout.toString('utf8').trim());
	} catch (error) {
		throw new BatonError('invalidInput', `${repo} is not a git repository: ${(error as Error).message}`);
	}
}

/** Installs (or with `remove` takes out) the post-commit and post-rewrite blocks; `command` runs the CLI. */
export async function connectProvenanceHooks(repo: string, options: { command: string; remove: boolean }): Promise<ProvenanceHookFile[]> {
	const dir = await hooksDir(repo);
	const lines = provenanceGitHooks(options.command);
	const written: ProvenanceHookFile[] = [];
	for (const hook of provenanceHookNames) {
		const file = path.join(dir, hook);
		let current: string | undefined;
		try {
			current = fs.readFileSync(file, 'utf8');
		} catch {
			current = undefined;
		}
		const stripped = current === undefined ? undefined : stripBlock(current);
		if (options.remove) {
			if (current === undefined || stripped === current) {
				continue;
			}
			if (stripped === undefined || /^#!\/bin\/sh\n*$/.test(stripped)) {
				fs.rmSync(file);
				written.push({ path: file, action: 'deleted' });
			} else {
				writeHook(file, stripped);
				written.push({ path: file, action: 'removed' });
			}
			continue;
		}
		const block = [begin, ...lines[hook], end].join('\n');
		let next: string;
		let backup: string | undefined;
		if (stripped === undefined) {
			next = `#!/bin/sh\n${block}\n`;
		} else {
			if (stripped === current) {
				backup = `${file}.baton-backup`;
				if (!fs.existsSync(backup)) {
					fs.copyFileSync(file, backup);
				}
			}
			// Right after the shebang: a user's hook that ends with `exit` must not skip Baton's block.
			const rest = stripped.split('\n');
			const shebang = rest[0]?.startsWith('#!') ? `${rest.shift()}\n` : '#!/bin/sh\n';
			next = `${shebang}${block}\n${rest.join('\n')}`;
		}
		if (next === current) {
			written.push({ path: file, action: 'unchanged' });
			continue;
		}
		fs.mkdirSync(dir, { recursive: true });
		writeHook(file, next);
		written.push({ path: file, action: current === undefined ? 'created' : 'updated', ...(backup ? { backup } : {}) });
	}
	return written;
}

function stripBlock(text: string): string {
	const start = text.indexOf(begin);
	const stop = text.indexOf(end);
	if (start < 0 || stop < start) {
		return text;
	}
	return text.slice(0, start) + text.slice(stop + end.length).replace(/^\n/, '');
}

function writeHook(file: string, text: string): void {
	const temp = `${file}.baton-tmp`;
	fs.writeFileSync(temp, text, { mode: 0o755 });
	fs.renameSync(temp, file);
	fs.chmodSync(file, 0o755);
}
