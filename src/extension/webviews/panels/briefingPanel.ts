import { z } from 'zod';
import type { SessionDto } from '../../../protocol/dto';
import { briefingGet, sessionDetails } from '../../../protocol/rpc';
import type { PanelHost } from '../panelHost';
import { describeError, type DataOf, type PanelProvider, type TargetOf } from './panelProvider';

const restoredState = z.object({ data: z.object({ briefing: z.object({ sessionId: z.string().nullable(), scope: z.string() }) }) });

/** The briefing a session starts from (or a scope's, before any session). */
export const briefingPanel: PanelProvider<'briefing'> = {
	kind: 'briefing',
	viewType: 'baton.briefing',
	titleFor: () => 'Baton Briefing',
	async fetch(host: PanelHost, target: TargetOf<'briefing'>): Promise<DataOf<'briefing'>> {
		const { briefing } = await host.request(briefingGet, { sessionId: target.sessionId, scope: target.scope });
		return { type: 'briefing', briefing, session: briefing.sessionId ? await sessionOrNull(host, briefing.sessionId) : null };
	},
	targetFromState(state: unknown): TargetOf<'briefing'> {
		const parsed = restoredState.safeParse(state);
		const briefing = parsed.success ? parsed.data.data.briefing : undefined;
		return { kind: 'briefing', sessionId: briefing?.sessionId ?? undefined, scope: briefing ? briefing.scope : undefined };
	},
};

/** The briefing's header names its session; a session that vanished meanwhile only loses the header. */
async function sessionOrNull(host: PanelHost, id: string): Promise<SessionDto | null> {
	try {
		return (await host.request(sessionDetails, { id })).session;
	} catch (error) {
		host.log.warn(`Briefing: could not read session ${id}: ${describeError(error)}`);
		return null;
	}
}
