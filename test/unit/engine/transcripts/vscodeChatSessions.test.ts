/**
 * VS Code's chat sessions (vscodeChatSessions.ts) on real files VS Code wrote (published by
 * git-ai-project/git-ai as test fixtures; test/fixtures/real/README.md "VS Code chat sessions"), laid
 * out in a temporary HOME as VS Code lays them out: `<user data>/User/workspaceStorage/<hash>/` with its
 * `workspace.json` and `chatSessions/`. Counts were read off the raw files with jq.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { discoverVscodeChatSessions, readVscodeChatSession, vscodeChatState } from '../../../../src/engine/transcripts/vscodeChatSessions';
import { ExcerptBuilder } from '../../../../src/engine/transcripts/transcriptExcerpts';
import { newTranscriptEntry } from '../../../../src/engine/transcripts/transcriptIndex';
import { tempDir } from '../../helpers';

const fixtures = path.join(__dirname, '..', '..', '..', 'fixtures', 'real', 'vscode-chat');
const jsonlId = '7de89a80-6d93-43e7-be0a-0a9afe980198';
const jsonId = '331fed7f-cfd6-409c-8502-06a56322b636';
/** The folder the real sessions ran in, as their URIs name it. */
const theirRoot = '/Users/svarlamov/projects/testing-git';

function storageFolder(userData: string, hash: string, folder: string): string {
	const dir = path.join(userData, 'User', 'workspaceStorage', hash);
	fs.mkdirSync(path.join(dir, 'chatSessions'), { recursive: true });
	fs.writeFileSync(path.join(dir, 'workspace.json'), JSON.stringify({ folder: pathToFileURL(folder).href }));
	return path.join(dir, 'chatSessions');
}

function builtFrom(records: Record<string, unknown>[], root: string) {
	const entry = newTranscriptEntry({
		id: 'x',
		agent: 'copilot',
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
	return { entry, excerpts: builder.drain().map((line) => JSON.parse(line) as { type: string }) };
}

test('discovery: the workspace’s chat sessions in VS Code and code-server, matched by workspace.json, never by the hash; other workspaces and bad entries left with a warning', (t) => {
	const home = tempDir(t, 'baton-vscode-chat-');
	const workspace = path.join(home, 'work', 'shop');
	fs.mkdirSync(workspace, { recursive: true });
	const code = storageFolder(path.join(home, '.config', 'Code'), 'a1b2c3', workspace);
	fs.copyFileSync(path.join(fixtures, 'copilot_session_multiline.jsonl'), path.join(code, `${jsonlId}.jsonl`));
	const server = storageFolder(path.join(home, '.local', 'share', 'code-server'), 'ffee01', workspace);
	fs.copyFileSync(path.join(fixtures, 'copilot_session_simple.json'), path.join(server, `${jsonId}.json`));
	// Another workspace's sessions, and a hash folder whose workspace.json is not JSON.
	const other = storageFolder(path.join(home, '.config', 'Code'), 'd4e5f6', path.join(home, 'work', 'other'));
	fs.copyFileSync(path.join(fixtures, 'copilot_session_simple.json'), path.join(other, 'elsewhere.json'));
	const broken = storageFolder(path.join(home, '.config', 'Code - Insiders'), '0badf0', workspace);
	fs.writeFileSync(path.join(path.dirname(broken), 'workspace.json'), '{"folder": ');
	fs.writeFileSync(path.join(broken, 'lost.json'), '{}');
	// A FIFO where a session should be, and a name VS Code never writes.
	execFileSync('mkfifo', [path.join(code, 'fifo.jsonl')]);
	fs.writeFileSync(path.join(code, 'line\nbreak.jsonl'), '');

	const found = discoverVscodeChatSessions(workspace, { homeDir: home, env: {}, platform: 'linux' });
	assert.deepEqual(
		found.files.map((f) => [f.agentSessionId, f.product, f.writes, f.replay, f.workspace === workspace, path.basename(path.dirname(path.dirname(f.path)))]),
		[
			[jsonlId, 'vscode', 'append', true, true, 'a1b2c3'],
			[jsonId, 'vscode', 'rewrite', false, true, 'ffee01'],
		],
	);
	assert.ok(
		found.warnings.some((w) => w.includes('workspace.json') && w.includes('not JSON')),
		found.warnings.join('\n'),
	);
	assert.ok(
		found.warnings.some((w) => w.includes('fifo.jsonl') && w.includes('not a regular file')),
		found.warnings.join('\n'),
	);
	assert.ok(
		found.warnings.some((w) => w.includes('does not write')),
		found.warnings.join('\n'),
	);

	// An explicit user data folder is the only one looked at.
	const only = discoverVscodeChatSessions(workspace, { homeDir: home, env: {}, dirs: [path.join(home, '.local', 'share', 'code-server')] });
	assert.deepEqual(
		only.files.map((f) => f.agentSessionId),
		[jsonId],
	);
});

test('a workspace folder or chatSessions folder that is a symlink inside workspaceStorage is followed; one leading out of it is not', (t) => {
	const home = tempDir(t, 'baton-vscode-links-');
	const workspace = path.join(home, 'work', 'shop');
	fs.mkdirSync(workspace, { recursive: true });
	const userData = path.join(home, '.config', 'Code');
	const storage = path.join(userData, 'User', 'workspaceStorage');
	const outside = path.join(home, 'elsewhere');
	const inside = storageFolder(userData, path.join('moved', 'a1b2c3'), workspace);
	fs.copyFileSync(path.join(fixtures, 'copilot_session_multiline.jsonl'), path.join(inside, `${jsonlId}.jsonl`));
	fs.symlinkSync(path.dirname(inside), path.join(storage, 'a1b2c3'));
	const away = storageFolder(outside, 'ffee01', workspace);
	fs.copyFileSync(path.join(fixtures, 'copilot_session_simple.json'), path.join(away, `${jsonId}.json`));
	fs.symlinkSync(path.dirname(away), path.join(storage, 'ffee01'));
	// A workspace folder of its own whose chatSessions/ leads out.
	const own = path.dirname(storageFolder(userData, 'c0ffee', workspace));
	fs.rmdirSync(path.join(own, 'chatSessions'));
	fs.symlinkSync(away, path.join(own, 'chatSessions'));
	fs.symlinkSync(path.join(storage, 'loop'), path.join(storage, 'loop'));

	const found = discoverVscodeChatSessions(workspace, { homeDir: home, env: {}, dirs: [userData] });
	assert.deepEqual(
		found.files.map((f) => f.agentSessionId),
		[jsonlId],
	);
	for (const out of [path.join(storage, 'ffee01', 'chatSessions'), path.join(own, 'chatSessions')]) {
		assert.ok(
			found.warnings.some((w) => w.startsWith(`${out}: `) && w.includes('symlink that leads out of')),
			`${out} in:\n${found.warnings.join('\n')}`,
		);
	}
});

test('the JSONL form VS Code writes (Copilot Chat 0.37.1 agent mode): replayed, two requests, their tools and the edited file, model and times', () => {
	const content = fs.readFileSync(path.join(fixtures, 'copilot_session_multiline.jsonl'), 'utf8');
	const read = readVscodeChatSession(content, true);
	assert.equal(read.title, 'Adding a joke to jokes.csv file');
	assert.equal(read.model, 'copilot/gpt-4o');
	assert.equal(read.firstAt, new Date(1770580242421).toISOString(), 'creationDate');
	assert.equal(read.lastAt, new Date(1770583418690).toISOString(), 'the completedAt of the follow-up a kind-2 line pushed');
	assert.deepEqual({ ...read.unknownKinds }, {});
	assert.deepEqual(read.warnings, []);
	const { entry, excerpts } = builtFrom(read.records, theirRoot);
	assert.equal(entry.userRequests, 2);
	assert.equal(entry.lastUserText, 'follow up message');
	assert.equal(entry.toolCalls, 4, 'copilot_readFile, copilot_insertEdit, vscode_editFile_internal and the textEditGroup');
	assert.deepEqual(entry.filesTouched, ['jokes.csv']);
	assert.ok(excerpts.some((e) => e.type === 'tool' && JSON.stringify(e).includes('jokes.csv')));
	// Reading the same content again gives the same records.
	assert.deepEqual(readVscodeChatSession(content, true).records, read.records);
});

test('the older JSON form: three requests, the replace and the search, the edited file, the last answer’s time', () => {
	const read = readVscodeChatSession(fs.readFileSync(path.join(fixtures, 'copilot_session_simple.json'), 'utf8'), false);
	assert.equal(read.title, 'Assistance with TypeScript project tasks');
	assert.equal(read.model, 'copilot/claude-sonnet-4');
	assert.equal(read.lastAt, new Date(1759850150757 + 8787).toISOString(), 'the last request plus its totalElapsed');
	const { entry } = builtFrom(read.records, theirRoot);
	assert.equal(entry.userRequests, 3);
	assert.equal(entry.toolCalls, 3, 'copilot_replaceString, copilot_findTextInFiles and the textEditGroup');
	assert.deepEqual(entry.filesTouched, ['index.ts']);
	assert.match(entry.lastAssistantText ?? '', /Bonjour/);
});

test('the mutation log as VS Code’s ObjectMutationLog defines it: set, push with a cut, delete; a bad line, a hostile path and an unknown kind are skipped and said', () => {
	const lines = [
		{
			kind: 0,
			v: {
				version: 3,
				sessionId: 's',
				creationDate: 1,
				requests: [
					{ requestId: 'r1', message: { text: 'one' } },
					{ requestId: 'r2', message: { text: 'two' } },
				],
				customTitle: 'old',
			},
		},
		{ kind: 2, k: ['requests'], v: [{ requestId: 'r3', message: { text: 'three' } }], i: 1 },
		{ kind: 1, k: ['requests', 1, 'message', 'text'], v: 'three, edited' },
		{ kind: 3, k: ['customTitle'] },
		{ kind: 1, k: ['__proto__', 'polluted'], v: true },
		{ kind: 1, k: ['nowhere', 'deep'], v: 1 },
		{ kind: 7, k: ['x'] },
	];
	const content = `${lines.map((l) => JSON.stringify(l)).join('\n')}\n{"kind":1,"k":\n`;
	const read = readVscodeChatSession(content, true);
	const state = vscodeChatState(content, true);
	assert.deepEqual(
		(state?.['requests'] as { message: { text: string } }[]).map((r) => r.message.text),
		['one', 'three, edited'],
	);
	assert.equal(state?.['customTitle'], undefined);
	assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
	assert.equal(read.title, 'one');
	assert.deepEqual({ ...read.unknownKinds }, { 'entry kind 7': 1 });
	assert.equal(read.warnings.length, 3, read.warnings.join('\n'));
	assert.ok(read.warnings.some((w) => w.startsWith('line 8') && w.includes('not JSON')));
	// No initial line: nothing to replay, said, not thrown.
	assert.deepEqual(readVscodeChatSession('{"kind":1,"k":["a"],"v":1}\n', true).warnings, [
		'line 1: a change before the initial entry, skipped',
		'no session state in the file',
	]);
});
