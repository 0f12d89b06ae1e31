/**
 * The derived-state rebuild alone (as in syncBench's rebuild row), for `node --cpu-prof`: prints each
 * round's wall time and this process's CPU time for it, since the machine is shared and loaded.
 * Usage: node --import tsx bench/rebuildProbe.ts [events] [rounds]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/engine/engine';
import { silentLogger } from '../src/engine/ports';
import { machineIdentity } from '../src/engine/shared/machineIdentity';
import { toWire, type WireEvent } from '../src/engine/shared/sharedEvents';
import { mergeWireEvents } from '../src/engine/sync/mergeWire';
import { projectEvents } from '../src/engine/sync/projection';
import { sharedEvents } from '../src/engine/storage/schema';
import { writeSessions } from './syncBench';

async function open(dir: string): Promise<Engine> {
	fs.mkdirSync(dir, { recursive: true });
	execFileSync('git', ['init', '-q'], { cwd: dir });
	return Engine.open({ workspaceRoot: dir, log: silentLogger, create: true });
}

async function main(): Promise<void> {
	const events = Number(process.argv[2] ?? 10_000);
	const rounds = Number(process.argv[3] ?? 3);
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-rebuild-probe-'));
	try {
		const source = await open(path.join(root, 'src'));
		await writeSessions(source, Math.floor(events / 3), 0);
		const wire: WireEvent[] = (await source.store.read((db) => db.select().from(sharedEvents).all())).map(toWire);
		source.close();
		for (let round = 0; round < rounds; round++) {
			const dir = path.join(root, `r${round}`);
			const engine = await open(dir);
			// This machine's id is known before a pull's write (the sync service reads it once), not in it.
			const own = machineIdentity(dir).id;
			try {
				const phases = { merge: 0, project: 0 };
				const cpu = process.cpuUsage();
				const t = performance.now();
				await engine.store.write((db) => {
					const c0 = process.cpuUsage();
					const merged = mergeWireEvents(db, wire, 'origin', Date.now());
					const c1 = process.cpuUsage();
					phases.merge = (c1.user + c1.system - c0.user - c0.system) / 1000;
					projectEvents(db, merged.events, own, engine.store, { mergedAfter: merged.before });
					const c2 = process.cpuUsage();
					phases.project = (c2.user + c2.system - c1.user - c1.system) / 1000;
				});
				const wall = performance.now() - t;
				const used = process.cpuUsage(cpu);
				const journal = fs.statSync(path.join(dir, '.baton', 'baton.db.journal')).size;
				process.stdout.write(
					`${wire.length} events: wall ${wall.toFixed(0)} ms, cpu ${((used.user + used.system) / 1000).toFixed(0)} ms, journal ${(journal / 1e6).toFixed(2)} MB (CPU: merge ${phases.merge.toFixed(0)} ms, projection ${phases.project.toFixed(0)} ms, the rest is the commit: journal record, fdatasync, COMMIT)\n`,
				);
			} finally {
				engine.close();
			}
		}
	} finally {
		fs.rmSync(root, { recursive: true, force: true });
	}
}

void main();
