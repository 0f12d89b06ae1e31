/**
 * Baton's blocks in the user's git hooks (`baton connect git`): the one thing Baton ever writes inside
 * `.git`, and only on that command. Each feature's block sits between its own marker lines, right
 * after the shebang (a user's hook that ends with `exit` must not skip it), merged into the user's own
 * hook when there is one (the original is copied to `<hook>.baton-backup` first). With `remove` the
 * block comes out again, and a hook Baton created is deleted. Files are written whole and atomically.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface HookFile {
	path: string;
	action: 'created' | 'updated' | 'unchanged' | 'removed' | 'deleted';
	backup?: string;
}

interface HookBlocks {
	/** The hooks folder (`git rev-parse --git-path hooks`: honours `core.hooksPath`). */
	dir: string;
	/** The block's first and last lines: they find it again. */
	begin: string;
	end: string;
	/** Per hook, the lines between the markers. */
	lines: Readonly<Record<string, readonly string[]>>;
	remove: boolean;
}

export function writeHookBlocks(blocks: HookBlocks): HookFile[] {
	const written: HookFile[] = [];
	for (const [hook, lines] of Object.entries(blocks.lines)) {
		const file = path.join(blocks.dir, hook);
		let current: string | undefined;
		try {
			current = fs.readFileSync(file, 'utf8');
		} catch {
			current = undefined;
		}
		const stripped = current === undefined ? undefined : stripBlock(current, blocks.begin, blocks.end);
		if (blocks.remove) {
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
		const block = [blocks.begin, ...lines, blocks.end].join('\n');
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
			const rest = stripped.split('\n');
			const shebang = rest[0]?.startsWith('#!') ? `${rest.shift()}\n` : '#!/bin/sh\n';
			next = `${shebang}${block}\n${rest.join('\n')}`;
		}
		if (next === current) {
			written.push({ path: file, action: 'unchanged' });
			continue;
		}
		fs.mkdirSync(blocks.dir, { recursive: true });
		writeHook(file, next);
		written.push({ path: file, action: current === undefined ? 'created' : 'updated', ...(backup ? { backup } : {}) });
	}
	return written;
}

function stripBlock(text: string, begin: string, end: string): string {
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
