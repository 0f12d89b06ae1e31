/**
 * Symbolic links in the agents' folders (historySources.ts): a folder that is a symlink is followed as a
 * file that is one is, when it leads somewhere inside the agent's folder, and never when it leads out
 * of it or around in a loop. Claude Code's subagent folder, Codex's dated folders and Copilot's
 * session folders each may be one.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { discoverHistory, historyHomes, type HistoryAgent } from '../../../../src/engine/agentHistory/historySources';
import { claudeProjectDir } from '../../../../src/engine/transcripts/claudeProjects';
import { tempDir } from '../../helpers';
import { TranscriptWriter } from '../transcripts/transcriptWriter';

const claudeId = '6f0e0a7e-1111-4a5b-9c3d-0123456789ab';

function setUp(t: TestContext) {
	const base = tempDir(t, 'baton-history-links-');
	const root = path.join(base, 'shop');
	const home = path.join(base, 'home');
	const outside = path.join(base, 'elsewhere');
	fs.mkdirSync(root);
	fs.mkdirSync(outside);
	const homes = historyHomes(path.join(home, '.claude'), { HOME: home }, home);
	const discover = (agent: HistoryAgent) => discoverHistory({ workspaceRoot: root, homes, agents: [agent] });
	return { root, home, outside, homes, discover };
}

/** `<dir>/<real>/subagents/agent-<name>.jsonl`, a subagent's transcript in a session's folder. */
function subagentFolder(dir: string, name: string): string {
	const folder = path.join(dir, name);
	fs.mkdirSync(path.join(folder, 'subagents'), { recursive: true });
	fs.writeFileSync(path.join(folder, 'subagents', `agent-${name}.jsonl`), `${JSON.stringify({ type: 'user', agentId: name })}\n`);
	return folder;
}

test("a Claude Code session's subagent folder that is a symlink inside the project folder is followed; one leading out is not", (t) => {
	const { root, outside, homes, discover } = setUp(t);
	const project = claudeProjectDir(homes.claudeHome, root);
	const w = new TranscriptWriter(claudeId, root);
	w.user('split the billing module');
	w.flush(path.join(project, `${claudeId}.jsonl`));
	fs.symlinkSync(subagentFolder(path.join(project, 'moved'), 'inside'), path.join(project, claudeId));
	const subagents = () => discover('claude-code').sources.flatMap((s) => s.transcripts.map((x) => x.id));
	assert.deepEqual(subagents(), [claudeId, `${claudeId}/agent-inside`]);

	fs.rmSync(path.join(project, claudeId));
	fs.symlinkSync(subagentFolder(outside, 'out'), path.join(project, claudeId));
	assert.deepEqual(subagents(), [claudeId], 'a folder that leads out of the project folder is not read');

	fs.rmSync(path.join(project, claudeId));
	fs.symlinkSync(path.join(project, claudeId), path.join(project, claudeId));
	assert.deepEqual(subagents(), [claudeId], 'a link to itself is no folder');
});

test('a Codex dated folder and a Copilot session folder that are symlinks inside the agent’s folder are followed; ones leading out are not', (t) => {
	const { root, home, outside, discover } = setUp(t);
	const rollout = (id: string) => `${JSON.stringify({ type: 'session_meta', timestamp: '2026-11-28T09:00:00.000Z', payload: { id, cwd: root } })}\n`;
	const sessions = path.join(home, '.codex', 'sessions');
	for (const [day, where] of [
		['28', path.join(sessions, 'moved', '28')],
		['29', path.join(outside, '29')],
	] as const) {
		fs.mkdirSync(where, { recursive: true });
		fs.writeFileSync(path.join(where, `rollout-2026-11-${day}T09-00-00-codex-${day}.jsonl`), rollout(`codex-${day}`));
		fs.mkdirSync(path.join(sessions, '2026', '11'), { recursive: true });
		fs.symlinkSync(where, path.join(sessions, '2026', '11', day));
	}
	const codex = discover('codex');
	assert.deepEqual(
		codex.sources.map((s) => s.agentSessionId),
		['codex-28'],
	);
	assert.match(codex.skipped.find((s) => s.path.includes('codex-29'))?.reason ?? '', /symlink that leads out/);

	const states = path.join(home, '.copilot', 'session-state');
	for (const [id, where] of [
		['copilot-in', path.join(states, 'moved', 'copilot-in')],
		['copilot-out', path.join(outside, 'copilot-out')],
	] as const) {
		fs.mkdirSync(where, { recursive: true });
		fs.writeFileSync(path.join(where, 'events.jsonl'), `${JSON.stringify({ type: 'session.start', data: { context: { cwd: root } } })}\n`);
		fs.symlinkSync(where, path.join(states, id));
	}
	const copilot = discover('copilot');
	assert.deepEqual(
		copilot.sources.map((s) => s.agentSessionId),
		['copilot-in'],
	);
	assert.match(copilot.skipped.find((s) => s.path.includes('copilot-out'))?.reason ?? '', /symlink that leads out/);
});

test('a Gemini project folder that is a symlink leading out of tmp/ is not read, as a chat file that is one is not', (t) => {
	const { root, home, outside, discover } = setUp(t);
	const chats = path.join(outside, 'shop', 'chats');
	fs.mkdirSync(chats, { recursive: true });
	const projectHash = createHash('sha256').update(root).digest('hex');
	fs.writeFileSync(path.join(chats, 'session-2026-11-28T10-00-aaaa.jsonl'), `${JSON.stringify({ sessionId: 'gemini-out', projectHash })}\n`);
	fs.mkdirSync(path.join(home, '.gemini', 'tmp'), { recursive: true });
	fs.symlinkSync(path.dirname(chats), path.join(home, '.gemini', 'tmp', 'shop'));
	const gemini = discover('gemini');
	assert.deepEqual(gemini.sources, []);
	assert.match(gemini.skipped[0]?.reason ?? '', /symlink that leads out/);
});
