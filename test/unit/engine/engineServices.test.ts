/**
 * The composition root (docs/architecture.md §3): the timeline, line provenance and the transcript
 * archive are services of `Engine`, made once per engine, and every place that opens the archive
 * finds Claude Code's home by one rule.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { claudeHomeDir } from '../../../src/engine/transcripts/archiveHome';
import { openTestEngine, tempDir } from '../helpers';

it('finds Claude Code’s home by one rule: the workspace setting, BATON_CLAUDE_HOME, CLAUDE_CONFIG_DIR, then ~/.claude', () => {
	const env = { BATON_CLAUDE_HOME: '/b', CLAUDE_CONFIG_DIR: '/c' };
	assert.equal(claudeHomeDir('/setting', env, '/home/u'), '/setting');
	assert.equal(claudeHomeDir(undefined, env, '/home/u'), '/b');
	assert.equal(claudeHomeDir(undefined, { CLAUDE_CONFIG_DIR: '/c' }, '/home/u'), '/c');
	assert.equal(claudeHomeDir(undefined, {}, '/home/u'), path.join('/home/u', '.claude'));
	assert.equal(claudeHomeDir(undefined, {}), path.join(os.homedir(), '.claude'));
});

it('the engine’s archive reads the workspace’s agent settings and the reporter’s environment; a broken settings file warns and keeps the rule', async (t) => {
	const { engine, root, log } = await openTestEngine(t);
	const home = tempDir(t, 'baton-claude-home-');
	assert.equal(engine.transcripts({ env: { CLAUDE_CONFIG_DIR: home } }).claudeHome, home, 'a hook’s environment is the agent’s own');
	fs.writeFileSync(path.join(root, '.baton', 'agents.json'), JSON.stringify({ claudeHome: home }));
	assert.equal(engine.transcripts({ env: { CLAUDE_CONFIG_DIR: '/elsewhere' } }).claudeHome, home, 'the workspace’s setting comes first');
	fs.writeFileSync(path.join(root, '.baton', 'agents.json'), '{ not json');
	assert.equal(engine.transcripts({ env: { BATON_CLAUDE_HOME: home } }).claudeHome, home);
	assert.match(log.warnings().join('\n'), /agents\.json.*using the default agent settings/s);
});

it('timeline and provenance are made once per engine', async (t) => {
	const { engine } = await openTestEngine(t);
	assert.equal(engine.timeline, engine.timeline);
	assert.equal(engine.provenance, engine.provenance, 'what provenance keeps serves the next command of a daemon or backend');
});
