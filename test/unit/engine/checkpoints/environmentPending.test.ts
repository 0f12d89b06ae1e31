import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { pendingReason } from '../../../../src/engine/checkpoints/pendingEnvironment';
import { Engine } from '../../../../src/engine/engine';
import { sharedEvents } from '../../../../src/engine/storage/schema';
import { baton, cliPath } from '../../cli/cliRunner';
import { actor, MemoryLogger, tempDir } from '../../helpers';
import { makeWorkspace, openCheckpointEngine, probeGate } from './gitFixtures';

function fakeBin(dir: string, name: string, script: string): void {
	fs.writeFileSync(path.join(dir, name), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
}

void describe('environment capture off the checkpoint’s critical path', () => {
	void it('records the checkpoint without waiting for a slow probe; the environment follows in a second write that shares nothing', async (t) => {
		const bin = tempDir(t, 'baton-bin-');
		// The probe answers only once the test opens the gate, after the checkpoint is back: had create()
		// waited for it, the probe would have timed out and the environment would not be pending.
		const gate = probeGate(bin);
		fakeBin(bin, 'claude', `${gate.wait}; echo "2.0.0 (Claude Code)"`);
		const { engine } = await openCheckpointEngine(t, { searchPath: bin, config: { checkpoints: { environmentTimeout: 120_000 } } });
		const sharedOf = (id: string) => engine.store.read((db) => db.select().from(sharedEvents).where(eq(sharedEvents.subject, id)).all());

		const created = await engine.checkpoints.create({ actor });
		assert.equal(gate.opened(), false);
		assert.equal(created.environment?.pending, true, 'the probe is still running');
		assert.deepEqual(created.environment?.unknown, [pendingReason]);
		assert.deepEqual(created.environment?.agents, {}, 'nothing is claimed before it is known');
		const meanwhile = await engine.checkpoints.diff(created.id, created.id);
		assert.equal(meanwhile.environment.changed, false);
		assert.match(meanwhile.environment.note ?? '', /not captured yet/);
		const before = await sharedOf(created.id);
		assert.deepEqual(
			before.map((e) => e.kind),
			['checkpoint.recorded'],
		);

		gate.open();
		await engine.checkpoints.settled();
		const recorded = await engine.checkpoints.get(created.id);
		assert.equal(recorded.environment?.pending, undefined);
		assert.equal(recorded.environment?.agents['claude']?.version, '2.0.0');
		assert.deepEqual(recorded.environment?.unknown, []);
		assert.equal((await engine.checkpoints.diff(created.id, created.id)).environment.note, null);
		assert.deepEqual(await sharedOf(created.id), before, 'the late environment adds no shared event and changes none');
		assert.doesNotMatch(JSON.stringify(before[0]?.body), /environment|claude/);
		assert.equal(created.approvalStatus, recorded.approvalStatus);
	});

	void it('a capture that is already done goes in with the checkpoint: one write', async (t) => {
		const { engine } = await openCheckpointEngine(t);
		await engine.checkpoints.create({ actor });
		await engine.checkpoints.settled();
		const second = await engine.checkpoints.create({ actor });
		// Empty PATH and a cached git state: capture is done before the snapshot is.
		assert.equal(second.environment?.pending, undefined, JSON.stringify(second.environment));
		assert.ok(second.environment?.git);
	});

	void it('the CLI prints the checkpoint first and records its environment before it exits; killed in between, the environment stays unknown with a reason', async (t) => {
		assert.ok(fs.existsSync(cliPath), `${cliPath} is missing: run \`npm run build\` first (npm test does)`);
		const root = tempDir(t);
		makeWorkspace(root);
		assert.equal(baton(root, 'init').code, 0);
		const bin = tempDir(t, 'baton-bin-');
		const env = { ...process.env, BATON_ACTOR: 'test:cli', BATON_NO_DAEMON: '1', PATH: `${bin}${path.delimiter}${process.env['PATH'] ?? ''}` };
		fs.writeFileSync(path.join(root, '.baton', 'config.json'), JSON.stringify({ checkpoints: { environmentTimeout: 120_000 } }));

		// Finished: the probe answers only after the CLI printed the checkpoint (the row did not wait for
		// it), and the version it then gives is recorded (the exit did).
		const gate = probeGate(bin);
		fakeBin(bin, 'claude', `${gate.wait}; echo 3.1.0`);
		const run = await runCli(root, env, ['checkpoint', 'create', '--json'], { onOutput: gate.open });
		assert.equal(run.code, 0, run.stderr);
		const done = JSON.parse(run.stdout) as { checkpoint: { id: string } };
		const shown = baton(root, 'checkpoint', 'show', done.checkpoint.id, '--json', '--no-daemon');
		assert.equal(shown.json['checkpoint'].environment.pending, undefined);
		assert.equal(shown.json['checkpoint'].environment.agents.claude.version, '3.1.0');

		// Killed after printing, while the probe still runs: the row is whole, its environment unknown.
		fakeBin(bin, 'claude', `${probeGate(bin, 'never').wait}; echo 3.1.0`);
		const killed = await runCli(root, env, ['checkpoint', 'create', '--json'], { killOnOutput: true });
		const id = (JSON.parse(killed.stdout) as { checkpoint: { id: string } }).checkpoint.id;
		const engine = await Engine.open({ workspaceRoot: root, log: new MemoryLogger() });
		t.after(() => engine.close());
		const left = await engine.checkpoints.get(id);
		assert.equal(left.environment?.pending, true);
		assert.deepEqual(left.environment?.unknown, [pendingReason]);
		assert.equal((await engine.checkpoints.list()).length, 2, 'both rows read back');
		const comparison = await engine.checkpoints.diff(done.checkpoint.id, id);
		assert.equal(comparison.environment.changed, false, 'nothing looks removed');
		assert.match(comparison.environment.note ?? '', /never finished/);
	});
});

/** Runs the bundled CLI; as soon as it printed its answer, calls onOutput, and with killOnOutput SIGKILLs it. */
function runCli(
	cwd: string,
	env: NodeJS.ProcessEnv,
	args: string[],
	options: { killOnOutput?: boolean; onOutput?: () => void } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [cliPath, ...args], { cwd, env });
		let stdout = '';
		let stderr = '';
		let printed = false;
		child.stdout.on('data', (d: Buffer) => {
			stdout += d.toString();
			if (!printed && stdout.includes('\n')) {
				printed = true;
				options.onOutput?.();
				if (options.killOnOutput) child.kill('SIGKILL');
			}
		});
		child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
		child.on('close', (code) => resolve({ code, stdout, stderr }));
	});
}
