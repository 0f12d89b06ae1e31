/**
 * A large import runs in a process of its own (server/importProcess.ts): the long-lived backend keeps
 * none of its memory. Here with the built CLI as that process: its answers are the engine's own
 * (a preview, a run, a refused record, a refusal), what it wrote is read by the engine that asked
 * before the answer, and a process that ends without answering says how it ended. Through a real
 * daemon, a 4.5 MB file is imported by another process than the daemon's and read back through it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BatonError } from '../../../src/engine/errors';
import type { ImportProcess } from '../../../src/engine/interop/importService';
import { importProcess } from '../../../src/server/importProcess';
import { agentCli } from '../cli/agentCli';
import { beadsIssues, cleoSessionsData, writeJson, writeJsonl } from '../engine/interop/interopFixtures';
import { actor, openTestEngine, snapshotFiles, tempDir } from '../helpers';
import { baton, daemonPids, daemonWorkspace } from './daemonProcesses';

/** The runner, and what it logged. */
async function runner(root: string, cliPath?: string): Promise<{ run: ImportProcess; logged: string[] }> {
	const logged: string[] = [];
	const log = { info: (m: string) => logged.push(m), warn: (m: string) => logged.push(m), error: (m: string) => logged.push(m) };
	return { run: importProcess({ workspaceRoot: root, cliPath: cliPath ?? (await agentCli()), log }), logged };
}

void describe('an import in a process of its own', () => {
	void it('answers as the engine does: a preview writes nothing, a run is read before the answer, a second run adds nothing', async (t) => {
		const { engine, root } = await openTestEngine(t);
		const { run, logged } = await runner(root);
		engine.imports.inOwnProcess(run, 0);
		const file = writeJsonl(path.join(tempDir(t), 'issues.jsonl'), beadsIssues());
		const before = snapshotFiles(path.join(root, '.baton'));
		const preview = await engine.imports.run({ format: 'beads', path: file, dryRun: true, actor });
		assert.deepEqual([preview.dryRun, preview.added.tasks, preview.errors], [true, 5, []]);
		assert.deepEqual(snapshotFiles(path.join(root, '.baton')), before, 'a dry run writes nothing');

		const sequence = engine.store.sequence;
		const done = await engine.imports.run({ format: 'beads', path: file, dryRun: false, actor });
		assert.deepEqual([done.dryRun, done.added.tasks, done.errors], [false, 5, []]);
		// Before any read of its own: the import read what the other process wrote before it answered
		// (a backend announces the store's sequence to its windows right after a write).
		assert.ok(engine.store.sequence > sequence, `${engine.store.sequence} after ${sequence}`);
		assert.equal((await engine.tasks.list()).length, 5);
		const again = await engine.imports.run({ format: 'beads', path: file, dryRun: false, actor });
		assert.deepEqual([again.added.tasks, again.unchanged.tasks], [0, 5]);

		assert.equal(logged.length, 3, logged.join('\n'));
		for (const line of logged) {
			const pid = Number(/\(pid (\d+),/.exec(line)?.[1]);
			assert.ok(pid > 0 && pid !== process.pid, line);
			assert.match(line, /exit 0\)$/);
		}
		assert.match(logged[0] ?? '', /^previewed /);
		assert.match(logged[1] ?? '', new RegExp(`^imported ${file.replaceAll('.', '\\.')} in a process of its own`));
	});

	void it('returns a refused record as the report (exit 1, nothing written) and a refusal as the same BatonError', async (t) => {
		const { engine, root } = await openTestEngine(t);
		const { run } = await runner(root);
		engine.imports.inOwnProcess(run, 0);
		const bad = cleoSessionsData();
		bad['sessions'][0].status = 'paused';
		const before = snapshotFiles(path.join(root, '.baton'));
		const refused = await engine.imports.run({ format: 'cleo-sessions', path: writeJson(path.join(tempDir(t), 's.json'), bad), dryRun: false, actor });
		assert.deepEqual(
			refused.errors.map((e) => `${e.record}: ${e.field}`),
			['sessions[0] (session_20251230_161248_81c3ce): status'],
		);
		assert.deepEqual(snapshotFiles(path.join(root, '.baton')), before, 'a refused import writes nothing');

		// A refusal the CLI words as {"error":{code,message}}: a folder with no store.
		const bare = tempDir(t);
		const elsewhere = await runner(bare);
		const error = await elsewhere.run({ format: 'beads', path: path.join(bare, 'i.jsonl'), dryRun: false, actor }).catch((e: unknown) => e);
		assert.ok(BatonError.is(error), String(error));
		assert.equal(error.code, 'notInitialized', error.message);
		assert.match(error.message, /has no \.baton folder/);
	});

	void it('says how its process ended when it ended without an answer', async (t) => {
		const root = tempDir(t);
		const script = path.join(tempDir(t), 'dies.js');
		fs.writeFileSync(script, "process.stderr.write('ran out of something\\n'); process.kill(process.pid, 'SIGKILL');\n");
		const { run, logged } = await runner(root, script);
		const error = await run({ format: 'beads', path: path.join(root, 'x.jsonl'), dryRun: false, actor }).catch((e: unknown) => e);
		assert.ok(BatonError.is(error, 'storageFailure'), String(error));
		assert.equal(error.message, "the import's own process was ended by SIGKILL without an answer: ran out of something");
		assert.match(logged[0] ?? '', /SIGKILL\)$/);

		fs.writeFileSync(script, 'process.stdout.write(\'{"not":"a report"}\\n\'); process.exitCode = 3;\n');
		const odd = await run({ format: 'beads', path: path.join(root, 'x.jsonl'), dryRun: false, actor }).catch((e: unknown) => e);
		assert.ok(BatonError.is(odd, 'storageFailure'), String(odd));
		assert.equal(odd.message, "the import's own process exited with 3 without an answer");
	});

	void it('through the daemon: a file past 4 MB is imported by another process, and the daemon reads it at once', async (t) => {
		const { cli, root } = await daemonWorkspace(t);
		const issues = beadsIssues();
		(issues[0] as Record<string, unknown>)['description'] = 'a long description. '.repeat(230_000);
		const file = writeJsonl(path.join(tempDir(t), 'issues.jsonl'), issues);
		assert.ok(fs.statSync(file).size > 4 * 1024 * 1024);
		const small = writeJsonl(path.join(tempDir(t), 'small.jsonl'), beadsIssues().slice(1));

		const preview = await baton(cli, root, ['import', 'beads', file, '--dry-run', '--json']);
		assert.equal(preview.code, 0, preview.stderr);
		assert.equal((JSON.parse(preview.stdout) as { added: { tasks: number } }).added.tasks, 5);
		const run = await baton(cli, root, ['import', 'beads', file, '--json']);
		assert.equal(run.code, 0, run.stderr);
		const listed = await baton(cli, root, ['task', 'list', '--json']);
		const tasks = (JSON.parse(listed.stdout) as { tasks: { title: string; description: string | null }[] }).tasks;
		assert.equal(tasks.length, 5);
		const description = tasks.find((x) => x.title === 'Search')?.description ?? '';
		assert.ok(description.startsWith('a long description. '.repeat(230_000).trim()), `${description.length} characters: ${description.slice(0, 80)}`);
		// A small file is imported by the daemon itself, as before.
		assert.equal((await baton(cli, root, ['import', 'beads', small, '--json'])).code, 0);

		const [daemon] = daemonPids(root);
		const log = fs.readFileSync(path.join(root, '.baton', 'logs', 'daemon.log'), 'utf8');
		const own = [...log.matchAll(/(previewed|imported) (\S+) in a process of its own \(pid (\d+), [\d.]+ s, exit 0\)/g)];
		assert.deepEqual(
			own.map((m) => [m[1], m[2]]),
			[
				['previewed', file],
				['imported', file],
			],
			log,
		);
		for (const m of own) assert.notEqual(Number(m[3]), daemon);
		assert.ok(daemon, 'the daemon served the commands');
	});
});
