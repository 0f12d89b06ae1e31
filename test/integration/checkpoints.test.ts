/**
 * Checkpoints through the editor (workspace prepared by scripts/runEditorTests.mjs: a git repository
 * with files and Baton set up): create, review what needs review, diff a file through the
 * `baton-checkpoint:` documents, approve, reject, roll back — the user's .git untouched throughout.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { BatonApi } from '../../src/extension/extension';
import { activateBaton } from './activateBaton';
import { CommandIds } from '../../src/extension/ids';
import type { CheckpointDto, RollbackResultDto } from '../../src/protocol/checkpointDto';

let api: BatonApi;
const root = (): string => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath as string;
const file = (name: string) => path.join(root(), name);

function snapshotDir(dir: string): Map<string, string> {
	const out = new Map<string, string>();
	const walk = (d: string): void => {
		for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
			const full = path.join(d, entry.name);
			if (entry.isDirectory()) walk(full);
			else out.set(path.relative(dir, full), fs.readFileSync(full).toString('base64'));
		}
	};
	walk(dir);
	return out;
}

suite('Checkpoints in the editor', () => {
	let first: CheckpointDto;
	let second: CheckpointDto;
	let gitBefore: Map<string, string>;

	suiteSetup(async () => {
		({ api } = await activateBaton());
		gitBefore = snapshotDir(path.join(root(), '.git'));
		await vscode.commands.executeCommand(CommandIds.startSession, { name: 'checkpoint work', scope: 'global', agent: 'claude-code' });
	});

	test('creates a checkpoint from the command and lists it in the Checkpoints view', async () => {
		first = (await vscode.commands.executeCommand(CommandIds.createCheckpoint, { message: 'before the change' })) as CheckpointDto;
		assert.match(first.id, /^cp_/);
		assert.ok(first.fileStats.totalFiles >= 2);
		const groups = await api.checkpoints.getChildren();
		assert.equal(groups.length, 1);
		const rows = await api.checkpoints.getChildren(groups[0]);
		assert.equal(rows.length, 1);
	});

	test('an error checkpoint needs review: pending in the status and the Pending Approvals view', async () => {
		fs.writeFileSync(file('src/app.js'), 'export const answer = 43;\n');
		fs.writeFileSync(file('src/new.js'), 'export const added = true;\n');
		second = (await vscode.commands.executeCommand(CommandIds.createCheckpoint, { message: 'agent hit errors', trigger: 'error' })) as CheckpointDto;
		assert.equal(second.approvalStatus, 'pending');
		assert.equal(second.parentCheckpointId, first.id);
		const status = await api.workspace.refresh();
		assert.deepEqual(
			status?.pendingCheckpoints.map((c) => c.id),
			[second.id],
		);
		assert.equal((await api.pendingApprovals.getChildren()).length, 1);
	});

	test('opens a file’s change in the diff editor from Baton’s own store', async () => {
		await vscode.commands.executeCommand(CommandIds.diffCheckpointFile, { from: first.id, to: second.id, path: 'src/app.js' });
		const diff = vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputTextDiff);
		assert.ok(diff, 'a diff editor is open');
		const input = diff.input as vscode.TabInputTextDiff;
		assert.equal(input.original.scheme, 'baton-checkpoint');
		assert.equal((await vscode.workspace.openTextDocument(input.original)).getText(), 'export const answer = 42;\n');
		assert.equal((await vscode.workspace.openTextDocument(input.modified)).getText(), 'export const answer = 43;\n');
		await vscode.commands.executeCommand('workbench.action.closeAllEditors');
	});

	test('approves and rejects with the decision recorded', async () => {
		const approved = (await vscode.commands.executeCommand(CommandIds.approveCheckpoint, { id: second.id })) as CheckpointDto;
		assert.equal(approved.approvalStatus, 'approved');
		assert.ok(approved.approvalUser?.startsWith('vscode:'));
		fs.writeFileSync(file('src/app.js'), 'export const answer = 44;\n');
		const third = (await vscode.commands.executeCommand(CommandIds.createCheckpoint, { message: 'a bad idea', trigger: 'error' })) as CheckpointDto;
		const rejected = (await vscode.commands.executeCommand(CommandIds.rejectCheckpoint, { id: third.id, reason: 'wrong approach' })) as CheckpointDto;
		assert.equal(rejected.approvalStatus, 'rejected');
		assert.equal(rejected.approvalReason, 'wrong approach');
		assert.equal((await api.workspace.refresh())?.pendingCheckpoints.length, 0);
	});

	test('rolls back to a checkpoint, keeping what existed before, never touching .git', async () => {
		fs.writeFileSync(file('notes-never-snapshotted.txt'), 'mine\n');
		const result = (await vscode.commands.executeCommand(CommandIds.rollbackCheckpoint, { id: first.id, confirmed: true })) as RollbackResultDto;
		assert.match(result.safetyCheckpointId, /^cp_/);
		assert.equal(fs.readFileSync(file('src/app.js'), 'utf8'), 'export const answer = 42;\n');
		assert.equal(fs.existsSync(file('src/new.js')), false, 'created after the target, proven by a later checkpoint');
		assert.equal(fs.readFileSync(file('notes-never-snapshotted.txt'), 'utf8'), 'mine\n', 'no proof it is newer: kept');
		assert.deepEqual(snapshotDir(path.join(root(), '.git')), gitBefore, 'the user’s .git is byte-identical');
		const undo = (await vscode.commands.executeCommand(CommandIds.rollbackCheckpoint, {
			id: result.safetyCheckpointId,
			confirmed: true,
		})) as RollbackResultDto;
		assert.ok(undo.restored.length > 0);
		assert.equal(fs.readFileSync(file('src/app.js'), 'utf8'), 'export const answer = 44;\n');
	});
});
