/**
 * Run as a fresh child process by the session-start bench: times the first task ranking over an
 * existing workspace, so nothing is warm (no JIT, no cached graph). `ours` is the product's one-pass
 * ranking; `reference` is the per-task search it replaced (kept with the unit tests).
 */
import { Engine } from '../src/engine/engine';
import { silentLogger } from '../src/engine/ports';
import { taskDependencies, tasks } from '../src/engine/storage/schema';
import { TaskGraph } from '../src/engine/tasks/taskGraph';
import { ReferenceRanking } from '../test/unit/engine/tasks/referenceRanking';

async function main(): Promise<void> {
	const [root, mode] = process.argv.slice(2);
	if (!root || (mode !== 'ours' && mode !== 'reference')) {
		throw new Error('usage: rankingProbe <workspace> ours|reference');
	}
	const engine = await Engine.open({ workspaceRoot: root, log: silentLogger, git: { read: async () => null } });
	const rows = engine.store.read((db) => ({ tasks: db.select().from(tasks).all(), deps: db.select().from(taskDependencies).all() }));
	const { tasks: all, deps } = await rows;
	const t = performance.now();
	const ranked = mode === 'ours' ? new TaskGraph(all, deps).rankedActionable().map((task) => task.id) : new ReferenceRanking(all, deps).ranked();
	const ms = performance.now() - t;
	engine.close();
	process.send?.({ ms, count: ranked.length, head: ranked.slice(0, 20) });
}

void main().catch((error: unknown) => {
	process.stderr.write(`${String(error)}\n`);
	process.exit(1);
});
