import { z } from 'zod';
import { sessionDetails } from '../../../protocol/rpc';
import type { PanelHost } from '../panelHost';
import type { DataOf, PanelProvider, TargetOf } from './panelProvider';

const title = 'Baton Session';
const restoredState = z.object({ data: z.object({ details: z.object({ session: z.object({ id: z.string().min(1).max(100) }) }) }) });

/** One session: its state, chain, tasks, checkpoints and handoff. */
export const detailsPanel: PanelProvider<'details'> = {
	kind: 'details',
	viewType: 'baton.sessionDetails',
	titleFor: () => title,
	async fetch(host: PanelHost, target: TargetOf<'details'>): Promise<DataOf<'details'>> {
		return { type: 'details', details: await host.request(sessionDetails, { id: target.sessionId }) };
	},
	shown: (data) => `${title}: ${data.details.session.name}`,
	targetFromState(state: unknown): TargetOf<'details'> | undefined {
		const parsed = restoredState.safeParse(state);
		return parsed.success ? { kind: 'details', sessionId: parsed.data.data.details.session.id } : undefined;
	},
};
