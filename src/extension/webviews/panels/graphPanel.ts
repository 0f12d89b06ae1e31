import { z } from 'zod';
import { sessionList } from '../../../protocol/rpc';
import type { PanelHost } from '../panelHost';
import type { DataOf, PanelProvider, TargetOf } from './panelProvider';

/** The graph shows the newest sessions up to this many. */
const graphLimit = 2000;
const restoredState = z.object({ data: z.object({ focusId: z.string().nullable() }) });

/** Every chain of sessions as a graph. */
export const graphPanel: PanelProvider<'graph'> = {
	kind: 'graph',
	viewType: 'baton.chainGraph',
	titleFor: () => 'Baton Chain Graph',
	async fetch(host: PanelHost, target: TargetOf<'graph'>): Promise<DataOf<'graph'>> {
		const { sessions } = await host.request(sessionList, { limit: graphLimit });
		return { type: 'graph', sessions, focusId: target.focusId ?? null };
	},
	targetFromState(state: unknown): TargetOf<'graph'> {
		const parsed = restoredState.safeParse(state);
		return { kind: 'graph', focusId: parsed.success ? (parsed.data.data.focusId ?? undefined) : undefined };
	},
};
