import * as vscode from 'vscode';
import { z } from 'zod';
import type { ComparisonDto } from '../../../protocol/checkpointDto';
import { checkpointDiff } from '../../../protocol/rpc';
import type { WebviewToHost } from '../../../protocol/webview';
import { CommandIds, type CommandId } from '../../ids';
import type { PanelHost } from '../panelHost';
import type { DataOf, PanelProvider, TargetOf } from './panelProvider';

const title = 'Baton: Compare';

const checkpointActionCommands: Record<'approve' | 'reject' | 'rollback', CommandId> = {
	approve: CommandIds.approveCheckpoint,
	reject: CommandIds.rejectCheckpoint,
	rollback: CommandIds.rollbackCheckpoint,
};

const restoredState = z.object({
	data: z.object({
		comparison: z.object({ from: z.object({ id: z.string().min(1).max(100) }), to: z.object({ id: z.string().min(1).max(100) }).nullable() }),
	}),
});

/** What the comparison panel last sent its page: its messages may only name these checkpoints and files. */
interface ShownComparison {
	readonly from: string;
	readonly to: string | undefined;
	readonly checkpointIds: ReadonlySet<string>;
	readonly paths: ReadonlySet<string>;
}

/** Two checkpoints (or one and the working tree) side by side, with approve, reject, roll back and per-file diffs. */
export function createComparePanel(): PanelProvider<'compare'> {
	let shown: ShownComparison | undefined;

	/** The comparison on screen, for the messages only it sends (else logged and `undefined`). */
	const current = (host: PanelHost, type: string): ShownComparison | undefined => {
		if (!shown) {
			host.log.warn(`Ignored ${type}: the comparison has not loaded yet`);
		}
		return shown;
	};

	return {
		kind: 'compare',
		viewType: 'baton.compare',
		titleFor: (target: TargetOf<'compare'>) => comparisonTitle(shortCheckpointId(target.from), target.to === undefined ? undefined : shortCheckpointId(target.to)),
		async fetch(host: PanelHost, target: TargetOf<'compare'>): Promise<DataOf<'compare'>> {
			return { type: 'compare', comparison: await host.request(checkpointDiff, target.to === undefined ? { from: target.from } : { from: target.from, to: target.to }) };
		},
		shown(data: DataOf<'compare'>): string {
			shown = shownComparison(data.comparison);
			return comparisonTitle(`#${data.comparison.from.seq}`, data.comparison.to ? `#${data.comparison.to.seq}` : undefined);
		},
		async handle(message: WebviewToHost, host: PanelHost): Promise<boolean> {
			if (message.type === 'openFileDiff') {
				const on = current(host, message.type);
				if (!on) {
					return true;
				}
				if (!on.paths.has(message.path)) {
					host.log.warn(`Ignored openFileDiff for a file the comparison does not list: ${JSON.stringify(message.path.slice(0, 200))}`);
					return true;
				}
				await vscode.commands.executeCommand(CommandIds.diffCheckpointFile, { from: on.from, to: on.to, path: message.path });
				return true;
			}
			if (message.type === 'checkpointAction') {
				const on = current(host, message.type);
				if (!on) {
					return true;
				}
				if (!on.checkpointIds.has(message.checkpointId)) {
					host.log.warn(`Ignored ${message.action} of checkpoint ${message.checkpointId}: not one of the compared checkpoints`);
					return true;
				}
				await vscode.commands.executeCommand(checkpointActionCommands[message.action], { id: message.checkpointId });
				return true;
			}
			return false;
		},
		closed(): void {
			shown = undefined;
		},
		targetFromState(state: unknown): TargetOf<'compare'> | undefined {
			const parsed = restoredState.safeParse(state);
			const comparison = parsed.success ? parsed.data.data.comparison : undefined;
			return comparison ? { kind: 'compare', from: comparison.from.id, to: comparison.to?.id } : undefined;
		},
	};
}

/** "Baton: Compare #14 → #17", "Baton: Compare #18 → working tree". */
export function comparisonTitle(from: string, to: string | undefined): string {
	return `${title} ${from} → ${to ?? 'working tree'}`;
}

/** `cp_20250312135200_3c9d1e` → `3c9d1e` (the title says which checkpoints before their numbers are known). */
export function shortCheckpointId(id: string): string {
	const match = /^cp_\d{14}_([0-9a-f]{6})$/.exec(id);
	return match?.[1] ?? (id.length > 14 ? `${id.slice(0, 13)}…` : id);
}

function shownComparison(comparison: ComparisonDto): ShownComparison {
	const ids = [comparison.from.id, ...(comparison.to ? [comparison.to.id] : [])];
	return { from: comparison.from.id, to: comparison.to?.id, checkpointIds: new Set(ids), paths: new Set(comparison.files.map((f) => f.path)) };
}
