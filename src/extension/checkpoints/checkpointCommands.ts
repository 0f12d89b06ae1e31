/**
 * Checkpoint commands: create, compare, roll back, approve, reject, tag, and the per-file diff the
 * comparison view opens. Destructive ones confirm first; long ones show progress.
 */
import * as vscode from 'vscode';
import type { CheckpointDto } from '../../protocol/checkpointDto';
import { checkpointApprove, checkpointCreate, checkpointList, checkpointReject, checkpointRollback, checkpointTag } from '../../protocol/rpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { command, ensureInitialized, sessionIdOf } from '../commands/commandSupport';
import { relativeTime, withoutIcons } from '../format';
import { CommandIds } from '../ids';
import type { BatonPanels } from '../webviews/batonPanels';
import { openCheckpointDiff, type SideNames } from './checkpointDocuments';
import { CheckpointNode } from './checkpointViews';
import { checkpointLabel, type RejectionOffers } from './rejectionOffer';
import type { ToldHere } from '../notifications/toldHere';
import { showInformationMessage, showQuickPick, showWarningMessage } from '../messages';

interface Deps {
	workspace: BatonWorkspace;
	panels: BatonPanels;
	offers: RejectionOffers;
	told: ToldHere;
}

function idOf(arg: unknown): string | undefined {
	return arg instanceof CheckpointNode ? arg.checkpoint.id : sessionIdOf(arg);
}

const statusLabel: Record<CheckpointDto['approvalStatus'], string> = {
	pending: 'needs review',
	approved: 'approved',
	auto_approved: 'auto-approved',
	rejected: 'rejected',
};

async function pickCheckpoint(
	workspace: BatonWorkspace,
	placeHolder: string,
	filter: (c: CheckpointDto) => boolean = () => true,
): Promise<CheckpointDto | undefined> {
	const { checkpoints } = await workspace.request(checkpointList, { limit: 500 });
	const candidates = checkpoints.filter(filter);
	if (candidates.length === 0) {
		void showInformationMessage('No checkpoint fits. Create one with “Baton: Create Checkpoint”.');
		return undefined;
	}
	const picked = await showQuickPick(
		candidates.map((c) => ({
			label: withoutIcons(c.message?.trim() || `${c.trigger} checkpoint`),
			description: withoutIcons(
				`#${c.seq} · ${statusLabel[c.approvalStatus]} · ${relativeTime(c.createdAt)}${c.tags.length ? ` · ${c.tags.map((t) => `#${t}`).join(' ')}` : ''}`,
			),
			detail: `${c.id} · +${c.fileStats.added} ~${c.fileStats.modified} −${c.fileStats.deleted} files`,
			checkpoint: c,
		})),
		{ placeHolder, matchOnDescription: true, matchOnDetail: true },
	);
	return picked?.checkpoint;
}

/** What the commands share: the dependencies and the helpers built on them. */
function contextOf({ workspace, panels, offers, told }: Deps) {
	const log = workspace.log;
	const find = async (id: string) => (await workspace.request(checkpointList, { limit: 500 })).checkpoints.find((c) => c.id === id);
	const sideNames = async (from: string | undefined, to: string | undefined): Promise<SideNames> => {
		const name = async (id: string): Promise<string> => {
			const cp = await find(id);
			return cp ? `#${cp.seq}` : id;
		};
		return { from: from ? await name(from) : 'empty workspace', to: to ? await name(to) : 'working tree' };
	};

	return { workspace, panels, offers, told, log, find, sideNames };
}

type Context = ReturnType<typeof contextOf>;

export function registerCheckpointCommands(deps: Deps): vscode.Disposable[] {
	const ctx = contextOf(deps);
	const { log } = ctx;
	return [
		command(CommandIds.createCheckpoint, async (arg?: unknown) => createCheckpointCommand(ctx, arg), log),
		command(CommandIds.compareCheckpoints, async (arg?: unknown) => compareCheckpointsCommand(ctx, arg), log),
		command(CommandIds.diffCheckpointFile, async (arg?: unknown) => diffCheckpointFileCommand(ctx, arg), log),
		command(CommandIds.approveCheckpoint, async (arg?: unknown) => approveCheckpointCommand(ctx, arg), log),
		command(CommandIds.rejectCheckpoint, async (arg?: unknown) => rejectCheckpointCommand(ctx, arg), log),
		command(CommandIds.rollbackCheckpoint, async (arg?: unknown) => rollbackCheckpointCommand(ctx, arg), log),
		command(CommandIds.tagCheckpoint, async (arg?: unknown) => tagCheckpointCommand(ctx, arg), log),
	];
}

async function createCheckpointCommand(ctx: Context, arg?: unknown) {
	const { workspace } = ctx;
	if (!(await ensureInitialized(workspace))) {
		return;
	}
	const given = arg && typeof arg === 'object' ? (arg as { message?: string; trigger?: string; tags?: string[] }) : {};
	const message =
		given.message ??
		(await vscode.window.showInputBox({
			title: 'Create Checkpoint',
			prompt: 'What state is this? (optional)',
			placeHolder: 'e.g. Webhook handler passes its tests',
		}));
	if (message === undefined) {
		return;
	}
	const trigger = given.trigger ?? 'manual';
	// The engine's approval policy decides (the same for the CLI): no editor-only approval here.
	const { checkpoint } = await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: 'Baton: taking a checkpoint of the workspace…' },
		() => workspace.request(checkpointCreate, { trigger, ...(message.trim() ? { message: message.trim() } : {}), tags: given.tags ?? [] }),
	);
	await workspace.refresh();
	const stats = checkpoint.fileStats;
	const extra = [
		stats.skippedTotal ? `${stats.skippedTotal} large file(s) left out` : '',
		stats.degraded ? `partial: ${stats.degradedReason ?? 'time budget'}` : '',
	]
		.filter(Boolean)
		.join('; ');
	vscode.window.setStatusBarMessage(
		`$(check) Baton: checkpoint ${checkpointLabel(checkpoint)} (${statusLabel[checkpoint.approvalStatus]})${extra ? ` — ${extra}` : ''}`,
		6_000,
	);
	if (extra) {
		void showWarningMessage(`Checkpoint taken, but ${extra}.`);
	}
	return checkpoint;
}

async function compareCheckpointsCommand(ctx: Context, arg?: unknown) {
	const { workspace, panels } = ctx;
	const given = arg && typeof arg === 'object' ? (arg as { id?: string; to?: string; withParent?: boolean }) : {};
	let from = idOf(arg);
	let to = given.to;
	if (from && given.withParent) {
		// Review: what this checkpoint changed, i.e. the one before it → it (the first: nothing → it).
		await panels.showChanges(from);
		return;
	}
	if (!from) {
		const first = await pickCheckpoint(workspace, 'Compare which checkpoint…');
		if (!first) {
			return;
		}
		const second = await showQuickPick(
			[
				{ label: '$(file-directory) The working tree', id: undefined as string | undefined },
				...(await workspace.request(checkpointList, { limit: 500 })).checkpoints
					.filter((c) => c.id !== first.id)
					.map((c) => ({
						label: c.message?.trim() || `${c.trigger} checkpoint`,
						description: `#${c.seq} · ${statusLabel[c.approvalStatus]} · ${relativeTime(c.createdAt)}`,
						detail: c.id,
						id: c.id as string | undefined,
					})),
			],
			{ placeHolder: '…with what?' },
		);
		if (!second) {
			return;
		}
		from = first.id;
		to = second.id;
	}
	await panels.showComparison(from, to);
}

async function diffCheckpointFileCommand(ctx: Context, arg?: unknown) {
	const { workspace, sideNames } = ctx;
	const given = arg as { from?: string; to?: string; path?: string; names?: SideNames } | undefined;
	if ((!given?.from && !given?.to) || !given.path) {
		return;
	}
	const names = given.names ?? (await sideNames(given.from, given.to));
	await openCheckpointDiff(workspace, { path: given.path, names, ...(given.from ? { from: given.from } : {}), ...(given.to ? { to: given.to } : {}) });
}

async function approveCheckpointCommand(ctx: Context, arg?: unknown) {
	const { workspace, told } = ctx;
	const id = idOf(arg) ?? (await pickCheckpoint(workspace, 'Approve which checkpoint?', (c) => c.approvalStatus === 'pending'))?.id;
	if (!id) {
		return;
	}
	// The status bar confirms it; the backend's notice of the same approval stays in the log.
	told.mark('checkpoint.approved', id);
	const { checkpoint } = await workspace.request(checkpointApprove, { id });
	await workspace.refresh();
	vscode.window.setStatusBarMessage(`$(pass-filled) Baton: approved checkpoint ${checkpointLabel(checkpoint)}`, 5_000);
	return checkpoint;
}

async function rejectCheckpointCommand(ctx: Context, arg?: unknown) {
	const { workspace, offers } = ctx;
	const id = idOf(arg) ?? (await pickCheckpoint(workspace, 'Reject which checkpoint?', (c) => c.approvalStatus === 'pending'))?.id;
	if (!id) {
		return;
	}
	const given = arg && typeof arg === 'object' && typeof (arg as { reason?: unknown }).reason === 'string' ? (arg as { reason: string }).reason : undefined;
	const reason =
		given ?? (await vscode.window.showInputBox({ title: 'Reject Checkpoint', prompt: 'Why? (recorded in the audit log)', ignoreFocusOut: true }));
	if (reason === undefined) {
		return;
	}
	// Say it once: the backend's notice of this rejection is answered by the same offer.
	if (given) {
		offers.settle(id);
	}
	const { checkpoint } = await workspace.request(checkpointReject, { id, ...(reason.trim() ? { reason: reason.trim() } : {}) });
	await workspace.refresh();
	// After a rejection the natural next step is going back to the last good state.
	if (!given) {
		offers.offer(checkpoint.id);
	}
	return checkpoint;
}

async function rollbackCheckpointCommand(ctx: Context, arg?: unknown) {
	const { workspace, find } = ctx;
	const id = idOf(arg) ?? (await pickCheckpoint(workspace, 'Roll the workspace back to which checkpoint?'))?.id;
	if (!id) {
		return;
	}
	const target = await find(id);
	const force = target?.approvalStatus === 'rejected';
	const given = arg && typeof arg === 'object' && (arg as { confirmed?: boolean }).confirmed === true;
	if (!given) {
		const choice = await showWarningMessage(
			`Roll the workspace back to checkpoint ${target ? checkpointLabel(target) : id}?`,
			{
				modal: true,
				detail: `${force ? 'This checkpoint was REJECTED. ' : ''}Baton first takes a safety checkpoint of everything as it is now, then restores the files of ${target ? `checkpoint ${checkpointLabel(target)}` : id}. Git history, branches and the index are not touched; files the checkpoint does not have are removed only when Baton's snapshots prove they were created after it. Undo by rolling back to the safety checkpoint.`,
			},
			force ? 'Roll Back Anyway' : 'Roll Back',
		);
		if (!choice) {
			return;
		}
	}
	const result = await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: `Baton: rolling back to ${target ? `checkpoint ${checkpointLabel(target)}` : id}…` },
		() => workspace.request(checkpointRollback, { id, ...(force ? { force: true } : {}) }),
	);
	await workspace.refresh();
	const kept = result.kept.length ? `; kept ${result.kept.length} file(s) without proof they are newer` : '';
	void showInformationMessage(
		`Rolled back: ${result.restored.length} file(s) restored, ${result.removed.length} removed${kept}. A safety checkpoint holds the state before: Undo returns to it.`,
		'Undo',
	).then((choice) => {
		if (choice) {
			void vscode.commands.executeCommand(CommandIds.rollbackCheckpoint, { id: result.safetyCheckpointId, confirmed: true });
		}
	});
	return result;
}

async function tagCheckpointCommand(ctx: Context, arg?: unknown) {
	const { workspace } = ctx;
	const id = idOf(arg) ?? (await pickCheckpoint(workspace, 'Tag which checkpoint?'))?.id;
	if (!id) {
		return;
	}
	const given = arg && typeof arg === 'object' && typeof (arg as { tag?: unknown }).tag === 'string' ? (arg as { tag: string }).tag : undefined;
	const tag =
		given ??
		(await vscode.window.showInputBox({
			title: 'Tag Checkpoint',
			prompt: 'Tag',
			placeHolder: 'e.g. green-tests',
			validateInput: (v) => (/^[\w.\-/]{1,64}$/.test(v.trim()) ? undefined : 'Letters, digits and . _ - / (1–64)'),
		}));
	if (!tag) {
		return;
	}
	const { checkpoint } = await workspace.request(checkpointTag, { id, tag: tag.trim() });
	await workspace.refresh();
	return checkpoint;
}
