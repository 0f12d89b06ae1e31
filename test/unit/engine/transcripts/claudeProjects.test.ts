/**
 * The transcript archive's own listing of a workspace's Claude Code project folder (claudeProjects.ts)
 * and symbolic links: a session's subagent folder that is a symlink is followed, as agent history
 * follows it (historySources.ts), when it leads somewhere inside the project folder, and never when it
 * leads out of it or around in a loop. A project folder that is itself a symlink is read where it leads;
 * a transcript file that is a symlink is read as agent history reads it, when it stays in the project folder.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { claudeProjectDir, discoverClaudeTranscripts } from '../../../../src/engine/transcripts/claudeProjects';
import { tempDir } from '../../helpers';
import { durable, mainId, realistic, setup as archiveSetup } from './transcriptWorld';

const sessionId = '6f0e0a7e-1111-4a5b-9c3d-0123456789ab';

function setUp(t: TestContext) {
	const base = tempDir(t, 'baton-claude-links-');
	const root = path.join(base, 'shop');
	const claudeHome = path.join(base, 'home', '.claude');
	const outside = path.join(base, 'elsewhere');
	fs.mkdirSync(root);
	fs.mkdirSync(outside);
	const ids = () => discoverClaudeTranscripts(claudeHome, root).map((x) => x.id);
	return { root, claudeHome, outside, ids };
}

/** `<dir>/<name>/subagents/agent-<name>.jsonl`, a subagent's transcript in a session's folder. */
function subagentFolder(dir: string, name: string): string {
	const folder = path.join(dir, name);
	fs.mkdirSync(path.join(folder, 'subagents'), { recursive: true });
	fs.writeFileSync(path.join(folder, 'subagents', `agent-${name}.jsonl`), `${JSON.stringify({ type: 'user', agentId: name })}\n`);
	return folder;
}

test('a session’s subagent folder that is a symlink inside the project folder is listed; one leading out, or in a loop, is not', (t) => {
	const { root, claudeHome, outside, ids } = setUp(t);
	const project = claudeProjectDir(claudeHome, root);
	fs.mkdirSync(project, { recursive: true });
	fs.writeFileSync(path.join(project, `${sessionId}.jsonl`), `${JSON.stringify({ type: 'user', sessionId })}\n`);
	const link = path.join(project, sessionId);
	fs.symlinkSync(subagentFolder(path.join(project, 'moved'), 'inside'), link);
	assert.deepEqual(ids(), [sessionId, `${sessionId}/agent-inside`]);

	fs.rmSync(link);
	fs.symlinkSync(subagentFolder(outside, 'out'), link);
	assert.deepEqual(ids(), [sessionId], 'a folder that leads out of the project folder is not read');

	fs.rmSync(link);
	fs.mkdirSync(link);
	fs.symlinkSync(path.join(subagentFolder(outside, 'deeper'), 'subagents'), path.join(link, 'subagents'));
	assert.deepEqual(ids(), [sessionId], 'nor one whose subagents folder leads out');

	fs.rmSync(link, { recursive: true });
	fs.symlinkSync(link, link);
	assert.deepEqual(ids(), [sessionId], 'a link to itself is no folder');
});

test('a project folder that is itself a symlink is read where it leads, subagent folders and all', (t) => {
	const { root, claudeHome, outside, ids } = setUp(t);
	const real = path.join(outside, 'project');
	fs.mkdirSync(real);
	fs.writeFileSync(path.join(real, `${sessionId}.jsonl`), `${JSON.stringify({ type: 'user', sessionId })}\n`);
	subagentFolder(real, sessionId);
	fs.mkdirSync(path.join(claudeHome, 'projects'), { recursive: true });
	fs.symlinkSync(real, claudeProjectDir(claudeHome, root));
	assert.deepEqual(ids(), [sessionId, `${sessionId}/agent-${sessionId}`]);
});

test('a session transcript or a subagent’s that is a symlink to a file inside the project folder is listed, as agent history lists it; one leading out, to a folder or in a loop, is not', (t) => {
	const { root, claudeHome, outside, ids } = setUp(t);
	const project = claudeProjectDir(claudeHome, root);
	const kept = path.join(project, 'kept');
	fs.mkdirSync(kept, { recursive: true });
	fs.writeFileSync(path.join(kept, 'main.jsonl'), `${JSON.stringify({ type: 'user', sessionId })}\n`);
	fs.symlinkSync(path.join(kept, 'main.jsonl'), path.join(project, `${sessionId}.jsonl`));
	const subagents = path.join(project, sessionId, 'subagents');
	fs.mkdirSync(subagents, { recursive: true });
	fs.writeFileSync(path.join(kept, 'sub.jsonl'), `${JSON.stringify({ type: 'user', agentId: 'sub' })}\n`);
	fs.symlinkSync(path.join(kept, 'sub.jsonl'), path.join(subagents, 'agent-sub.jsonl'));
	assert.deepEqual(ids(), [sessionId, `${sessionId}/agent-sub`]);

	fs.writeFileSync(path.join(outside, 'secret.jsonl'), `${JSON.stringify({ type: 'user' })}\n`);
	fs.symlinkSync(path.join(outside, 'secret.jsonl'), path.join(project, 'out.jsonl'));
	fs.symlinkSync(path.join(outside, 'secret.jsonl'), path.join(subagents, 'agent-out.jsonl'));
	fs.symlinkSync(kept, path.join(project, 'folder.jsonl'));
	fs.symlinkSync(path.join(project, 'loop.jsonl'), path.join(project, 'loop.jsonl'));
	assert.deepEqual(ids(), [sessionId, `${sessionId}/agent-sub`], 'leading out of the project folder, to a folder, or to itself: not listed');
});

test('the archive keeps a session whose transcript is a symlink inside the project folder', async (t) => {
	const s = archiveSetup(t);
	const kept = path.join(s.projectDir, 'kept');
	fs.mkdirSync(kept, { recursive: true });
	realistic(s.root).flush(path.join(kept, 'main.jsonl'));
	fs.symlinkSync(path.join(kept, 'main.jsonl'), path.join(s.projectDir, `${mainId}.jsonl`));
	const report = await s.archive.sync({ link: s.link });
	assert.equal(report.synced.length, 1);
	assert.equal(s.archive.list()[0]?.sessionId, durable);
});
