/**
 * A temporary HOME with each agent's files for a workspace, laid out as the agents lay them out from the
 * real samples of test/fixtures/real (agentHistory.test.ts says which), and an engine to import them into.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { encodeClaudeProjectDir } from '../../../../src/engine/transcripts/claudeProjects';
import { actor, openTestEngine, tempDir } from '../../helpers';
import { TranscriptWriter } from '../transcripts/transcriptWriter';
import { repoRoot } from '../../cli/agentCli';

export const real = path.join(repoRoot, 'test', 'fixtures', 'real');
export const codexId = '01a22197-dbd8-7241-af6b-96b66b737258';
export const copilotId = 'a88f76da-cc2b-48a7-bce5-29305a80223e';
const claudeId = '6f0e0a7e-1111-4a5b-9c3d-0123456789ab';

export function copyAs(from: string, to: string, root: string): void {
	fs.mkdirSync(path.dirname(to), { recursive: true });
	fs.writeFileSync(to, fs.readFileSync(from, 'utf8').replaceAll('/home/dev/project', root));
}

function geminiLines(root: string, sessionId: string): string {
	const projectHash = createHash('sha256').update(root).digest('hex');
	const lines = [
		{ sessionId, projectHash, startTime: '2026-11-28T10:02:44.501Z', lastUpdated: '2026-11-28T10:02:44.501Z', kind: 'main' },
		{ id: 'm1', timestamp: '2026-11-28T10:02:44.543Z', type: 'user', content: [{ text: 'write b.txt and append' }] },
		{
			id: 'm2',
			timestamp: '2026-11-28T10:02:44.670Z',
			type: 'gemini',
			content: 'Writing.',
			model: 'gemini-2.5-pro',
			tokens: { input: 120, output: 30, cached: 0, thoughts: 0, tool: 0, total: 150 },
			toolCalls: [{ id: 'w1', name: 'write_file', args: { file_path: `${root}/b.txt`, content: 'x\n' }, status: 'success' }],
		},
		{ $rewindTo: 'm2' },
		{ id: 'm3', timestamp: '2026-11-28T10:02:45.000Z', type: 'a_future_record', content: 'kept and counted' },
	];
	return `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
}

/** A HOME with each agent's files for `root` (and some for another project), as the agents lay them out. */
export function agentHome(t: TestContext, root: string): string {
	const home = tempDir(t, 'baton-history-home-');
	const day = path.join(home, '.codex', 'sessions', '2026', '11', '28');
	copyAs(path.join(real, 'codex-rollout', 'rollout-0.171.0-apply-patch.jsonl'), path.join(day, `rollout-2026-11-28T09-58-50-${codexId}.jsonl`), root);
	fs.appendFileSync(
		path.join(day, `rollout-2026-11-28T09-58-50-${codexId}.jsonl`),
		`${JSON.stringify({ timestamp: '2026-11-28T09:59:00.000Z', type: 'a_future_record', payload: {} })}\n`,
	);
	// The published sample records `/project`: another project's session, not this workspace's.
	copyAs(path.join(real, 'codex-rollout', 'sample_codex_session.jsonl'), path.join(day, 'rollout-2025-01-01T00-00-00-test-session.jsonl'), root);
	fs.writeFileSync(path.join(day, 'rollout-2026-11-28T10-00-00-broken.jsonl'), 'not json at all\n');
	execFileSync('mkfifo', [path.join(day, 'rollout-2026-11-28T10-00-01-fifo.jsonl')]);
	const state = path.join(home, '.copilot', 'session-state', copilotId);
	copyAs(path.join(real, 'copilot-cli-session', 'events.jsonl'), path.join(state, 'events.jsonl'), root);
	copyAs(path.join(real, 'copilot-cli-session', 'workspace.yaml'), path.join(state, 'workspace.yaml'), root);
	const outside = path.join(tempDir(t, 'baton-history-outside-'), 'events.jsonl');
	copyAs(path.join(real, 'copilot-cli-session', 'events.jsonl'), outside, root);
	fs.mkdirSync(path.join(home, '.copilot', 'session-state', 'linked-out'), { recursive: true });
	fs.symlinkSync(outside, path.join(home, '.copilot', 'session-state', 'linked-out', 'events.jsonl'));
	const chats = path.join(home, '.gemini', 'tmp', path.basename(root), 'chats');
	fs.mkdirSync(chats, { recursive: true });
	fs.writeFileSync(path.join(chats, 'session-2026-11-28T10-02-88091997.jsonl'), geminiLines(root, '88091997-cf39-4d12-b26f-709e837160fd'));
	const [header, ...messages] = geminiLines(root, 'older-json-1')
		.trim()
		.split('\n')
		.map((l) => JSON.parse(l) as Record<string, unknown>);
	fs.writeFileSync(
		path.join(chats, 'session-2025-06-01T08-00-olderjso.json'),
		JSON.stringify({ ...header, messages: messages.filter((m) => m['type'] === 'user' || m['type'] === 'gemini') }),
	);
	const claude = new TranscriptWriter(claudeId, root);
	claude.user('rename the billing module');
	claude.assistant([{ tool: 'Edit', input: { file_path: `${root}/billing.ts`, old_string: 'a', new_string: 'b' } }], { input_tokens: 10, output_tokens: 5 });
	// Claude Code's own bookkeeping (known, passed over) and a type no reader knows (counted).
	claude.push({ type: 'queue-operation', operation: 'enqueue', sessionId: claudeId });
	claude.push({ type: 'last-prompt', lastPrompt: 'rename the billing module', sessionId: claudeId });
	claude.push({ type: 'permission-mode', permissionMode: 'default', sessionId: claudeId });
	claude.push({ type: 'hologram-state', sessionId: claudeId });
	const claudeFile = path.join(home, '.claude', 'projects', encodeClaudeProjectDir(root), `${claudeId}.jsonl`);
	const written = claude.flush(claudeFile);
	// A line torn by a crash mid-write, with the session going on after it: passed over and counted.
	fs.appendFileSync(claudeFile, '{"type":"user","message":{"role":"us\n');
	claude.user('and keep the old name as an alias');
	claude.flush(claudeFile, written);
	return home;
}

/** Every agent file's bytes and mtime: the import must leave them as they were. */
export function agentFiles(home: string): Map<string, string> {
	const out = new Map<string, string>();
	const walk = (dir: string): void => {
		for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
			const file = path.join(dir, e.name);
			if (e.isDirectory()) walk(file);
			else if (e.isFile()) out.set(file, `${fs.statSync(file).mtimeMs} ${createHash('sha256').update(fs.readFileSync(file)).digest('hex')}`);
		}
	};
	walk(home);
	return out;
}

export async function setUp(t: TestContext) {
	const { engine, root } = await openTestEngine(t);
	const home = agentHome(t, root);
	const env = { HOME: home, BATON_CLAUDE_HOME: path.join(home, '.claude') };
	const run = (extra: { dryRun?: boolean; since?: string; agents?: ('codex' | 'gemini' | 'copilot' | 'claude-code')[] } = {}) =>
		engine.agentHistory.import({
			dryRun: extra.dryRun ?? false,
			actor,
			env,
			homeDir: home,
			...(extra.since ? { since: extra.since } : {}),
			...(extra.agents ? { agents: extra.agents } : {}),
		});
	return { engine, root, home, run };
}
