/**
 * `baton import agents` against hostile or unusual agent files: a workspace.yaml that is a FIFO, a device
 * or huge, start times that read as no time, a run stopped between the archive and the store, and a
 * Claude Code folder name that stands for another project too.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { eq } from 'drizzle-orm';
import { encodeClaudeProjectDir } from '../../../../src/engine/transcripts/claudeProjects';
import { sessionAliases, sessions } from '../../../../src/engine/storage/schema';
import { copyAs, real, setUp } from './historyHome';

test('a Copilot CLI session whose workspace.yaml is a FIFO, a link to a device or too large is skipped with why, one it reads as another folder falls back to session.start; the import never waits on it', async (t) => {
	const { home, root, run } = await setUp(t);
	const states = path.join(home, '.copilot', 'session-state');
	const session = (name: string): string => {
		copyAs(path.join(real, 'copilot-cli-session', 'events.jsonl'), path.join(states, name, 'events.jsonl'), root);
		return path.join(states, name, 'workspace.yaml');
	};
	execFileSync('mkfifo', [session('fifo-yaml')]);
	fs.symlinkSync('/dev/zero', session('device-yaml'));
	fs.writeFileSync(session('huge-yaml'), `cwd: ${root}\n${'# padding\n'.repeat(120_000)}`);
	// YAML this reader takes for another folder (an anchor): the session.start event names the workspace.
	fs.writeFileSync(session('anchored-yaml'), `cwd: &w ${root}\n`);
	const report = await run({ agents: ['copilot'] });
	const reason = (name: string): string => report.skipped.find((s) => s.path.includes(`${path.sep}${name}${path.sep}`))?.reason ?? '';
	assert.match(reason('fifo-yaml'), /workspace\.yaml cannot be read: it is a FIFO/);
	assert.match(reason('device-yaml'), /workspace\.yaml cannot be read: it is a symlink that leads out/);
	assert.match(reason('huge-yaml'), /workspace\.yaml cannot be read: it is larger than the limit/);
	assert.deepEqual(
		report.sessions.map((s) => path.basename(path.dirname(s.sourcePath))).sort(),
		['a88f76da-cc2b-48a7-bce5-29305a80223e', 'anchored-yaml'],
		'the session with its own workspace.yaml is imported, and the one whose session.start names the workspace',
	);
});

test('a start time an agent file gives that reads as no time never reaches the session id; a purge refuses an id that is no archive folder', async (t) => {
	const { engine, home, root, run } = await setUp(t);
	const day = path.join(home, '.codex', 'sessions', '2026', '11', '28');
	const hostile = ['\u001b]0;pwned\u0007', '/../../../../x/', '2025\nINJECTED line'];
	hostile.forEach((timestamp, i) => {
		const id = `0badc0de-0000-4000-8000-00000000000${i}`;
		const text = fs
			.readFileSync(path.join(real, 'codex-rollout', 'rollout-0.171.0-apply-patch.jsonl'), 'utf8')
			.replaceAll('/home/dev/project', root)
			.replaceAll('01a22197-dbd8-7241-af6b-96b66b737258', id)
			.replaceAll('"timestamp":"2026-11-28T09:58:50.081Z"', `"timestamp":${JSON.stringify(timestamp)}`);
		fs.writeFileSync(path.join(day, `rollout-2026-11-28T11-00-0${i}-${id}.jsonl`), text);
	});
	const report = await run({ agents: ['codex'] });
	const made = report.sessions.filter((s) => s.agentSessionId.startsWith('0badc0de'));
	assert.equal(made.length, 3);
	for (const s of made) {
		assert.match(s.sessionId, /^ses_\d{14}_[0-9a-f]{6}$/, JSON.stringify(s.sessionId));
		const [archived] = engine
			.transcripts({ env: { HOME: home, BATON_CLAUDE_HOME: path.join(home, '.claude') }, homeDir: home })
			.list({ sessionId: s.sessionId });
		assert.ok(archived?.archivePath, `${s.agentSessionId}'s transcript is archived`);
	}
	const outside = path.join(path.dirname(root), `x_${path.basename(root)}`);
	fs.mkdirSync(outside);
	t.after(() => fs.rmSync(outside, { recursive: true, force: true }));
	await assert.rejects(engine.transcripts().setArchiving(`ses_/../../../${path.basename(outside)}`, false, true), /is no session id the archive keeps/);
	assert.ok(fs.existsSync(outside), 'nothing outside the archive was removed');
});

test('a run that stopped between the archive and the store is finished under the session the archive named, though the file’s mtime (its only time) moved', async (t) => {
	const { engine, home, root, run } = await setUp(t);
	const id = '0badc0de-1111-4000-8000-000000000001';
	const file = path.join(home, '.codex', 'sessions', '2026', '11', '28', `rollout-2026-11-28T12-00-00-${id}.jsonl`);
	fs.writeFileSync(
		file,
		fs
			.readFileSync(path.join(real, 'codex-rollout', 'rollout-0.171.0-apply-patch.jsonl'), 'utf8')
			.replaceAll('/home/dev/project', root)
			.replaceAll('01a22197-dbd8-7241-af6b-96b66b737258', id)
			.replaceAll('"timestamp":"2026-11-28T09:58:50.081Z"', '"timestamp":"no time at all"'),
	);
	const first = (await run({ agents: ['codex'] })).sessions.find((s) => s.agentSessionId === id);
	assert.ok(first);
	// As if the run had stopped after the archive's index: the store holds neither the session nor its alias.
	await engine.store.write((db) => {
		db.delete(sessionAliases).where(eq(sessionAliases.alias, id)).run();
		db.delete(sessions).where(eq(sessions.id, first.sessionId)).run();
	});
	fs.utimesSync(file, new Date('2026-12-01T00:00:00Z'), new Date('2026-12-01T00:00:00Z'));
	const again = (await run({ agents: ['codex'] })).sessions.find((s) => s.agentSessionId === id);
	assert.equal(again?.sessionId, first.sessionId, 'the session the archive linked the transcript to');
	assert.equal(again?.outcome, 'imported');
	const archive = engine.transcripts({ env: { HOME: home, BATON_CLAUDE_HOME: path.join(home, '.claude') }, homeDir: home });
	assert.equal(archive.list({ sessionId: first.sessionId }).length, 1, 'its transcript is that session’s');
});

test('a Claude Code conversation of another project whose folder name is the same is told by its cwd, though its first record is longer than the head', async (t) => {
	const { home, root, run } = await setUp(t);
	// `/…/x-project` is Claude's folder name for `/…/x/project` too.
	const other = `${path.dirname(root)}-${path.basename(root)}`;
	const id = '0badc0de-2222-4000-8000-000000000002';
	const line = (cwd: string, text: string): string =>
		JSON.stringify({ type: 'user', sessionId: id, cwd, timestamp: '2026-11-28T13:00:00.000Z', message: { role: 'user', content: text } });
	const dir = path.join(home, '.claude', 'projects', encodeClaudeProjectDir(root));
	assert.equal(encodeClaudeProjectDir(other), encodeClaudeProjectDir(root));
	fs.writeFileSync(path.join(dir, `${id}.jsonl`), `${line(other, `the other project's secret ${'x'.repeat(100_000)}`)}\n`);
	const report = await run({ agents: ['claude-code'] });
	assert.equal(
		report.sessions.find((s) => s.agentSessionId === id),
		undefined,
		'not imported',
	);
	assert.match(report.skipped.find((s) => s.path.includes(id))?.reason ?? '', /it records another project/);
});
