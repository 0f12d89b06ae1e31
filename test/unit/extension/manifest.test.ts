/**
 * package.json ⇔ ids.ts, both ways: every contributed command is registered by the extension and
 * every registered command is contributed, every `when` clause names context keys that exist, and
 * the palette titles are exactly the public ones.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CommandIds, ContextKeys, defaultCheckpointExcludes, mcpProviderId, ViewIds } from '../../../src/extension/ids';
import { defaultCheckpointExcludes as engineExcludes } from '../../../src/engine/config';
import { mergeConfig } from '../../../src/engine/engine';

const root = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

function registeredCommandIds(): Set<string> {
	const dir = path.join(root, 'src/extension');
	const out = new Set<string>();
	const walk = (d: string): void => {
		for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
			const full = path.join(d, entry.name);
			if (entry.isDirectory()) walk(full);
			else if (entry.name.endsWith('.ts')) {
				for (const m of fs.readFileSync(full, 'utf8').matchAll(/command\(\s*CommandIds\.(\w+)/g)) {
					out.add((CommandIds as Record<string, string>)[m[1] as string] as string);
				}
			}
		}
	};
	walk(dir);
	return out;
}

void describe('extension manifest', () => {
	void it('contributes exactly the commands ids.ts declares, and registers each of them', () => {
		const contributed = new Set<string>(pkg.contributes.commands.map((c: { command: string }) => c.command));
		assert.deepEqual([...contributed].sort(), Object.values(CommandIds).sort());
		assert.deepEqual([...registeredCommandIds()].sort(), Object.values(CommandIds).sort());
	});

	void it('titles the lifecycle commands exactly as documented, in the Baton category', () => {
		const titles = new Map<string, string>(
			pkg.contributes.commands.map((c: { command: string; title: string; category: string }) => [c.command, `${c.category}: ${c.title}`]),
		);
		const expected: Record<string, string> = {
			[CommandIds.startSession]: 'Baton: Start Session',
			[CommandIds.endSession]: 'Baton: End Session',
			[CommandIds.suspendSession]: 'Baton: Suspend Session',
			[CommandIds.resumeSession]: 'Baton: Resume Session',
			[CommandIds.switchSession]: 'Baton: Switch Session',
			[CommandIds.showBriefing]: 'Baton: Show Briefing',
			[CommandIds.showSessionDetails]: 'Baton: Show Session Details',
			[CommandIds.recordDecision]: 'Baton: Record Decision',
			[CommandIds.addTask]: 'Baton: Add Task',
			[CommandIds.cleanUpSessions]: 'Baton: Clean Up Stale Sessions',
			[CommandIds.createCheckpoint]: 'Baton: Create Checkpoint',
			[CommandIds.compareCheckpoints]: 'Baton: Compare Checkpoints',
			[CommandIds.rollbackCheckpoint]: 'Baton: Roll Back to Checkpoint',
			[CommandIds.approveCheckpoint]: 'Baton: Approve Checkpoint',
			[CommandIds.rejectCheckpoint]: 'Baton: Reject Checkpoint',
			[CommandIds.tagCheckpoint]: 'Baton: Tag Checkpoint',
			[CommandIds.importData]: 'Baton: Import…',
			[CommandIds.exportSessions]: 'Baton: Export…',
			[CommandIds.connectClaude]: 'Baton: Connect Claude Code',
			[CommandIds.connectCopilot]: 'Baton: Connect Copilot Agent',
			[CommandIds.connectCline]: 'Baton: Connect Cline',
			[CommandIds.summarizeSession]: 'Baton: Summarize Session with Language Model',
			[CommandIds.sendTestNotification]: 'Baton: Send Test Notification',
			[CommandIds.storeSecret]: 'Baton: Store Secret…',
			[CommandIds.clearSecret]: 'Baton: Clear Secret…',
		};
		for (const [id, title] of Object.entries(expected)) {
			assert.equal(titles.get(id), title);
		}
	});

	void it('names the container and view as documented and hides commands that make no sense', () => {
		assert.equal(pkg.contributes.viewsContainers.activitybar[0].id, ViewIds.container);
		assert.equal(pkg.contributes.viewsContainers.activitybar[0].title, 'Baton');
		assert.equal(pkg.contributes.views.baton[0].id, ViewIds.sessionChains);
		assert.equal(pkg.contributes.views.baton[0].name, 'Session Chains');
		assert.deepEqual(
			pkg.contributes.views.baton.map((v: { name: string }) => v.name),
			['Session Chains', 'Agents', 'Pending Approvals', 'Checkpoints', 'Transcripts'],
		);
		assert.equal(pkg.contributes.views.baton.find((v: { name: string }) => v.name === 'Agents').id, ViewIds.agents);
		assert.equal(pkg.contributes.views.baton.find((v: { name: string }) => v.name === 'Transcripts').id, ViewIds.transcripts);
		const when = new Map<string, string>(pkg.contributes.menus.commandPalette.map((m: { command: string; when: string }) => [m.command, m.when]));
		assert.match(when.get(CommandIds.endSession) ?? '', /baton\.hasActiveSession/);
		assert.match(when.get(CommandIds.resumeSession) ?? '', /baton\.hasResumableSession/);
	});

	void it('declares the MCP server definition provider the extension registers', () => {
		assert.deepEqual(pkg.contributes.mcpServerDefinitionProviders, [{ id: mcpProviderId, label: 'Baton' }]);
	});

	void it('uses only context keys the extension sets', () => {
		const known = new Set<string>(Object.values(ContextKeys));
		const clauses = (JSON.stringify(pkg.contributes).match(/"when":"[^"]*"/g) ?? []).map((c) => c.slice(8, -1));
		assert.ok(clauses.length > 20);
		for (const clause of clauses) {
			// Drop the right-hand side of comparisons (`view == baton.sessionChains`, `viewItem =~ /…/`).
			const keys = clause.replace(/(==|!=|=~)\s*(\/[^/]*\/|[^\s&|)]+)/g, '').match(/\bbaton\.\w+/g) ?? [];
			for (const key of keys) {
				assert.ok(known.has(key), `unknown context key ${key} in "${clause}"`);
			}
		}
	});

	void it('mirrors the engine’s default snapshot excludes, and merges settings into the file’s checkpoint block', () => {
		assert.deepEqual(defaultCheckpointExcludes, engineExcludes);
		const merged = mergeConfig(
			{ maxConcurrentSessions: 3, checkpoints: { policy: 'strict', escalation: { costUsd: 1 } } },
			{ checkpoints: { periodicInterval: '5m', escalation: { errorCount: 9 } } },
		);
		assert.deepEqual(merged, {
			maxConcurrentSessions: 3,
			checkpoints: { policy: 'strict', periodicInterval: '5m', escalation: { costUsd: 1, errorCount: 9 } },
		});
	});

	void it('declares activation, trust and the excludes for .baton', () => {
		assert.ok(pkg.activationEvents.includes('onStartupFinished'));
		assert.ok(pkg.activationEvents.some((e: string) => e.startsWith('workspaceContains:.baton')));
		assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
		assert.equal(pkg.contributes.configurationDefaults['files.watcherExclude']['**/.baton/**'], true);
		assert.equal(pkg.bin.baton, './dist/cli.js');
	});
});
