/**
 * The world of the transcript archive's tests: a workspace with a Claude home beside it, its archive,
 * and a realistic generated Claude Code transcript (transcriptWriter.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { claudeProjectDir } from '../../../../src/engine/transcripts/claudeProjects';
import { TranscriptArchive, type SessionLinker } from '../../../../src/engine/transcripts/transcriptArchive';
import { MemoryLogger, tempDir } from '../../helpers';
import { TranscriptWriter } from './transcriptWriter';

export const mainId = '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33';
export const durable = 'ses_20260301090000_abcdef';

interface Setup {
	root: string;
	claudeHome: string;
	projectDir: string;
	archive: TranscriptArchive;
	log: MemoryLogger;
	link: SessionLinker;
	links: Map<string, string>;
}

/** A workspace and a Claude home in a temp dir, the archive over them, and a linker that knows the main transcript's durable session. */
export function setup(t: TestContext): Setup {
	const base = tempDir(t, 'baton-transcripts-');
	const root = path.join(base, 'my.project');
	const claudeHome = path.join(base, 'claude');
	fs.mkdirSync(path.join(root, '.baton'), { recursive: true });
	const log = new MemoryLogger();
	const links = new Map([[mainId, durable]]);
	return {
		root,
		claudeHome,
		projectDir: claudeProjectDir(claudeHome, root),
		archive: new TranscriptArchive({ workspaceRoot: root, claudeHome, log }),
		log,
		links,
		link: async (_agent, id) => links.get(id) ?? null,
	};
}

/** A session with everything a real one has: requests, edits, errors, split usage, a compaction, unknown records, secrets. */
export function realistic(root: string): TranscriptWriter {
	const w = new TranscriptWriter(mainId, root);
	w.snapshot();
	w.user('Refactor the auth module. Our key is sk-ant-api03-DONOTLEAKDONOTLEAK0123456789 and password=hunter2');
	w.meta('<command-name>/model</command-name>');
	const [read] = w.assistant([{ text: 'Let me look at the module first.' }, { tool: 'Read', input: { file_path: path.join(root, 'src/auth.ts') } }], {
		input_tokens: 1000,
		output_tokens: 50,
		cache_read_input_tokens: 20_000,
	});
	w.toolResult(read as string, 'export const auth = 1;');
	const [edit, bash] = w.assistant(
		[
			{ text: 'Now the edit, then the tests.' },
			{ tool: 'Edit', input: { file_path: path.join(root, 'src/auth.ts'), old_string: '1', new_string: '2' } },
			{ tool: 'Bash', input: { command: 'npm test -- --token=ghp_0123456789abcdefghijABCDEFGHIJ012345', description: 'Run tests' } },
		],
		{ input_tokens: 2000, output_tokens: 400, cache_creation_input_tokens: 5_000 },
	);
	w.toolResult(edit as string, 'The file was updated.', false, { filePath: path.join(root, 'src/auth.ts'), oldString: '1', newString: '2' });
	w.toolResult(bash as string, 'FAIL src/auth.test.ts\n  expected 2, got 1', true);
	w.unknown('attachment', { attachment: { type: 'hook_success', content: 'ok' } });
	w.unknown('some-future-record', { payload: { anything: [1, 2, 3] } });
	w.compact('auto', 154_321);
	w.compactSummary('This session is being continued from a previous conversation. The user asked for an auth refactor; src/auth.ts was edited; tests fail.');
	const [write] = w.assistant([{ tool: 'Write', input: { file_path: path.join(root, 'src/rotation.ts'), content: 'export {}' } }], {
		input_tokens: 300,
		output_tokens: 30,
	});
	w.toolResult(write as string, 'created');
	w.assistant([{ text: 'Tests pass now. Bearer abcdefghijklmnop0123 was in the log; I removed it.' }], { input_tokens: 500, output_tokens: 60 });
	w.summary('Auth module refactor');
	return w;
}
