/**
 * Cline's and Roo Code's tasks (clineTasks.ts, clineRecords.ts). The real sample is a `ui_messages.json`
 * Cline wrote on its publisher's machine (CoreGems/Cline-Xray; test/fixtures/real/README.md "Cline
 * tasks"), laid out in a temporary HOME as the extension lays it out:
 * `<user data>/User/globalStorage/saoudrizwan.claude-dev/tasks/<id>/` beside `state/taskHistory.json`.
 * No Roo Code task or Cline SDK session was found published: those are built in the tests from the
 * types their sources define (cited in the modules), and say so.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readTextFile } from '../../../../src/engine/transcripts/agentFiles';
import { discoverClineTasks } from '../../../../src/engine/transcripts/clineTasks';
import { cwdInText, personText, readClineTaskFile, readClineTaskMetadata } from '../../../../src/engine/transcripts/clineRecords';
import { ExcerptBuilder } from '../../../../src/engine/transcripts/transcriptExcerpts';
import { newTranscriptEntry } from '../../../../src/engine/transcripts/transcriptIndex';
import { tempDir } from '../../helpers';

const sample = path.join(__dirname, '..', '..', '..', 'fixtures', 'real', 'cline-task', 'ui_messages.json');
const taskId = '1770577372307';
/** The working directory the sample's first request names. */
const theirCwd = 'c:/Users/alex_/mygems/Jira-Xray-Gem';

function write(file: string, value: unknown): void {
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
}

function builtFrom(records: Record<string, unknown>[], root: string) {
	const entry = newTranscriptEntry({
		id: 'x',
		agent: 'cline',
		agentSessionId: 'x',
		parentAgentSessionId: null,
		sourcePath: 'x',
		agentType: null,
		description: null,
	});
	const builder = new ExcerptBuilder(entry, root);
	for (const record of records) {
		builder.add(record);
	}
	builder.drain();
	return entry;
}

test('discovery: Cline’s task by its taskHistory cwd, Roo Code’s by history_item.json, an SDK session by its manifest; others, FIFOs and bad names left with a warning', (t) => {
	const home = tempDir(t, 'baton-cline-tasks-');
	const workspace = path.join(home, 'work', 'shop');
	fs.mkdirSync(workspace, { recursive: true });
	const cline = path.join(home, '.config', 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev');
	fs.mkdirSync(path.join(cline, 'tasks', taskId), { recursive: true });
	fs.copyFileSync(sample, path.join(cline, 'tasks', taskId, 'ui_messages.json'));
	write(path.join(cline, 'tasks', '1770000000000', 'api_conversation_history.json'), [
		{ role: 'user', content: [{ type: 'text', text: '<task>\nelsewhere\n</task>' }] },
	]);
	write(path.join(cline, 'state', 'taskHistory.json'), [
		{ id: taskId, ts: 1770586533689, task: 'nono when we read history', tokensIn: 530, tokensOut: 51905, totalCost: 1, cwdOnTaskInitialization: workspace },
		{
			id: '1770000000000',
			ts: 1770000000000,
			task: 'elsewhere',
			tokensIn: 0,
			tokensOut: 0,
			totalCost: 0,
			cwdOnTaskInitialization: path.join(home, 'work', 'other'),
		},
	]);
	// Roo Code (RooCodeInc/Roo-Code HistoryItem `workspace` in tasks/<id>/history_item.json).
	const roo = path.join(home, '.config', 'Code', 'User', 'globalStorage', 'rooveterinaryinc.roo-cline', 'tasks', 'roo-1');
	write(path.join(roo, 'api_conversation_history.json'), [
		{ role: 'user', content: [{ type: 'text', text: '<task>\nadd a test\n</task>' }], ts: 1770000001000 },
	]);
	write(path.join(roo, 'history_item.json'), {
		id: 'roo-1',
		number: 1,
		ts: 1770000001000,
		task: 'add a test',
		tokensIn: 0,
		tokensOut: 0,
		totalCost: 0,
		workspace,
	});
	// A Cline SDK session (sdk/packages/core session-manifest.ts, version 1) under ~/.cline/data/sessions.
	const sessions = path.join(home, '.cline', 'data', 'sessions', 'sdk-1');
	write(path.join(sessions, 'sdk-1.json'), {
		version: 1,
		session_id: 'sdk-1',
		source: 'cli',
		pid: 1,
		started_at: '2026-11-28T10:00:00.000Z',
		status: 'completed',
		interactive: true,
		provider: 'anthropic',
		model: 'claude-sonnet-4-6',
		cwd: workspace,
		workspace_root: workspace,
		enable_tools: true,
		enable_spawn: false,
		enable_teams: false,
	});
	write(path.join(sessions, 'sdk-1.messages.json'), { messages: [{ role: 'user', content: 'hello' }] });
	// A FIFO where ui_messages.json should be, a task folder name Cline never writes, a history that is not JSON.
	fs.mkdirSync(path.join(cline, 'tasks', 'fifo-task'), { recursive: true });
	execFileSync('mkfifo', [path.join(cline, 'tasks', 'fifo-task', 'ui_messages.json')]);
	fs.mkdirSync(path.join(cline, 'tasks', 'bad\nname'), { recursive: true });
	const insiders = path.join(home, '.config', 'Code - Insiders', 'User', 'globalStorage', 'saoudrizwan.claude-dev');
	write(path.join(insiders, 'state', 'taskHistory.json'), '[{"id": ');

	const found = discoverClineTasks(workspace, { homeDir: home, env: {}, platform: 'linux' });
	assert.deepEqual(
		found.files.map((f) => [f.product, f.agentSessionId, path.basename(f.path), f.writes, f.workspace === workspace]),
		[
			['cline-sdk', 'sdk-1', 'sdk-1.messages.json', 'rewrite', true],
			['roo-code', 'roo-1', 'api_conversation_history.json', 'rewrite', true],
			['cline', taskId, 'ui_messages.json', 'rewrite', true],
		],
	);
	assert.ok(
		found.files.every((f) => f.agent === 'cline'),
		'Roo Code is read as agent kind cline',
	);
	assert.ok(found.files[1]?.related['history_item']?.endsWith('history_item.json'));
	for (const expected of ['fifo-task', 'does not write', 'taskHistory.json: not JSON']) {
		assert.ok(
			found.warnings.some((w) => w.includes(expected)),
			`${expected} in:\n${found.warnings.join('\n')}`,
		);
	}
});

test('discovery without a recorded workspace: the working directory the first request named, Windows-style, in an explicit storage folder', (t) => {
	const storage = path.join(tempDir(t, 'baton-cline-cwd-'), 'saoudrizwan.claude-dev');
	fs.mkdirSync(path.join(storage, 'tasks', taskId), { recursive: true });
	fs.copyFileSync(sample, path.join(storage, 'tasks', taskId, 'ui_messages.json'));
	const options = { homeDir: '/nonexistent', env: {}, dirs: [storage] };
	assert.deepEqual(
		discoverClineTasks(theirCwd, options).files.map((f) => f.agentSessionId),
		[taskId],
	);
	assert.deepEqual(
		discoverClineTasks('C:\\Users\\alex_\\mygems\\Jira-Xray-Gem\\', options).files.map((f) => f.agentSessionId),
		[taskId],
		'the same folder written the Windows way',
	);
	assert.deepEqual(discoverClineTasks('/home/someone/else', options).files, []);
});

test('a task folder or SDK session folder that is a symlink inside its folder is followed; one leading out of it, or in a loop, is not', (t) => {
	const base = tempDir(t, 'baton-cline-links-');
	const storage = path.join(base, 'saoudrizwan.claude-dev');
	const outside = path.join(base, 'elsewhere');
	const tasks = path.join(storage, 'tasks');
	for (const [id, where] of [
		[taskId, path.join(tasks, 'moved', taskId)],
		['1770000000001', path.join(outside, '1770000000001')],
	] as const) {
		fs.mkdirSync(where, { recursive: true });
		fs.copyFileSync(sample, path.join(where, 'ui_messages.json'));
		fs.symlinkSync(where, path.join(tasks, id));
	}
	fs.symlinkSync(path.join(tasks, 'loop'), path.join(tasks, 'loop'));
	const sessions = path.join(storage, 'sessions');
	for (const [id, where] of [
		['sdk-in', path.join(sessions, 'moved', 'sdk-in')],
		['sdk-out', path.join(outside, 'sdk-out')],
	] as const) {
		write(path.join(where, `${id}.json`), { version: 1, session_id: id, cwd: theirCwd });
		write(path.join(where, `${id}.messages.json`), { messages: [] });
		fs.symlinkSync(where, path.join(sessions, id));
	}
	const found = discoverClineTasks(theirCwd, { homeDir: '/nonexistent', env: {}, dirs: [storage] });
	assert.deepEqual(
		found.files.map((f) => f.agentSessionId),
		['sdk-in', taskId],
	);
	for (const out of [path.join(tasks, '1770000000001'), path.join(sessions, 'sdk-out')]) {
		assert.ok(
			found.warnings.some((w) => w.startsWith(`${out}: it is a symlink that leads out of`)),
			`${out} in:\n${found.warnings.join('\n')}`,
		);
	}
});

test('the real ui_messages.json: the person’s 7 messages, 67 tool calls with 17 files edited, the tokens of 53 requests, model, cwd and times', () => {
	const read = readClineTaskFile(fs.readFileSync(sample, 'utf8'), 'ui_messages');
	assert.equal(read.cwd, theirCwd);
	assert.equal(read.model, 'claude-opus-4-6');
	assert.equal(read.firstAt, new Date(1770577372307).toISOString());
	assert.equal(read.lastAt, new Date(1770586533689).toISOString());
	assert.match(read.title ?? '', /^nono when we read history for tasks/);
	assert.deepEqual({ ...read.unknownKinds }, {});
	assert.deepEqual({ ...read.tokens['claude-opus-4-6'] }, { input: 530, output: 51905, cacheRead: 5349183, cacheCreation: 1346804 });
	const entry = builtFrom(read.records, 'c:/Users/alex_/mygems/Jira-Xray-Gem');
	assert.equal(entry.userRequests, 7, 'say:task and 6 say:user_feedback');
	assert.equal(entry.toolCalls, 67, '61 tool messages and 6 commands');
	assert.equal(entry.filesTouched.length, 17);
	assert.ok(entry.filesTouched.includes('SUBTASK_FI.md'), entry.filesTouched.join(', '));
	assert.deepEqual({ ...entry.tokens['claude-opus-4-6'] }, { input: 530, output: 51905, cacheRead: 5349183, cacheCreation: 1346804 });
	assert.deepEqual(readClineTaskFile(fs.readFileSync(sample, 'utf8'), 'ui_messages').records, read.records, 'the same records every read');
});

test('api_conversation_history and SDK messages: the person’s words out of <task> and <feedback>, the extension’s own text left out, tool calls, errors and tokens', () => {
	const history = [
		{
			role: 'user',
			ts: 1770000000000,
			content: [
				{ type: 'text', text: '<task>\nfix the cart\n</task>' },
				{ type: 'text', text: '<environment_details>\n# Current Working Directory (/home/dev/shop) Files\n</environment_details>' },
			],
		},
		{
			role: 'assistant',
			ts: 1770000001000,
			modelInfo: { modelId: 'claude-sonnet-4-6', providerId: 'anthropic' },
			metrics: { tokens: { prompt: 1200, completion: 80, cached: 1000 } },
			content: [
				{ type: 'thinking', thinking: '…' },
				{ type: 'text', text: 'Editing.' },
				{ type: 'tool_use', id: 't1', name: 'replace_in_file', input: { path: 'src/cart.ts', diff: '…' } },
			],
		},
		{
			role: 'user',
			ts: 1770000002000,
			content: [
				{ type: 'tool_result', tool_use_id: 't1', is_error: true, content: 'no match' },
				{ type: 'text', text: '[replace_in_file for src/cart.ts] Result: failed' },
			],
		},
		{ role: 'user', ts: 1770000003000, content: [{ type: 'text', text: '<feedback>\nuse the other file\n</feedback>' }, { type: 'mystery' }] },
	];
	const read = readClineTaskFile(JSON.stringify(history), 'api_conversation_history');
	assert.equal(read.cwd, '/home/dev/shop');
	assert.equal(read.title, 'fix the cart');
	assert.equal(read.model, 'claude-sonnet-4-6');
	assert.deepEqual({ ...read.unknownKinds }, { 'user block mystery': 1 });
	const entry = builtFrom(read.records, '/home/dev/shop');
	assert.equal(entry.userRequests, 2);
	assert.equal(entry.lastUserText, 'use the other file');
	assert.equal(entry.errors, 1);
	assert.deepEqual(entry.filesTouched, ['src/cart.ts']);
	assert.deepEqual({ ...entry.tokens['claude-sonnet-4-6'] }, { input: 200, output: 80, cacheRead: 1000, cacheCreation: 0 });

	const sdk = readClineTaskFile(
		JSON.stringify({
			messages: [
				{ role: 'user', content: 'hello' },
				{
					role: 'assistant',
					ts: 1770000004000,
					modelInfo: { id: 'claude-sonnet-4-6', provider: 'anthropic' },
					metrics: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 3, cacheWriteTokens: 2 },
					content: [{ type: 'text', text: 'hi' }],
				},
			],
		}),
		'sdk_messages',
	);
	assert.deepEqual({ ...sdk.tokens['claude-sonnet-4-6'] }, { input: 10, output: 5, cacheRead: 3, cacheCreation: 2 });
	assert.equal(builtFrom(sdk.records, '/').userRequests, 1);
});

test('Roo Code’s ui_messages: the task is its first say:text; malformed files and hostile content give a warning, never a throw', () => {
	const roo = [
		{ ts: 1, type: 'say', say: 'text', text: 'write the docs' },
		{
			ts: 2,
			type: 'say',
			say: 'api_req_started',
			text: JSON.stringify({ request: '# Current Workspace Directory (/home/dev/docs) Files', tokensIn: 5, tokensOut: 7 }),
		},
		{ ts: 3, type: 'ask', ask: 'tool', text: JSON.stringify({ tool: 'appliedDiff', path: 'README.md' }) },
		{ ts: 4, type: 'say', say: 'text', text: 'Done.' },
		{ ts: 5, type: 'say', say: 'brand_new_kind', text: '?' },
	];
	const read = readClineTaskFile(JSON.stringify(roo), 'ui_messages', 'roo-code');
	assert.equal(read.cwd, '/home/dev/docs');
	assert.deepEqual({ ...read.unknownKinds }, { 'say:brand_new_kind': 1 });
	const entry = builtFrom(read.records, '/home/dev/docs');
	assert.equal(entry.userRequests, 1);
	assert.equal(entry.lastAssistantText, 'Done.');
	assert.deepEqual(entry.filesTouched, ['README.md']);

	assert.match(readClineTaskFile('[{"ts": 1,', 'ui_messages').warnings[0] ?? '', /^not JSON/);
	assert.deepEqual(readClineTaskFile('{"a": 1}', 'ui_messages').warnings, ['not a list of messages']);
	assert.deepEqual(readClineTaskFile('[null, 3, "x", {"type": "say", "say": "text", "text": {"no": 1}}]', 'ui_messages').records, []);
	assert.equal(personText('[read_file for x] Result:'), null);
	assert.equal(cwdInText('# Current Working Directory (C:\\\\\\\\Users\\\\\\\\me) Files'), 'C:\\Users\\me');
});

test('a task file over the size limit is not read, with a warning', (t) => {
	const warnings: string[] = [];
	assert.equal(readTextFile(sample, 1024, warnings), null);
	assert.match(warnings[0] ?? '', /over the 1024-byte limit: not read/);
	const fifo = path.join(tempDir(t, 'baton-cline-fifo-'), 'ui_messages.json');
	execFileSync('mkfifo', [fifo]);
	assert.equal(readTextFile(fifo, 1024, warnings), null, 'a FIFO is refused without blocking');
	assert.match(warnings[1] ?? '', /FIFO/);
});

test('task_metadata.json: the latest model used and the files Cline edited; garbage is a warning', () => {
	const metadata = {
		files_in_context: [
			{ path: 'src/a.ts', record_state: 'active', record_source: 'read_tool', cline_read_date: 1, cline_edit_date: null },
			{ path: 'src/b.ts', record_state: 'active', record_source: 'cline_edited', cline_read_date: 1, cline_edit_date: 2 },
			{ path: 'src/b.ts', record_state: 'stale', record_source: 'cline_edited', cline_read_date: 1, cline_edit_date: 3 },
		],
		model_usage: [
			{ ts: 2, model_id: 'claude-sonnet-4-6', model_provider_id: 'anthropic', mode: 'act' },
			{ ts: 1, model_id: 'gpt-5', model_provider_id: 'openai', mode: 'plan' },
		],
		environment_history: [],
	};
	assert.deepEqual(readClineTaskMetadata(JSON.stringify(metadata)), { model: 'claude-sonnet-4-6', editedFiles: ['src/b.ts'], warnings: [] });
	assert.match(readClineTaskMetadata('{').warnings[0] ?? '', /^not JSON/);
	assert.deepEqual(readClineTaskMetadata('null'), { model: null, editedFiles: [], warnings: [] });
});

test('a session the real Cline CLI 3.0.65 wrote: the request inside <user_input mode="act">, its two tool calls, the file its patch added, tokens per model', (t) => {
	// test/fixtures/real/cline-cli-3.0.65: written by the real binary (run headless against the project's chat-completions stand-in).
	const real = path.join(__dirname, '..', '..', '..', 'fixtures', 'real', 'cline-cli-3.0.65', 'sessions');
	const id = '1796234385299_iel8j';
	const text = fs.readFileSync(path.join(real, id, `${id}.messages.json`), 'utf8');
	const read = readClineTaskFile(text, 'sdk_messages');
	assert.deepEqual({ ...read.unknownKinds }, {});
	const entry = builtFrom(read.records, '/home/dev/project');
	assert.equal(entry.userRequests, 1, 'the person’s request is inside <user_input mode="act">');
	assert.equal(entry.firstAt, '2026-12-02T17:59:45.692Z', 'the request (its ts) starts it');
	assert.equal(entry.toolCalls, 2);
	assert.deepEqual(entry.filesTouched, ['notes.txt']);
	assert.deepEqual({ ...entry.tokens }, { 'gpt-5.5': { input: 360, output: 90, cacheRead: 0, cacheCreation: 0 } });
	assert.equal(personText('<user_input mode="plan">\nplan the tests\n</user_input>'), 'plan the tests');
	assert.equal(personText('<user_command slash="review">the diff</user_command>'), 'the diff');

	// Laid out where the CLI keeps it (~/.cline/data/sessions), it is found by the workspace its manifest names.
	const home = tempDir(t, 'baton-cline-cli-');
	fs.cpSync(real, path.join(home, '.cline', 'data', 'sessions'), { recursive: true });
	const found = discoverClineTasks('/home/dev/project', { homeDir: home, env: {}, platform: 'linux' });
	assert.deepEqual(
		found.files.map((f) => [f.product, f.agentSessionId, path.basename(f.path)]),
		[['cline-sdk', id, `${id}.messages.json`]],
		found.warnings.join('\n'),
	);
});

test('an SDK session’s messages are the file beside its manifest: a messages_path that names a file elsewhere is not read', (t) => {
	const home = tempDir(t, 'baton-cline-path-');
	const workspace = path.join(home, 'project');
	const sessions = path.join(home, '.cline', 'data', 'sessions');
	const secret = path.join(home, 'secret.json');
	write(secret, [{ role: 'user', content: 'not a session' }]);
	const manifest = (id: string, messagesPath: string) => ({
		version: 1,
		session_id: id,
		cwd: workspace,
		workspace_root: workspace,
		messages_path: messagesPath,
	});
	write(path.join(sessions, 'out', 'out.json'), manifest('out', secret));
	write(path.join(sessions, 'rel', 'rel.json'), manifest('rel', '../out/../../../secret.json'));
	write(path.join(sessions, 'own', 'own.json'), manifest('own', 'own.history.json'));
	write(path.join(sessions, 'own', 'own.history.json'), { messages: [{ role: 'user', content: 'hello' }] });
	const found = discoverClineTasks(workspace, { homeDir: home, env: {}, platform: 'linux' });
	assert.deepEqual(
		found.files.map((f) => [f.agentSessionId, path.relative(sessions, f.path)]),
		[['own', path.join('own', 'own.history.json')]],
		found.warnings.join('\n'),
	);
});
