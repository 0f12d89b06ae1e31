/**
 * The pull of syncBench's sessions row alone, with this process's CPU time beside each wall time
 * (the machine is shared and loaded): machine A writes and pushes 1,000 sessions with handoffs per
 * round, machine B pulls them (fetch, merge, derive), and a plain `git fetch` of the same refs from
 * the same remote runs beside it, alternating which goes first.
 * Usage: node --import tsx bench/pullProbe.ts [sessions] [rounds]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useGitSpawner } from '../src/engine/git/gitSpawner';
import { git, workspace, writeSessions } from './syncBench';

async function main(): Promise<void> {
	// As the backend, which runs sync (see syncBench.ts).
	if (!process.env['BATON_NO_SPAWNER']) {
		useGitSpawner();
	}
	const count = Number(process.argv[2] ?? 1_000);
	const rounds = Number(process.argv[3] ?? 5);
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-pull-probe-'));
	const remote = path.join(root, 'remote.git');
	const plain = path.join(root, 'plain.git');
	git(root, ['init', '-q', '--bare', remote]);
	git(root, ['init', '-q', '--bare', plain]);
	const a = await workspace(path.join(root, 'a'), remote);
	const b = await workspace(path.join(root, 'b'), remote);
	try {
		for (let round = 0; round < rounds; round++) {
			await writeSessions(a, count, round);
			await a.sync.push();
			const pull = async (): Promise<{ wall: number; cpu: number; events: number }> => {
				const cpu = process.cpuUsage();
				const t = performance.now();
				const result = await b.sync.pull();
				const wall = performance.now() - t;
				const used = process.cpuUsage(cpu);
				return { wall, cpu: (used.user + used.system) / 1000, events: result.newEvents };
			};
			const fetch = (): number => {
				const t = performance.now();
				git(plain, ['fetch', '-q', remote, '+refs/baton/*:refs/baton-remotes/origin/*'], { GIT_DIR: plain });
				return performance.now() - t;
			};
			let ours: { wall: number; cpu: number; events: number };
			let base: number;
			if (round % 2 === 0) {
				ours = await pull();
				base = fetch();
			} else {
				base = fetch();
				ours = await pull();
			}
			process.stdout.write(
				`pull of ${ours.events} events: wall ${ours.wall.toFixed(0)} ms, cpu ${ours.cpu.toFixed(0)} ms (this process; git's own processes not counted); git fetch ${base.toFixed(0)} ms; ratio ${(ours.wall / base).toFixed(2)}\n`,
			);
		}
	} finally {
		a.close();
		b.close();
		fs.rmSync(root, { recursive: true, force: true });
	}
}

void main();
