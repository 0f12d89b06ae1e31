import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Engine } from '../../../../src/engine/engine';
import { auditLog } from '../../../../src/engine/storage/schema';
import { MemoryLogger, tempDir } from '../../helpers';

const writer = path.join(__dirname, '../../fixtures/writer.ts');

function startWriter(root: string, name: string, count: number, go: string, compactAfter?: number) {
	const args = ['--import', 'tsx', writer, root, name, String(count), '--wait-for', go];
	if (compactAfter) {
		args.push('--compact-after', String(compactAfter));
	}
	const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
	let out = '';
	let err = '';
	child.stdout.on('data', (d: Buffer) => (out += d.toString()));
	child.stderr.on('data', (d: Buffer) => (err += d.toString()));
	const ready = new Promise<void>((resolve) => {
		const check = () => (out.includes('ready') ? resolve() : setTimeout(check, 5));
		check();
	});
	const done = new Promise<string>((resolve, reject) =>
		child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${name} exited ${code}: ${err}`)))),
	);
	return { ready, done };
}

void describe('several processes writing one workspace', () => {
	for (const scenario of [
		{ procs: 4, writes: 50, compactAfter: undefined },
		{ procs: 5, writes: 40, compactAfter: 6_000 },
	]) {
		void it(
			`loses no write with ${scenario.procs} processes released at once${scenario.compactAfter ? ', compacting as they go' : ''}`,
			{ timeout: 300_000 },
			async (t) => {
				const root = tempDir(t);
				(await Engine.open({ workspaceRoot: root, log: new MemoryLogger(), create: true })).close();
				const go = path.join(root, 'go');
				const writers = Array.from({ length: scenario.procs }, (_, i) => startWriter(root, `p${i}`, scenario.writes, go, scenario.compactAfter));
				await Promise.all(writers.map((w) => w.ready));
				fs.writeFileSync(go, '');
				await Promise.all(writers.map((w) => w.done));

				const engine = await Engine.open({ workspaceRoot: root, log: new MemoryLogger() });
				t.after(() => engine.close());
				const tasks = await engine.tasks.list();
				const expected = scenario.procs * scenario.writes;
				assert.equal(tasks.length, expected, 'every write is present');
				assert.deepEqual(
					tasks.map((task) => task.id),
					Array.from({ length: expected }, (_, i) => `T${i + 1}`),
					'task numbers are unique and gapless: no two processes read the same max',
				);
				for (let p = 0; p < scenario.procs; p++) {
					const mine = tasks.filter((task) => task.title.startsWith(`p${p}-`)).map((task) => task.title);
					assert.deepEqual(
						mine,
						Array.from({ length: scenario.writes }, (_, i) => `p${p}-${i}`),
						`p${p}'s writes in its order`,
					);
				}
				const audits = await engine.store.read((db) => db.select().from(auditLog).all());
				assert.equal(audits.filter((a) => a.operation === 'task.add').length, expected);
			},
		);
	}
});
