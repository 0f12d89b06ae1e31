/**
 * Crash safety of `baton import agents` now that a transcript's header is not synced on its own and the
 * store's rows go in as one write per run (agentHistory/historyImport.ts, transcripts/archiveMeta.ts):
 * a CLI killed while it archives loses nothing it wrote and a second run completes the import, and a
 * header that claims excerpts its archive lost (a power cut) is not carried on from.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { sessionAliases, sessions } from '../../../../src/engine/storage/schema';
import { metaPathOf } from '../../../../src/engine/transcripts/archiveMeta';
import { encodeClaudeProjectDir } from '../../../../src/engine/transcripts/claudeProjects';
import { actor, openTestEngine, tempDir } from '../../helpers';
import { repoRoot } from '../../cli/agentCli';
import { cliPath } from '../../cli/cliRunner';
import { assertSecondRunChangesNothing } from './historyRuns';

const real = path.join(repoRoot, 'test', 'fixtures', 'real');
const sampleId = '01a22197-dbd8-7241-af6b-96b66b737258';

/** `count` Codex rollouts of `root`: the real 0.171.0 sample, each with its own thread id. */
function codexHome(t: TestContext, root: string, count: number): { home: string; ids: string[] } {
	const home = tempDir(t, 'baton-crash-home-');
	const day = path.join(home, '.codex', 'sessions', '2026', '11', '28');
	fs.mkdirSync(day, { recursive: true });
	const sample = fs.readFileSync(path.join(real, 'codex-rollout', 'rollout-0.171.0-apply-patch.jsonl'), 'utf8').replaceAll('/home/dev/project', root);
	const ids: string[] = [];
	for (let i = 0; i < count; i++) {
		const id = `0${String(i).padStart(7, '0')}-dbd8-7241-af6b-96b66b737258`;
		ids.push(id);
		fs.writeFileSync(path.join(day, `rollout-2026-11-28T09-58-50-${id}.jsonl`), sample.replaceAll(sampleId, id));
	}
	return { home, ids };
}

function fingerprint(dir: string): Map<string, string> {
	const out = new Map<string, string>();
	for (const name of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
		const file = path.join(dir, name);
		if (fs.statSync(file).isFile()) out.set(name, `${fs.statSync(file).mtimeMs} ${createHash('sha256').update(fs.readFileSync(file)).digest('hex')}`);
	}
	return out;
}

/**
 * Runs the bundled CLI's import in its own process and kills it (SIGKILL) as soon as the archive holds
 * a session's folder. Without a daemon: through one, the killed process would be the client, and the
 * daemon would go on importing beside the runs this test makes next (a CI run saw the journal grow under
 * the last one).
 */
async function importKilledWhileArchiving(root: string, home: string): Promise<void> {
	const transcripts = path.join(root, '.baton', 'transcripts');
	const child = spawn(process.execPath, [cliPath, 'import', 'agents', '--agent', 'codex', '--json'], {
		cwd: root,
		env: { ...process.env, HOME: home, CODEX_HOME: path.join(home, '.codex'), BATON_ACTOR: 'test:cli', BATON_NO_DAEMON: '1' },
		stdio: 'ignore',
	});
	const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
	let done = false;
	void exited.then(() => (done = true));
	while (!done) {
		const folders = fs.existsSync(transcripts) ? fs.readdirSync(transcripts).filter((n) => n.startsWith('ses_')) : [];
		if (folders.length > 0) {
			child.kill('SIGKILL');
			break;
		}
		await new Promise((resolve) => setTimeout(resolve, 2));
	}
	await exited;
}

test('an import killed while it archives loses nothing and a second run completes it: every session once, every transcript whole', async (t) => {
	assert.ok(fs.existsSync(cliPath), `${cliPath} is missing: run \`node esbuild.mjs\` first`);
	const { engine, root } = await openTestEngine(t);
	const count = 150;
	const { home, ids } = codexHome(t, root, count);
	const before = fingerprint(home);
	await importKilledWhileArchiving(root, home);
	const kept = await engine.store.read((db) => db.select({ id: sessions.id, name: sessions.name }).from(sessions).all());

	const env = { HOME: home, CODEX_HOME: path.join(home, '.codex') };
	const run = () => engine.agentHistory.import({ dryRun: false, actor, env, homeDir: home, agents: ['codex'] });
	const second = await run();
	assert.equal(second.agents['codex']?.found, count);
	const rows = await engine.store.read((db) => db.select().from(sessions).all());
	assert.equal(rows.length, count, 'each rollout is one session, none twice');
	for (const row of kept) {
		assert.equal(rows.find((r) => r.id === row.id)?.name, row.name, 'what the killed run wrote is kept as it was');
	}
	const aliases = await engine.store.read((db) => db.select().from(sessionAliases).all());
	assert.deepEqual(aliases.map((a) => a.alias).sort(), [...ids].sort());
	const archive = engine.transcripts({ env });
	for (const id of ids) {
		const read = archive.read(id, 'codex');
		assert.equal(read?.info.userRequests, 1, `${id}: the request once, not twice nor lost`);
		assert.equal(read?.info.toolCalls, 2, id);
		assert.equal(read?.excerpts.filter((e) => e.type === 'user').length, 1, `${id}: its archive holds its excerpts once`);
		assert.equal(rows.find((r) => r.id === read?.info.sessionId)?.name, 'patch the files', `${id}: named by its first request`);
	}
	assert.deepEqual(fingerprint(home), before, 'the agent’s files were only read');
	await assertSecondRunChangesNothing(root, run);
});

test('a header that claims more excerpts than its archive holds (a power cut) is not carried on from: the rollout is read again', async (t) => {
	const { engine, root } = await openTestEngine(t);
	const { home, ids } = codexHome(t, root, 3);
	const env = { HOME: home, CODEX_HOME: path.join(home, '.codex') };
	const run = () => engine.agentHistory.import({ dryRun: false, actor, env, homeDir: home, agents: ['codex'] });
	await run();
	const archive = engine.transcripts({ env });
	const whole = archive.read(ids[0] as string, 'codex');
	const dir = path.join(root, '.baton', 'transcripts');
	const cut = path.join(dir, whole?.info.archivePath ?? '');
	assert.ok(fs.existsSync(path.join(dir, metaPathOf(whole?.info.archivePath ?? ''))), 'the header lies beside the archive');
	// The power cut: the index is lost (it is a cache) and one archive lost its last excerpts, its header not.
	fs.rmSync(path.join(dir, 'index.json'));
	fs.truncateSync(cut, Math.floor(fs.statSync(cut).size / 2));

	const again = await run();
	assert.equal(again.agents['codex']?.imported, 0, 'the same sessions, none new');
	assert.equal(await engine.store.read((db) => db.select().from(sessions).all().length), 3);
	for (const id of ids) {
		const read = archive.read(id, 'codex');
		assert.deepEqual(read?.excerpts, whole?.excerpts, `${id}: every excerpt there once`);
		assert.equal(read?.info.userRequests, 1, id);
	}
});

test('Claude transcripts are told apart from one read of their head: a resumed conversation joins its session, a bootstrap and another project’s are passed over', async (t) => {
	const { engine, root } = await openTestEngine(t);
	const home = tempDir(t, 'baton-claude-head-');
	const dir = path.join(home, '.claude', 'projects', encodeClaudeProjectDir(root));
	fs.mkdirSync(dir, { recursive: true });
	const [a, b, c, d] = [
		'aaaaaaaa-0000-4000-8000-000000000001',
		'bbbbbbbb-0000-4000-8000-000000000002',
		'cccccccc-0000-4000-8000-000000000003',
		'dddddddd-0000-4000-8000-000000000004',
	];
	const record = (sessionId: string, text: string, cwd = root) => ({
		type: 'user',
		sessionId,
		cwd,
		timestamp: '2026-11-28T10:00:00.000Z',
		uuid: `${sessionId}-${text}`,
		message: { role: 'user', content: text },
	});
	const write = (id: string, records: object[]) => fs.writeFileSync(path.join(dir, `${id}.jsonl`), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
	write(a as string, [record(a as string, 'start the ledger')]);
	write(c as string, [{ type: 'file-history-snapshot', messageId: 'm', snapshot: {}, isSnapshotUpdate: false }]);
	write(d as string, [record(d as string, 'elsewhere', '/somewhere/else')]);
	const env = { HOME: home, BATON_CLAUDE_HOME: path.join(home, '.claude') };
	const run = () => engine.agentHistory.import({ dryRun: false, actor, env, homeDir: home, agents: ['claude-code'] });
	const first = await run();
	assert.deepEqual(
		first.sessions.map((s) => s.agentSessionId),
		[a],
		'the bootstrap and the other project’s transcript are no sessions',
	);
	assert.match(first.skipped.find((s) => s.path.endsWith(`${d}.jsonl`))?.reason ?? '', /another project/);
	// Claude resumed the conversation under a new id: its transcript starts with the earlier one's records.
	write(b as string, [record(a as string, 'start the ledger'), record(b as string, 'and round it')]);
	const second = await run();
	const resumed = second.sessions.find((s) => s.agentSessionId === b);
	assert.equal(resumed?.sessionId, first.sessions[0]?.sessionId, 'the resumed conversation is the same Baton session');
	assert.equal(await engine.store.read((db) => db.select().from(sessions).all().length), 1);
});

// A snapshot record lists a backup of every file Claude tracks: with many files, the first line alone is past the head's 64 KiB.
test('a bootstrap transcript whose first snapshot is longer than the head is still passed over', async (t) => {
	const { engine, root } = await openTestEngine(t);
	const home = tempDir(t, 'baton-claude-head-');
	const dir = path.join(home, '.claude', 'projects', encodeClaudeProjectDir(root));
	fs.mkdirSync(dir, { recursive: true });
	const id = 'eeeeeeee-0000-4000-8000-000000000005';
	const backups = Object.fromEntries(
		Array.from({ length: 2_000 }, (_, i) => [`src/module${i}/file${i}.ts`, { backupFileName: `backup-${i}@v1`, version: 1 }]),
	);
	const snapshot = {
		type: 'file-history-snapshot',
		messageId: 'm',
		snapshot: { messageId: 'm', trackedFileBackups: backups, timestamp: '2026-11-28T10:00:00.000Z' },
		isSnapshotUpdate: false,
	};
	const text = `${JSON.stringify(snapshot)}\n${JSON.stringify({ ...snapshot, isSnapshotUpdate: true })}\n`;
	assert.ok(text.indexOf('\n') > 64 * 1024, 'the first line is longer than the head');
	fs.writeFileSync(path.join(dir, `${id}.jsonl`), text);
	const env = { HOME: home, BATON_CLAUDE_HOME: path.join(home, '.claude') };
	const report = await engine.agentHistory.import({ dryRun: false, actor, env, homeDir: home, agents: ['claude-code'] });
	assert.deepEqual(
		report.sessions.map((s) => s.agentSessionId),
		[],
		'no conversation: no session',
	);
	assert.equal(await engine.store.read((db) => db.select().from(sessions).all().length), 0);
});

test('an import that fails half-way through its batch (a session’s archive folder cannot be made) loses nothing; the run after imports each session once, the archived half from its headers', async (t) => {
	const { engine, root } = await openTestEngine(t);
	const count = 8;
	const { home, ids } = codexHome(t, root, count);
	const env = { HOME: home, CODEX_HOME: path.join(home, '.codex') };
	const run = () => engine.agentHistory.import({ dryRun: false, actor, env, homeDir: home, agents: ['codex'] });
	const planned = await engine.agentHistory.import({ dryRun: true, actor, env, homeDir: home, agents: ['codex'] });
	const blocked = planned.sessions.find((s) => s.agentSessionId === ids[count / 2])?.sessionId as string;
	const dir = path.join(root, '.baton', 'transcripts');
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(path.join(dir, blocked), 'not a folder');
	await assert.rejects(run(), 'the batch stops at the session whose folder is a file');
	assert.equal(await engine.store.read((db) => db.select().from(sessions).all().length), 0, 'no row before the archive is whole');
	const archived = fs.readdirSync(dir).filter((n) => n.startsWith('ses_') && n !== blocked);
	assert.equal(archived.length, count / 2, 'the sessions before it were archived, their headers beside');

	const written = new Map(
		archived.flatMap((n) => fs.readdirSync(path.join(dir, n)).map((f) => [path.join(n, f), fs.statSync(path.join(dir, n, f)).mtimeMs])),
	);

	fs.rmSync(path.join(dir, blocked));
	const second = await run();
	assert.equal(fs.readFileSync(path.join(dir, 'index.json'), 'utf8').includes('"whole"'), false, 'the bytes discovery read are not kept in the index');
	for (const [file, mtimeMs] of written) {
		assert.equal(fs.statSync(path.join(dir, file)).mtimeMs, mtimeMs, `${file}: carried on from, not written again`);
	}
	assert.equal(second.agents['codex']?.imported, count);
	assert.equal(await engine.store.read((db) => db.select().from(sessions).all().length), count, 'each session once');
	const archive = engine.transcripts({ env });
	for (const id of ids) {
		const read = archive.read(id, 'codex');
		assert.equal(read?.info.userRequests, 1, `${id}: the request once`);
		assert.equal(read?.excerpts.filter((e) => e.type === 'user').length, 1, `${id}: its archive holds its excerpts once`);
		assert.equal(read?.info.offset, read?.info.sourceSize, `${id}: read to its end`);
	}
	await assertSecondRunChangesNothing(root, run);

	// A rebuild that finds an archive without its header or index entry matches it to the rollout discovery read whole: its entry takes the rollout's names, not its bytes.
	const first = archive.read(ids[0] as string, 'codex')?.info.archivePath as string;
	fs.rmSync(path.join(dir, metaPathOf(first)));
	fs.rmSync(path.join(dir, 'index.json'));
	await engine.agentHistory.reindex({ env, homeDir: home });
	const index = fs.readFileSync(path.join(dir, 'index.json'), 'utf8');
	assert.equal(index.includes('"whole"'), false, 'no bytes of an agent’s file in the index');
	assert.equal(archive.read(ids[0] as string, 'codex')?.info.sourcePath.endsWith(`${ids[0]}.jsonl`), true);
});
