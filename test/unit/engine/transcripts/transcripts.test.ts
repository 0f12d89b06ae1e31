/**
 * Transcript discovery, incremental parsing and the excerpt archive, on realistic generated Claude
 * Code transcripts; and `baton transcripts sync|list|show|archive` through the bundled CLI.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { claudeProjectDir, encodeClaudeProjectDir } from '../../../../src/engine/transcripts/claudeProjects';
import { isUnneededLine, type Excerpt } from '../../../../src/engine/transcripts/transcriptExcerpts';
import { renderTranscriptMarkdown } from '../../../../src/engine/transcripts/transcriptMarkdown';
import { tempDir } from '../../helpers';
import { agentCli, runBaton } from '../../cli/agentCli';
import { TranscriptWriter } from './transcriptWriter';
import { durable, mainId, realistic, setup } from './transcriptWorld';

void describe('transcript archive', () => {
	void it('archives excerpts of a realistic transcript: requests, text, tools with files, errors, compaction; drops the rest, redacts secrets', async (t) => {
		const s = setup(t);
		const file = path.join(s.projectDir, `${mainId}.jsonl`);
		const w = realistic(s.root);
		w.flush(file);
		fs.appendFileSync(file, '{"type":"user","message":{"role":"user","content":"half-writ');
		assert.equal(path.basename(s.projectDir), encodeClaudeProjectDir(s.root));
		assert.match(path.basename(s.projectDir), /-my-project$/, 'every non-alphanumeric character becomes -');

		const report = await s.archive.sync({ link: s.link });
		assert.equal(report.synced.length, 1);
		assert.equal(
			report.parsedBytes,
			fs.statSync(file).size - Buffer.byteLength('{"type":"user","message":{"role":"user","content":"half-writ'),
			'the torn last line is left for later',
		);
		const [info] = s.archive.list();
		assert.equal(info?.sessionId, durable);
		assert.equal(info?.title, 'Auth module refactor');
		assert.equal(info?.userRequests, 1, 'meta records and tool results are not requests');
		assert.equal(info?.toolCalls, 4);
		assert.equal(info?.errors, 1);
		assert.equal(info?.compactions, 1);
		assert.equal(info?.assistantMessages, 4, 'one message per id, however many records');
		assert.deepEqual(
			info?.tokens['claude-sonnet-4-5-20250929'],
			{ input: 3_800, output: 540, cacheRead: 20_000, cacheCreation: 5_000 },
			'usage counted once per message',
		);
		assert.deepEqual(info?.filesTouched, ['src/auth.ts', 'src/rotation.ts'], 'edits only, workspace-relative');
		assert.equal(info?.bootstrap, false);

		const found = s.archive.read(mainId);
		const types = found?.excerpts.map((e) => e.type);
		assert.deepEqual(types, ['user', 'assistant', 'tool', 'assistant', 'tool', 'tool', 'error', 'compact', 'summary', 'tool', 'assistant']);
		const excerpts = found?.excerpts as Excerpt[];
		const bash = excerpts.find((e) => e.type === 'tool' && e.name === 'Bash');
		assert.deepEqual(bash, {
			type: 'tool',
			at: bash?.at,
			name: 'Bash',
			id: bash && 'id' in bash ? bash.id : null,
			files: [],
			edit: false,
			detail: 'npm test -- --token=[REDACTED:github-token]',
		});
		const error = excerpts.find((e) => e.type === 'error');
		assert.equal(error && 'tool' in error ? error.tool : null, 'Bash', 'errors name their tool');
		assert.deepEqual(
			excerpts.find((e) => e.type === 'compact'),
			{ type: 'compact', at: excerpts[7]?.at ?? null, trigger: 'auto', preTokens: 154_321 },
		);
		const bytes = fs.readFileSync(path.join(s.archive.dir, durable, `${mainId}.jsonl`), 'utf8');
		for (const secret of ['DONOTLEAK', 'hunter2', 'ghp_0123456789', 'abcdefghijklmnop0123']) {
			assert.ok(!bytes.includes(secret), `${secret} is not archived`);
		}
		assert.doesNotMatch(bytes, /some-future-record|hook_success|file-history-snapshot|\/model/);

		const markdown = renderTranscriptMarkdown(found!.info, found!.excerpts, found!.notes);
		assert.match(markdown, /^# Auth module refactor — Claude Code transcript 6f1c2a9e/);
		assert.match(markdown, /## 2026-03-01 09:00:00 User\n\n> Refactor the auth module\. Our key is \[REDACTED:anthropic-key\]/);
		assert.match(markdown, /- ✎ `Edit` `src\/auth\.ts`/);
		assert.match(markdown, /\*\*Error \(Bash\):\*\*\n\n```\nFAIL src\/auth\.test\.ts/);
		assert.match(markdown, /\*Conversation compacted \(auto\) at 154,321 tokens\.\*/);
		assert.match(markdown, /Files changed: `src\/auth\.ts`, `src\/rotation\.ts`/);
	});

	void it('a model or transcript named like an Object member (__proto__, constructor) is its own entry and touches no prototype', async (t) => {
		const s = setup(t);
		const file = path.join(s.projectDir, `${mainId}.jsonl`);
		const w = new TranscriptWriter(mainId, s.root);
		w.user('Count my tokens');
		w.assistant([{ text: 'one' }], { input_tokens: 10, output_tokens: 1 }, '__proto__');
		w.assistant([{ text: 'two' }], { input_tokens: 20, output_tokens: 2 }, 'constructor');
		w.assistant([{ text: 'three' }], { input_tokens: 30, output_tokens: 3 }, 'toString');
		w.flush(file);
		// Transcripts whose agent session ids (their file names) are such names too.
		for (const id of ['__proto__', 'constructor']) {
			const other = new TranscriptWriter(id, s.root);
			other.user(`named ${id}`);
			other.assistant([{ text: 'ok' }], { input_tokens: 1, output_tokens: 1 });
			other.flush(path.join(s.projectDir, `${id}.jsonl`));
			s.links.set(id, durable);
		}
		try {
			const report = await s.archive.sync({ link: s.link });
			// `__proto__` is no name Baton gives a file (its archive names files by transcript id): left out, said.
			assert.deepEqual(report.synced.map((i) => i.agentSessionId).sort(), [mainId, 'constructor']);
			assert.ok(s.log.warnings().some((m) => m.includes('transcript __proto__ has an id Baton does not use as a file name')));
			assert.equal(
				s.archive.read('constructor')?.excerpts.some((e) => e.type === 'user' && e.text === 'named constructor'),
				true,
			);
			// Before: Object.prototype.input became NaN for every object in the process (and Object.input 20).
			assert.equal(Object.hasOwn(Object.prototype, 'input'), false);
			assert.equal(Object.hasOwn(Object, 'input'), false);
			const info = s.archive.list().find((i) => i.agentSessionId === mainId);
			assert.deepEqual(Object.keys(info?.tokens ?? {}).sort(), ['__proto__', 'constructor', 'toString']);
			const digest = s.archive.digest(durable);
			assert.deepEqual(digest.tokens, { input: 61, output: 7, cacheRead: 0, cacheCreation: 0 });
			assert.ok(Number.isFinite(digest.costUsd), `${digest.costUsd}`);
			assert.equal(Object.hasOwn(Object.prototype, 'input'), false, 'the digest touched no prototype either');
		} finally {
			// Whatever happened, the next test runs on clean prototypes.
			for (const key of ['input', 'output', 'cacheRead', 'cacheCreation']) {
				delete (Object.prototype as Record<string, unknown>)[key];
				delete (Object as unknown as Record<string, unknown>)[key];
			}
		}
	});

	void it('parses only what was appended since the last sync, completing a torn line, without duplicates', async (t) => {
		const s = setup(t);
		const file = path.join(s.projectDir, `${mainId}.jsonl`);
		const w = new TranscriptWriter(mainId, s.root);
		w.user('first request');
		w.assistant([{ text: 'first answer' }], { input_tokens: 10, output_tokens: 5 });
		let written = w.flush(file);
		const torn = JSON.stringify({
			type: 'user',
			sessionId: mainId,
			timestamp: '2026-03-01T09:10:00.000Z',
			message: { role: 'user', content: 'second request' },
		});
		fs.appendFileSync(file, torn.slice(0, 20));
		await s.archive.sync({ link: s.link });
		const firstOffset = s.archive.list()[0]?.offset as number;
		fs.appendFileSync(file, `${torn.slice(20)}\n`);
		w.assistant([{ text: 'second answer' }], { input_tokens: 10, output_tokens: 5 });
		const appendedFrom = fs.statSync(file).size;
		written = w.flush(file, written);
		const second = await s.archive.sync({ link: s.link });
		assert.equal(second.parsedBytes, fs.statSync(file).size - firstOffset, 'only the new bytes');
		assert.ok(second.parsedBytes < fs.statSync(file).size);
		assert.ok(appendedFrom > firstOffset);
		const texts = s.archive.read(mainId)?.excerpts.map((e) => ('text' in e ? e.text : e.type));
		assert.deepEqual(texts, ['first request', 'first answer', 'second request', 'second answer']);
		const third = await s.archive.sync({ link: s.link });
		assert.equal(third.parsedBytes, 0, 'nothing new, nothing parsed');
		assert.equal(third.synced.length, 0);
		// An interrupted sync (archive written, index not) is cut back and parsed again, not doubled.
		const archiveFile = path.join(s.archive.dir, durable, `${mainId}.jsonl`);
		fs.appendFileSync(archiveFile, '{"type":"user","at":null,"text":"half of a sync that died"}\n');
		w.user('third request');
		w.flush(file, written);
		await s.archive.sync({ link: s.link });
		assert.deepEqual(
			s.archive
				.read(mainId)
				?.excerpts.map((e) => ('text' in e ? e.text : e.type))
				.at(-1),
			'third request',
		);
		assert.doesNotMatch(fs.readFileSync(archiveFile, 'utf8'), /died/);
	});

	void it('links subagent transcripts through their parent, marks bootstrap ones, skips unlinked ones', async (t) => {
		const s = setup(t);
		realistic(s.root).flush(path.join(s.projectDir, `${mainId}.jsonl`));
		const subDir = path.join(s.projectDir, mainId, 'subagents');
		const sub = new TranscriptWriter(mainId, s.root, Date.parse('2026-03-01T09:05:00.000Z'), { sidechain: true, agentId: 'a3f9c1e' });
		sub.user('Find every caller of issueToken');
		const [grep] = sub.assistant(
			[{ tool: 'Grep', input: { pattern: 'issueToken', path: s.root } }],
			{ input_tokens: 400, output_tokens: 20 },
			'claude-haiku-4-5-20251001',
		);
		sub.toolResult(grep as string, 'src/a.ts\nsrc/b.ts');
		sub.assistant([{ text: 'Found 2 callers.' }], { input_tokens: 500, output_tokens: 30 }, 'claude-haiku-4-5-20251001');
		sub.flush(path.join(subDir, 'agent-a3f9c1e.jsonl'));
		fs.writeFileSync(path.join(subDir, 'agent-a3f9c1e.meta.json'), JSON.stringify({ agentType: 'Explore', description: 'Find callers' }));
		new TranscriptWriter('bootstrap-id', s.root).snapshot().flush(path.join(s.projectDir, 'bootstrap-id.jsonl'));
		s.links.set('bootstrap-id', durable);
		new TranscriptWriter('someone-else', s.root).user('not ours').flush(path.join(s.projectDir, 'someone-else.jsonl'));

		const report = await s.archive.sync({ link: s.link });
		assert.equal(report.unlinked, 1);
		assert.equal(report.bootstrap, 1);
		const byId = new Map(s.archive.list().map((i) => [i.id, i]));
		assert.deepEqual([...byId.keys()].sort(), [
			'6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33',
			'6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33/agent-a3f9c1e',
			'bootstrap-id',
			'someone-else',
		]);
		const subInfo = byId.get(`${mainId}/agent-a3f9c1e`);
		assert.equal(subInfo?.sessionId, durable, 'linked through its parent');
		assert.equal(subInfo?.agentType, 'Explore');
		assert.equal(subInfo?.archivePath, `${durable}/${mainId}.agent-a3f9c1e.jsonl`);
		assert.deepEqual(subInfo?.tokens['claude-haiku-4-5-20251001'], { input: 900, output: 50, cacheRead: 0, cacheCreation: 0 });
		assert.equal(byId.get('bootstrap-id')?.bootstrap, true);
		assert.equal(byId.get('bootstrap-id')?.archivePath, null, 'nothing archived for a bootstrap transcript');
		assert.equal(byId.get('someone-else')?.sessionId, null);
		assert.equal(byId.get('someone-else')?.archivePath, null, 'unlinked transcripts are listed, not copied');
		const digest = s.archive.digest(durable);
		assert.equal(digest.transcripts, 3);
		assert.equal(digest.toolCalls, 5);
		assert.equal(digest.userRequests, 1, 'a subagent’s prompt is not a user request');
		assert.equal(digest.lastUserText?.startsWith('Refactor the auth module'), true);
		assert.ok(digest.costUsd > 0);
		// Linked later: the next sync archives it.
		s.links.set('someone-else', durable);
		await s.archive.sync({ link: s.link });
		assert.equal(s.archive.read('someone-else')?.excerpts.length, 1);
	});

	void it('keeps the archive when Claude deletes its transcript, and stops (or purges) when archiving is off', async (t) => {
		const s = setup(t);
		const file = path.join(s.projectDir, `${mainId}.jsonl`);
		realistic(s.root).flush(file);
		await s.archive.sync({ link: s.link });
		fs.rmSync(file);
		await s.archive.sync({ link: s.link });
		const kept = s.archive.read(mainId);
		assert.equal(kept?.info.sourceMissing, true);
		assert.equal(kept?.excerpts.length, 11);
		assert.match(renderTranscriptMarkdown(kept!.info, kept!.excerpts), /deleted by the agent; this archive is what remains/);

		const other = 'e0e0e0e0-1111-2222-3333-444444444444';
		s.links.set(other, 'ses_20260301100000_fedcba');
		await s.archive.setArchiving('ses_20260301100000_fedcba', false);
		new TranscriptWriter(other, s.root).user('private work').flush(path.join(s.projectDir, `${other}.jsonl`));
		const report = await s.archive.sync({ link: s.link });
		assert.equal(report.skipped, 1);
		assert.equal(s.archive.read(other)?.excerpts.length, 0);
		assert.equal(fs.existsSync(path.join(s.archive.dir, 'ses_20260301100000_fedcba')), false);
		const purged = await s.archive.setArchiving(durable, false, true);
		assert.equal(purged.purged, 1);
		assert.equal(fs.existsSync(path.join(s.archive.dir, durable)), false);
		assert.equal(s.archive.read(mainId)?.excerpts.length, 0);
	});

	void it('skips unparsed only the big lines it needs nothing from: snapshots and successful tool results', async (t) => {
		const s = setup(t);
		const file = path.join(s.projectDir, `${mainId}.jsonl`);
		const w = new TranscriptWriter(mainId, s.root);
		w.user('read the big file');
		const [ok, failed] = w.assistant(
			[
				{ tool: 'Read', input: { file_path: 'big.txt' } },
				{ tool: 'Bash', input: { command: 'make' } },
			],
			{ input_tokens: 1, output_tokens: 1 },
		);
		w.toolResult(ok as string, 'x'.repeat(50_000));
		w.toolResult(failed as string, `make: *** [all] Error 2 ${'y'.repeat(50_000)} password=hunter2`, true);
		// An assistant message quoting the marker is not mistaken for a tool result: quotes in strings are escaped.
		w.assistant([{ text: `the record said "type":"tool_result" and ${'z'.repeat(5_000)}` }], { input_tokens: 1, output_tokens: 1 });
		// As Claude Code writes a command's result: "is_error":false said outright (skipped); one of two results
		// failed, or the key written with a space (parsed: only :false exactly is taken for a success).
		const [said, mixedOk, mixedFailed, spaced] = w.assistant(
			[
				{ tool: 'Bash', input: { command: 'ls' } },
				{ tool: 'Bash', input: { command: 'true' } },
				{ tool: 'Bash', input: { command: 'false' } },
				{ tool: 'Bash', input: { command: 'exit 3' } },
			],
			{ input_tokens: 1, output_tokens: 1 },
		);
		const result = (id: string | undefined, text: string, isError: boolean) => ({ type: 'tool_result', tool_use_id: id, content: text, is_error: isError });
		w.push({ type: 'user', message: { role: 'user', content: [result(said, 'a'.repeat(5_000), false)] } });
		w.push({ type: 'user', message: { role: 'user', content: [result(mixedOk, 'b'.repeat(5_000), false), result(mixedFailed, 'it failed', true)] } });
		w.flush(file);
		const spacedLine = JSON.stringify({ type: 'user', message: { role: 'user', content: [result(spaced, 'c'.repeat(5_000), true)] } }).replace(
			'"is_error":true',
			'"is_error": true',
		);
		fs.appendFileSync(file, `${spacedLine}\n`);
		const lines = fs
			.readFileSync(file, 'utf8')
			.trim()
			.split('\n')
			.map((l) => Buffer.from(l));
		assert.deepEqual(lines.map(isUnneededLine), [false, false, false, true, false, false, false, false, false, false, true, false, false]);
		await s.archive.sync({ link: s.link });
		const excerpts = s.archive.read(mainId)?.excerpts as Excerpt[];
		assert.deepEqual(
			excerpts.map((e) => e.type),
			['user', 'tool', 'tool', 'error', 'assistant', 'tool', 'tool', 'tool', 'tool', 'error', 'error'],
		);
		const error = excerpts[3] as Extract<Excerpt, { type: 'error' }>;
		assert.equal(error.text.length, 1_000, 'clipped');
		assert.match(error.text, /^make: \*\*\* \[all\] Error 2 y+…$/);
		assert.equal((excerpts[9] as Extract<Excerpt, { type: 'error' }>).text, 'it failed');
		assert.equal((excerpts[10] as Extract<Excerpt, { type: 'error' }>).text, 'c'.repeat(1_000 - 1) + '…');
		assert.equal(s.archive.list()[0]?.errors, 3);
		assert.equal(s.archive.list()[0]?.lines, 13);
	});

	void it('sets a damaged index aside instead of failing', async (t) => {
		const s = setup(t);
		fs.mkdirSync(s.archive.dir, { recursive: true });
		fs.writeFileSync(path.join(s.archive.dir, 'index.json'), '{"version": 1, "transcripts": ');
		realistic(s.root).flush(path.join(s.projectDir, `${mainId}.jsonl`));
		await s.archive.sync({ link: s.link });
		assert.equal(s.archive.list().length, 1);
		assert.ok(fs.readdirSync(s.archive.dir).some((f) => f.startsWith('index.json.damaged-')));
		assert.match(s.log.warnings()[0] ?? '', /was damaged/);
	});
});

void describe('baton transcripts (the bundled CLI)', () => {
	let cli = '';
	before(async () => {
		cli = await agentCli();
	});

	void it('syncs, lists and shows the transcripts of a session started by a hook', (t) => {
		const base = tempDir(t, 'baton-transcripts-cli-');
		const root = path.join(base, 'project');
		const claudeHome = path.join(base, 'claude');
		fs.mkdirSync(root);
		const baton = (...args: string[]) => runBaton(cli, root, args, { env: { BATON_CLAUDE_HOME: claudeHome } });
		baton('init');
		const projectDir = claudeProjectDir(claudeHome, root);
		const payload = {
			session_id: mainId,
			hook_event_name: 'SessionStart',
			source: 'startup',
			cwd: root,
			transcript_path: path.join(projectDir, `${mainId}.jsonl`),
		};
		assert.equal(runBaton(cli, root, ['hook'], { input: JSON.stringify(payload), env: { BATON_CLAUDE_HOME: claudeHome } }).code, 0);
		realistic(root).flush(path.join(projectDir, `${mainId}.jsonl`));
		new TranscriptWriter('unrelated', root).user('x').flush(path.join(projectDir, 'unrelated.jsonl'));

		const sync = baton('transcripts', 'sync', '--json');
		assert.equal(sync.code, 0, sync.stdout + sync.stderr);
		assert.deepEqual(Object.keys(sync.json ?? {}).sort(), ['bootstrap', 'excerpts', 'parsedBytes', 'pending', 'skipped', 'transcripts', 'unlinked']);
		assert.equal(sync.json?.['excerpts'], 11);
		assert.equal(sync.json?.['unlinked'], 1);
		const sessionId = sync.json?.['transcripts'][0].sessionId as string;
		assert.match(sessionId, /^ses_/);

		const list = baton('transcripts', 'list', '--session', sessionId, '--json');
		assert.equal(list.code, 0);
		const [entry] = list.json?.['transcripts'] as any[];
		for (const key of [
			'id',
			'agent',
			'agentSessionId',
			'sessionId',
			'sourcePath',
			'archivePath',
			'offset',
			'sourceSize',
			'sourceMtimeMs',
			'tokens',
			'costUsd',
			'filesTouched',
			'userRequests',
			'toolCalls',
			'errors',
			'compactions',
			'archiving',
			'bootstrap',
			'title',
		]) {
			assert.ok(key in entry, `a transcript has ${key}`);
		}
		assert.equal(baton('transcripts', 'list', '--json').json?.['transcripts'].length, 2);
		assert.match(baton('transcripts', 'list').stdout, /6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33 .* archived .* Auth module refactor/);

		const shown = baton('transcripts', 'show', mainId);
		assert.equal(shown.code, 0);
		assert.match(shown.stdout, /^# Auth module refactor — Claude Code transcript/);
		assert.match(shown.stdout, /Conversation compacted/);
		const json = baton('transcripts', 'show', mainId, '--json').json;
		assert.equal(json?.['excerpts'].length, 11);
		assert.equal(baton('transcripts', 'show', 'nope', '--json').json?.['error'].code, 'usage');

		const off = baton('transcripts', 'archive', '--session', sessionId, '--off', '--purge', '--json');
		assert.deepEqual(off.json, { sessionId, archiving: false, purged: 1 });
		assert.equal(baton('transcripts', 'list', '--session', sessionId, '--json').json?.['transcripts'][0].archiving, false);
		assert.equal(baton('transcripts', 'archive', '--session', sessionId, '--json').code, 2);
		assert.equal(baton('transcripts', 'archive', '--session', 'ses_20200101000000_000000', '--on', '--json').json?.['error'].code, 'notFound');
	});
});
