/**
 * `baton blame` of one large file, for --cpu-prof: a repository whose file of LINES lines (a person's
 * first commit) then gets COMMITS agent commits of real captured steps, each changing a few lines
 * spread over the file; the pending commits are attributed, then the file is blamed cold through the
 * same engine calls `baton blame` makes, beside `git blame --porcelain` of the same file.
 * `node --import tsx bench/blameProbe.ts [lines] [commits] [profile-dir]` (a profile dir writes one
 * .cpuprofile per phase).
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { userRepoEnv } from '../src/engine/git/gitEnv';
import { runGit } from '../src/engine/git/gitRunner';
import type { Engine } from '../src/engine/engine';
import { blameFile } from '../src/engine/provenance/blameReader';
import { ProvenanceService } from '../src/engine/provenance/provenanceService';
import { agentCommits, blameRepo } from './blameBench';

async function main(): Promise<void> {
	const lineCount = Number(process.argv[2] ?? 100_000);
	const commits = Number(process.argv[3] ?? 10);
	const profileDir = process.argv[4];
	const session = profileDir ? new Session() : undefined;
	session?.connect();
	const phase = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
		if (session) {
			await session.post('Profiler.enable');
			await session.post('Profiler.start');
		}
		const started = performance.now();
		const cpu = process.cpuUsage();
		const value = await fn();
		const ms = performance.now() - started;
		const own = process.cpuUsage(cpu);
		if (session && profileDir) {
			const { profile } = await session.post('Profiler.stop');
			fs.mkdirSync(profileDir, { recursive: true });
			fs.writeFileSync(path.join(profileDir, `${name}.cpuprofile`), JSON.stringify(profile));
		}
		process.stdout.write(`${name}: ${ms.toFixed(0)} ms, ${((own.user + own.system) / 1000).toFixed(0)} ms of this process's CPU\n`);
		return value;
	};
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-probe-blame-'));
	let engine: Engine | undefined;
	try {
		const lines = Array.from({ length: lineCount }, (_, i) => `const v${i} = ${i};`);
		const made = await blameRepo(root, 'big.ts', lines);
		engine = made.engine;
		await agentCommits(
			made,
			root,
			'big.ts',
			lines,
			commits,
			(c, k) => (c * 37 + k * 3989) % lineCount,
			(i, c) => `const v${i} = ${i} + ${c};`,
		);
		const ctx = engine.ctx;
		await phase('attribute', () => new ProvenanceService(ctx).attributePending());
		const env = userRepoEnv(path.join(root, '.baton-probe-empty-gitconfig'));
		fs.writeFileSync(path.join(root, '.baton-probe-empty-gitconfig'), '');
		await phase('git-blame', () => runGit(['blame', '--porcelain', '--', 'big.ts'], { cwd: root, env }));
		const result = await phase('blame-cold', () => blameFile(new ProvenanceService(ctx), 'big.ts'));
		const agentLines = result.lines.filter((l) => l.origin === 'agent').length;
		process.stdout.write(`${result.lines.length} lines, ${agentLines} agent\n`);
		fs.appendFileSync(path.join(root, 'big.ts'), 'const extra = 1;\n');
		await phase('blame-uncommitted', () => blameFile(new ProvenanceService(ctx), 'big.ts'));
	} finally {
		engine?.close();
		fs.rmSync(root, { recursive: true, force: true });
	}
}

void main();
