/**
 * The first briefing in a fresh process over a store of many tasks (issue #28 item 2), without the
 * sessions the scale bench imports for minutes: CLEO's task database written by the scale bench's own
 * seeding (epics of 50 tasks, 29 of them done), brought in through the public importer, compacted, then
 * timed in fresh child processes (Engine.open, then the briefing), with the load average.
 *   node --import tsx bench/briefingProbe.ts <dir> [--tasks 200000] [--rounds 3] [--scope epic:T1] [--finished 0.9]
 * <dir> keeps the seeded workspace: a second run over the same <dir> times it again without seeding.
 * The seed leaves 42% of the tasks open (every epic is being worked on); `--finished S` first marks the
 * oldest share S of them done, whole epics at a time: a history where most epics are finished.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/engine/engine';
import { silentLogger } from '../src/engine/ports';
import { writeCleoTasksDb } from './scaleBench';

const git = { read: async () => null };

/** A workspace holding `taskCount` tasks imported from CLEO, compacted as an idle daemon leaves it. */
async function seed(dir: string, taskCount: number): Promise<string> {
	const workspace = path.join(dir, 'workspace');
	if (fs.existsSync(path.join(workspace, '.baton'))) {
		return workspace;
	}
	fs.mkdirSync(workspace, { recursive: true });
	const file = path.join(dir, 'cleo', '.cleo', 'tasks.db');
	writeCleoTasksDb(file, 0, taskCount / 2, false);
	const started = performance.now();
	const engine = await Engine.open({ workspaceRoot: workspace, log: silentLogger, git, create: true });
	try {
		await engine.imports.run({ format: 'cleo-db', path: file, dryRun: false, actor: 'bench' });
		if (engine.store.needsCompaction()) await engine.store.compact();
	} finally {
		engine.close();
	}
	process.stderr.write(`seeded ${taskCount} tasks in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
	return workspace;
}

/** Marks the oldest `share` of the tasks done (by seq: the seed's epics are consecutive), then compacts. */
async function finish(workspace: string, share: number): Promise<void> {
	const engine = await Engine.open({ workspaceRoot: workspace, log: silentLogger, git });
	try {
		const count = (engine.store.sqlite.exec('SELECT count(*) FROM tasks')[0]?.values[0]?.[0] as number) ?? 0;
		const last = Math.floor((count * share) / 50) * 50;
		await engine.store.write(() => engine.store.execCaptured(`UPDATE tasks SET status = 'done' WHERE seq <= ? AND status <> 'done'`, [last]));
		await engine.store.compact();
		process.stderr.write(`marked tasks 1–${last} done\n`);
	} finally {
		engine.close();
	}
}

/** In the child: open the engine and compute one briefing, nothing warm. */
async function timeOnce(workspace: string, scope: string): Promise<void> {
	const started = performance.now();
	const engine = await Engine.open({ workspaceRoot: workspace, log: silentLogger, git });
	const opened = performance.now();
	const cpu = process.cpuUsage();
	const briefing = await engine.briefings.briefing({ scope });
	const done = performance.now();
	const { user, system } = process.cpuUsage(cpu);
	engine.close();
	const next = briefing.nextTasks.map((t) => t.id);
	process.stdout.write(
		JSON.stringify({ open: opened - started, briefing: done - opened, cpu: (user + system) / 1000, next, epics: briefing.activeEpics.length }),
	);
}

function arg(name: string, fallback: string): string {
	const at = process.argv.indexOf(name);
	return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

async function main(): Promise<void> {
	const [mode, dir] = process.argv.slice(2);
	if (mode === 'child') {
		await timeOnce(dir as string, process.argv[4] as string);
		return;
	}
	if (!mode) throw new Error('usage: briefingProbe <dir> [--tasks N] [--rounds R] [--scope S]');
	const workspace = await seed(path.resolve(mode), Number(arg('--tasks', '200000')));
	if (process.argv.includes('--finished')) {
		await finish(workspace, Number(arg('--finished', '0.9')));
	}
	const scopes = [arg('--scope', 'global'), 'epic:T1'];
	for (let round = 0; round < Number(arg('--rounds', '3')); round++) {
		for (const scope of scopes) {
			const before = os.loadavg()[0] ?? 0;
			const child = spawnSync(process.execPath, ['--import', 'tsx', process.argv[1] as string, 'child', workspace, scope], { encoding: 'utf8' });
			if (child.status !== 0) throw new Error(child.stderr);
			const r = JSON.parse(child.stdout) as { open: number; briefing: number; cpu: number; next: string[]; epics: number };
			process.stdout.write(
				`${scope}: open ${r.open.toFixed(0)} ms, first briefing ${r.briefing.toFixed(0)} ms, CPU ${r.cpu.toFixed(0)} ms (load ${((before + (os.loadavg()[0] ?? 0)) / 2).toFixed(1)}; next ${r.next.join(',')}; ${r.epics} epics)\n`,
			);
		}
	}
}

void main().catch((error: unknown) => {
	process.stderr.write(`${String(error)}\n`);
	process.exit(1);
});
