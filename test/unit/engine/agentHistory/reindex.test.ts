/**
 * `baton doctor --reindex` (issue 26 item 2, "never lose one"): the transcript index rebuilt from the
 * archive's own headers and the agents' files still on disk. A real Codex rollout (the Codex CLI
 * 0.171.0 wrote it, test/fixtures/real/codex-rollout) and a Claude Code transcript, imported from a
 * temporary HOME; then the agents' files and index.json are deleted.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { sessions } from '../../../../src/engine/storage/schema';
import { encodeClaudeProjectDir } from '../../../../src/engine/transcripts/claudeProjects';
import { actor, openTestEngine, tempDir } from '../../helpers';
import { TranscriptWriter } from '../transcripts/transcriptWriter';
import { repoRoot } from '../../cli/agentCli';
import { baton, batonAsync, cliPath } from '../../cli/cliRunner';

const codexId = '01a22197-dbd8-7241-af6b-96b66b737258';
const claudeId = '7a1f0e0a-2222-4a5b-9c3d-0123456789ab';

function agentHome(t: TestContext, root: string): { home: string; rollout: string; claude: string } {
	const home = tempDir(t, 'baton-reindex-home-');
	const rollout = path.join(home, '.codex', 'sessions', '2026', '11', '28', `rollout-2026-11-28T09-58-50-${codexId}.jsonl`);
	fs.mkdirSync(path.dirname(rollout), { recursive: true });
	fs.writeFileSync(
		rollout,
		fs
			.readFileSync(path.join(repoRoot, 'test', 'fixtures', 'real', 'codex-rollout', 'rollout-0.171.0-apply-patch.jsonl'), 'utf8')
			.replaceAll('/home/dev/project', root),
	);
	const writer = new TranscriptWriter(claudeId, root);
	writer.user('rename the invoicing module to billing');
	writer.assistant([{ tool: 'Edit', input: { file_path: `${root}/billing.ts`, old_string: 'a', new_string: 'b' } }], { input_tokens: 10, output_tokens: 5 });
	const claude = path.join(home, '.claude', 'projects', encodeClaudeProjectDir(root), `${claudeId}.jsonl`);
	writer.flush(claude);
	return { home, rollout, claude };
}

/** Every file of the archive folder with its bytes' hash (what a second reindex must leave as it was). */
function archiveBytes(root: string): Map<string, string> {
	const out = new Map<string, string>();
	const walk = (dir: string): void => {
		for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
			const file = path.join(dir, e.name);
			if (e.isDirectory()) walk(file);
			else if (e.isFile() && e.name !== 'index.lock')
				out.set(path.relative(root, file), createHash('sha256').update(fs.readFileSync(file)).digest('hex'));
		}
	};
	walk(path.join(root, '.baton', 'transcripts'));
	return out;
}

async function setUp(t: TestContext) {
	const { engine, root } = await openTestEngine(t);
	const files = agentHome(t, root);
	const env = { HOME: files.home, BATON_CLAUDE_HOME: path.join(files.home, '.claude') };
	const archive = () => engine.transcripts({ env });
	const importAll = () => engine.agentHistory.import({ dryRun: false, actor, env, homeDir: files.home });
	const reindex = () => engine.agentHistory.reindex({ env, homeDir: files.home });
	return { engine, root, ...files, env, archive, importAll, reindex };
}

test('a session whose agent deleted its file and whose index.json is gone comes back whole from the archive; a second reindex changes no byte; a re-import neither drops nor duplicates it', async (t) => {
	const { engine, root, rollout, claude, archive, importAll, reindex } = await setUp(t);
	const first = await importAll();
	assert.equal(first.sessions.filter((s) => s.outcome === 'imported').length, 2, JSON.stringify(first));
	let before = archive().list();
	const codex = before.find((e) => e.agent === 'codex');
	assert.ok(codex?.sessionId, 'the Codex session is archived');
	const text = archive().read(codexId)?.excerpts;
	assert.ok(text && text.length > 2, 'its transcript has excerpts');
	const hitsBefore = await engine.search.search({ text: 'patch the files' });
	assert.ok(
		hitsBefore.hits.some((h) => h.sessionId === codex.sessionId),
		'found by what was asked',
	);

	// The person turned archiving off for the Claude session: the rebuilt index must still say so.
	const claudeSession = before.find((e) => e.agent === 'claude-code')?.sessionId ?? '';
	await archive().setArchiving(claudeSession, false);
	await archive().addNote(claudeSession, 'summary', 'renamed the module');
	const notes = archive().digest(claudeSession);
	before = archive().list();
	assert.equal(before.find((e) => e.agent === 'claude-code')?.archiving, false);
	fs.rmSync(rollout);
	fs.rmSync(claude);
	const index = path.join(root, '.baton', 'transcripts', 'index.json');
	fs.rmSync(index);
	assert.deepEqual(archive().list(), [], 'without its index the archive lists nothing');

	const report = await reindex();
	assert.equal(report.previousIndex, 'missing');
	assert.equal(report.changed, true);
	assert.equal(report.fromHeader, 2, JSON.stringify(report));
	assert.equal(report.recovered, 0);
	assert.deepEqual(report.agents['codex'], { transcripts: 1, archived: 1, sourceMissing: 1, unlinked: 0 });
	assert.deepEqual(report.agents['claude-code'], { transcripts: 1, archived: 1, sourceMissing: 1, unlinked: 0 });
	assert.deepEqual(
		report.problems.filter((p) => p.level === 'error'),
		[],
	);

	const after = archive().list();
	const strip = (list: typeof before) => list.map((e) => ({ ...e, sourceMissing: false }));
	assert.deepEqual(strip(after), strip(before), 'every entry as it was, its source now marked missing');
	assert.ok(after.every((e) => e.sourceMissing));
	assert.deepEqual(archive().read(codexId)?.excerpts, text, 'the transcript text as it was');
	assert.deepEqual(archive().digest(claudeSession), notes, 'the session’s notes, files and archive switch as they were');
	const hitsAfter = await engine.search.search({ text: 'patch the files' });
	assert.ok(
		hitsAfter.hits.some((h) => h.sessionId === codex.sessionId && h.kind === hitsBefore.hits.find((b) => b.sessionId === codex.sessionId)?.kind),
		JSON.stringify(hitsAfter.hits),
	);

	const bytes = archiveBytes(root);
	const again = await reindex();
	assert.equal(again.changed, false);
	assert.equal(again.previousIndex, 'ok');
	assert.equal(again.headersWritten, 0);
	assert.deepEqual(archiveBytes(root), bytes, 'a second reindex changes no byte of the index or the archive');

	const reimport = await importAll();
	assert.deepEqual(reimport.sessions, [], 'the agents’ files are gone: nothing to import');
	assert.equal(await engine.store.read((db) => db.select().from(sessions).all().length), 2, 'no session dropped or duplicated');
	assert.equal(archive().list().length, 2);
	assert.deepEqual(archive().read(codexId)?.excerpts, text);
});

test('an index.json lost while the agents’ files stay: the next import carries on from the archive’s headers, reading nothing twice', async (t) => {
	const { root, archive, importAll } = await setUp(t);
	await importAll();
	const excerpts = archive().read(codexId)?.excerpts;
	fs.rmSync(path.join(root, '.baton', 'transcripts', 'index.json'));
	const again = await importAll();
	assert.deepEqual(
		again.sessions.map((s) => s.outcome),
		['unchanged', 'unchanged'],
		JSON.stringify(again.sessions),
	);
	assert.deepEqual(archive().read(codexId)?.excerpts, excerpts, 'no excerpt archived twice');
});

test('hostile archive files: a truncated header, a header naming another place, a huge header, a FIFO, a newer version — each reported, nothing lost, the rest rebuilt', async (t) => {
	const { root, archive, importAll, reindex } = await setUp(t);
	await importAll();
	const dir = path.join(root, '.baton', 'transcripts');
	const codex = archive()
		.list()
		.find((e) => e.agent === 'codex');
	const claude = archive()
		.list()
		.find((e) => e.agent === 'claude-code');
	assert.ok(codex?.archivePath && claude?.archivePath);
	const codexMeta = path.join(dir, codex.archivePath.replace(/\.jsonl$/, '.meta.json'));
	const claudeMeta = path.join(dir, claude.archivePath.replace(/\.jsonl$/, '.meta.json'));
	const codexText = fs.readFileSync(path.join(dir, codex.archivePath), 'utf8');
	// Cut short mid-write by hand; the archive beside it is still read.
	fs.writeFileSync(codexMeta, fs.readFileSync(codexMeta, 'utf8').slice(0, 40));
	// Names a place outside the archive.
	const claudeHeader = JSON.parse(fs.readFileSync(claudeMeta, 'utf8')) as { entry: Record<string, unknown> };
	claudeHeader.entry['archivePath'] = '../../../outside.jsonl';
	fs.writeFileSync(claudeMeta, JSON.stringify(claudeHeader));
	// Another session's folder: a FIFO in place of an archive, a huge header, a header of a newer version.
	const other = path.join(dir, 'ses_20261128000000_aaaaaa');
	fs.mkdirSync(other);
	execFileSync('mkfifo', [path.join(other, 'fifo-1.jsonl')]);
	fs.writeFileSync(path.join(other, 'huge-1.jsonl'), '');
	fs.writeFileSync(path.join(other, 'huge-1.meta.json'), `{"kind":"baton-transcript","version":1,"entry":"${'x'.repeat(2 * 1024 * 1024)}"}`);
	fs.writeFileSync(path.join(other, 'future-1.jsonl'), '');
	fs.writeFileSync(path.join(other, 'future-1.meta.json'), JSON.stringify({ kind: 'baton-transcript', version: 9, entry: { shape: 'unknown' } }));
	fs.writeFileSync(path.join(dir, 'index.json'), '{"version":1,"transcripts":{'); // A damaged index.

	const report = await reindex();
	assert.equal(report.previousIndex, 'damaged');
	const reasons = Object.fromEntries(report.problems.filter((p) => p.level === 'error').map((p) => [p.path, p.reason]));
	assert.match(reasons[path.relative(dir, codexMeta)] ?? '', /not JSON \(cut short\?\).*read without it/);
	assert.match(reasons[path.relative(dir, claudeMeta)] ?? '', /names "\.\.\/\.\.\/\.\.\/outside\.jsonl".*not the place it lies in/);
	assert.match(reasons['ses_20261128000000_aaaaaa/fifo-1.jsonl'] ?? '', /is a FIFO, not a regular file/);
	assert.match(reasons['ses_20261128000000_aaaaaa/huge-1.meta.json'] ?? '', /larger than a header can be/);
	assert.match(reasons['ses_20261128000000_aaaaaa/future-1.meta.json'] ?? '', /newer Baton \(header version 9\): kept, not read/);
	assert.equal(fs.statSync(path.join(other, 'fifo-1.jsonl')).isFIFO(), true, 'nothing moved or deleted');
	assert.equal(JSON.parse(fs.readFileSync(path.join(other, 'future-1.meta.json'), 'utf8')).version, 9);
	assert.ok(
		fs.readdirSync(dir).some((f) => f.startsWith('index.json.damaged-')),
		'the damaged index kept aside',
	);

	const list = archive().list();
	const rebuiltCodex = list.find((e) => e.archivePath === codex.archivePath);
	assert.equal(rebuiltCodex?.agent, 'codex', 'the Codex archive rebuilt from its excerpts, its agent from its rollout still on disk');
	assert.equal(rebuiltCodex?.userRequests, codex.userRequests);
	assert.deepEqual(
		list.map((e) => e.archivePath).sort(),
		[claude.archivePath, codex.archivePath, 'ses_20261128000000_aaaaaa/future-1.jsonl', 'ses_20261128000000_aaaaaa/huge-1.jsonl'].sort(),
	);
	assert.equal(fs.readFileSync(path.join(dir, codex.archivePath), 'utf8'), codexText, 'its excerpts untouched');
	assert.ok(
		fs.readdirSync(path.dirname(codexMeta)).some((f) => f.startsWith(`${path.basename(codexMeta)}.damaged-`)),
		'the cut header set aside, a new one written',
	);

	const bytes = archiveBytes(root);
	const again = await reindex();
	assert.equal(again.changed, false, JSON.stringify(again.problems));
	assert.deepEqual(
		again.problems.filter((p) => p.level === 'error').map((p) => p.path),
		['ses_20261128000000_aaaaaa/fifo-1.jsonl', 'ses_20261128000000_aaaaaa/future-1.meta.json'],
		'what is left is what the rebuild must not touch (the huge header was damage: set aside and written anew)',
	);
	assert.deepEqual(archiveBytes(root), bytes);
});

test('baton doctor (the bundled CLI) names a damaged transcript index and the fix; doctor --reindex --json rebuilds it, then changes nothing; transcripts show and search read the session again', async (t) => {
	assert.ok(fs.existsSync(cliPath), `${cliPath} is missing: run \`node esbuild.mjs\` first`);
	const root = tempDir(t, 'baton-reindex-cli-');
	assert.equal(baton(root, 'init').code, 0);
	const { home, rollout } = agentHome(t, root);
	const env = { HOME: home, BATON_CLAUDE_HOME: path.join(home, '.claude'), CODEX_HOME: path.join(home, '.codex'), BATON_NO_DAEMON: '1' };
	assert.equal((await batonAsync(root, ['import', 'agents', '--json'], { env })).code, 0);
	assert.equal((await batonAsync(root, ['doctor', '--json'], { env })).json['ok'], true, 'a sound index passes');
	fs.rmSync(rollout);
	fs.writeFileSync(path.join(root, '.baton', 'transcripts', 'index.json'), '{"version":1,"transc');

	const check = await batonAsync(root, ['doctor'], { env });
	assert.equal(check.code, 1, check.stdout);
	assert.match(check.stdout, /FAIL\s+transcripts\s+index\.json is damaged/);
	assert.match(check.stdout, /Run `baton doctor --reindex`/);

	const rebuilt = await batonAsync(root, ['doctor', '--reindex', '--json'], { env });
	assert.equal(rebuilt.code, 0, rebuilt.stdout + rebuilt.stderr);
	const report = rebuilt.json['reindex'];
	assert.equal(report.previousIndex, 'damaged');
	assert.equal(report.changed, true);
	assert.deepEqual(report.agents['codex'], { transcripts: 1, archived: 1, sourceMissing: 1, unlinked: 0 });
	assert.ok((rebuilt.json['searchIndex'] as { records: number }).records > 0, 'the search index is built again from what the reindex left');
	assert.ok(fs.statSync(path.join(root, '.baton', 'cache', 'search-index.db')).size > 0, 'and saved');
	assert.deepEqual(Object.keys(report).sort(), [
		'agents',
		'changed',
		'fromHeader',
		'fromIndex',
		'headersWritten',
		'parsedBytes',
		'previousIndex',
		'problems',
		'recovered',
		'sessions',
		'skipped',
		'transcripts',
	]);
	const index = fs.readFileSync(path.join(root, '.baton', 'transcripts', 'index.json'));
	const again = await batonAsync(root, ['doctor', '--reindex'], { env });
	assert.equal(again.code, 0);
	assert.match(again.stdout, /already up to date: nothing changed/);
	assert.match(again.stdout, /Codex\s+1 transcript\(s\): 1 archived, 1 whose agent’s file is gone/);
	assert.ok(fs.readFileSync(path.join(root, '.baton', 'transcripts', 'index.json')).equals(index), 'byte-identical index after a second reindex');

	const shown = await batonAsync(root, ['transcripts', 'show', codexId], { env });
	assert.equal(shown.code, 0, shown.stderr);
	assert.match(shown.stdout, /patch the files/);
	const found = await batonAsync(root, ['search', 'patch the files', '--json'], { env });
	assert.ok(
		(found.json['hits'] as { agent: string }[]).some((h) => h.agent === 'codex'),
		JSON.stringify(found.json),
	);
});

test('an archive written before headers existed stays readable: the old index’s entries are kept and their headers written, so the next rebuild needs no index', async (t) => {
	const { root, archive, importAll, reindex } = await setUp(t);
	await importAll();
	const before = archive().list();
	const dir = path.join(root, '.baton', 'transcripts');
	for (const e of before) fs.rmSync(path.join(dir, (e.archivePath ?? '').replace(/\.jsonl$/, '.meta.json')));
	fs.rmSync(path.join(dir, '_sessions'), { recursive: true, force: true });

	const upgraded = await reindex();
	assert.equal(upgraded.fromIndex, 2, JSON.stringify(upgraded));
	assert.equal(upgraded.fromHeader, 0);
	assert.ok(upgraded.headersWritten >= 2);
	assert.deepEqual(archive().list(), before);

	fs.rmSync(path.join(dir, 'index.json'));
	const rebuilt = await reindex();
	assert.equal(rebuilt.fromHeader, 2);
	assert.deepEqual(archive().list(), before);
});

test('a writer that comes while the index is rebuilt waits for the rebuild’s lock, and what it wrote is kept', async (t) => {
	const { archive, importAll, reindex } = await setUp(t);
	const first = await importAll();
	const sessionId = first.sessions[0]?.sessionId ?? '';
	const [report, note] = await Promise.all([reindex(), archive().addNote(sessionId, 'summary', 'written during the rebuild')]);
	assert.equal(report.transcripts, 2);
	assert.deepEqual(archive().digest(sessionId).notes, [note], 'the note is in the index');
	const again = await reindex();
	assert.equal(again.changed, false, 'and in its session’s header: a rebuild from the headers keeps it');
	assert.deepEqual(archive().digest(sessionId).notes, [note]);
});
