import * as vscode from 'vscode';
import { z } from 'zod';
import type { ComparisonDto } from '../../../protocol/checkpointDto';
import { checkpointChanges, checkpointDiff } from '../../../protocol/rpc';
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

const savedSide = z.object({ id: z.string().min(1).max(100) });
const restoredState = z.object({
	data: z.object({
		comparison: z.object({ from: savedSide.nullable(), to: savedSide.nullable() }),
	}),
});

/** What the comparison panel last sent its page: its messages may only name these checkpoints and files. */
interface ShownComparison {
	/** Undefined: the empty workspace before the first checkpoint. */
	readonly from: string | undefined;
	readonly to: string | undefined;
	/** How the diff editor's title names the sides ("#3", "working tree"). */
	readonly names: { from: string; to: string };
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
		// Before the data: a review says so; two checkpoints are told by their numbers once they are known.
		titleFor: (target: TargetOf<'compare'>) => ('changesOf' in target ? `${title}: Review` : `${title}…`),
		async fetch(host: PanelHost, target: TargetOf<'compare'>): Promise<DataOf<'compare'>> {
			if ('changesOf' in target) {
				return { type: 'compare', comparison: await host.request(checkpointChanges, { id: target.changesOf }) };
			}
			return {
				type: 'compare',
				comparison: await host.request(checkpointDiff, target.to === undefined ? { from: target.from } : { from: target.from, to: target.to }),
			};
		},
		shown(data: DataOf<'compare'>): string {
			const { from, to } = data.comparison;
			shown = shownComparison(data.comparison);
			return comparisonTitle(from ? `#${from.seq}` : 'empty workspace', to ? `#${to.seq}` : undefined);
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
				await vscode.commands.executeCommand(CommandIds.diffCheckpointFile, { from: on.from, to: on.to, path: message.path, names: on.names });
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
			if (!comparison) {
				return undefined;
			}
			if (!comparison.from) {
				return comparison.to ? { kind: 'compare', changesOf: comparison.to.id } : undefined;
			}
			return { kind: 'compare', from: comparison.from.id, to: comparison.to?.id };
		},
	};
}

/** "Baton: Compare #14 → #17", "Baton: Compare #18 → working tree". */
function comparisonTitle(from: string, to: string | undefined): string {
	return `${title} ${from} → ${to ?? 'working tree'}`;
}

function shownComparison(comparison: ComparisonDto): ShownComparison {
	const { from, to } = comparison;
	const ids = [from?.id, to?.id].filter((id): id is string => id !== undefined);
	return {
		from: from?.id,
		to: to?.id,
		names: { from: from ? `#${from.seq}` : 'empty workspace', to: to ? `#${to.seq}` : 'working tree' },
		checkpointIds: new Set(ids),
		paths: new Set(comparison.files.map((f) => f.path)),
	};
}
