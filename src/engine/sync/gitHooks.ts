/**
 * `baton connect git`: the one thing Baton ever writes inside the user's `.git`, and only on that
 * explicit command. Three hooks get a block of Baton's between markers, merged into the user's own
 * hook when there is one (the original is copied to `<hook>.baton-backup` first): `pre-push` pushes
 * Baton's refs alongside the user's push (to that remote, only when sync is enabled for it);
 * `post-merge` and `post-checkout` pull. Baton's block never fails the user's git command and never
 * reads the hook's stdin. `--remove` takes the blocks out again (and deletes a hook Baton created).
 */
import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../errors';
import { hostEnv, runGit } from '../checkpoints/gitProcess';

const begin = '# >>> baton sync (baton connect git; remove with: baton connect git --remove) >>>';
const end = '# <<< baton sync <<<';

export interface HookFile {
	path: string;
	action: 'created' | 'updated' | 'unchanged' | 'removed' | 'deleted';
	backup?: string;
}

export const gitHookNames = ['pre-push', 'post-merge', 'post-checkout'] as const;

function blockFor(hook: (typeof gitHookNames)[number], command: string): string {
	const run = hook === 'pre-push' ? `${command} sync push --remote "$1"` : `${command} sync pull`;
	return [begin, `( ${run} </dev/null >/dev/null 2>&1 || true ) &`, end].join('\n');
}

export async function gitHooksDir(repo: string): Promise<string> {
	try {
		const out = await runGit(['-C', repo, 'rev-parse', '--git-path', 'hooks'], { cwd: repo, env: hostEnv({ GIT_OPTIONAL_LOCKS: '0', HOME: process.env['HOME'] ?? '' }), timeoutMs: 10_000 });
		return path.resolve(repo, out.stdout.toString('utf8').trim());
	} catch (error) {
		throw new BatonError('invalidInput', `${repo} is not a git repository: ${(error as Error).message}`);
	}
}

export async function connectGitHooks(repo: string, options: { command: string; remove: boolean }): Promise<HookFile[]> {
	const dir = await gitHooksDir(repo);
	const written: HookFile[] = [];
	for (const hook of gitHookNames) {
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
		const block = blockFor(hook, options.command);
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
			const lines = stripped.split('\n');
			const shebang = lines[0]?.startsWith('#!') ? `${lines.shift()}\n` : '#!/bin/sh\n';
			next = `${shebang}${block}\n${lines.join('\n')}`;
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
