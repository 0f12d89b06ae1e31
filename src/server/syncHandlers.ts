/**
 * Sync requests (docs/sync.md). Status and origins only read; a pull writes the pulled records, so
 * it goes through the host's write path (refused in an untrusted workspace).
 */
import type { MessageConnection } from 'vscode-jsonrpc/node';
import type { Engine } from '../engine/engine';
import * as rpc from '../protocol/syncRpc';
import type { SyncNowResult } from '../engine/sync/syncShapes';
import type { EngineHost } from './engineHost';
import { actor, requestRegistrar } from './handlers';
import { BatonError } from '../engine/errors';
import { pushAll } from '../engine/arrays';

async function pullAll(engine: Engine): Promise<SyncNowResult> {
	const enabled = (await engine.sync.status()).remotes.some((r) => r.enabled);
	if (!enabled) {
		return { pushed: [], fetched: 0, newEvents: 0, sessions: { added: 0, updated: 0 }, refused: [], refusedCount: 0 };
	}
	const pulled = await engine.sync.pull();
	return {
		pushed: [],
		fetched: pulled.fetched,
		newEvents: pulled.newEvents,
		sessions: pulled.sessions,
		refused: pulled.refused.slice(0, 20),
		refusedCount: pulled.refused.length,
	};
}

export function registerSyncHandlers(connection: MessageConnection, host: EngineHost): void {
	const on = requestRegistrar(connection, host);
	on(rpc.syncStatus, async () => ({ remotes: (await (await host.get()).sync.status()).remotes }));
	on(rpc.syncPull, () => host.write((engine) => pullAll(engine)));
	on(rpc.syncNow, () =>
		host.write(async (engine) => {
			const pulled = await pullAll(engine);
			if ((await engine.sync.status()).remotes.some((r) => r.enabled)) {
				for (const result of await engine.sync.push()) {
					pushAll(pulled.pushed, [...result.pushed.map((p) => ({ ...p, remote: result.remote }))]);
					if (result.leftOut?.length) {
						pulled.leftOut = [...(pulled.leftOut ?? []), ...result.leftOut];
					}
				}
			}
			return pulled;
		}),
	);
	on(rpc.syncRemotes, async () => ({ remotes: await (await host.get()).sync.remotes() }));
	// Writes (the sync state file): refused in an untrusted workspace, like a pull.
	on(rpc.syncEnable, (params) =>
		host.write((engine) =>
			engine.sync.enable(params.remote, {
				transcripts: params.transcripts === true,
				untracked: params.untracked === true,
				timeline: params.timeline === true,
			}),
		),
	);
	on(rpc.syncRetractable, async () => (await host.get()).sync.retractable());
	on(rpc.syncRetract, (params) =>
		host.write(async (engine) => {
			const request = params.checkpoint
				? { checkpoint: params.checkpoint }
				: params.session
					? { session: params.session }
					: params.since
						? { since: params.since }
						: undefined;
			if (!request) {
				throw new BatonError('invalidInput', 'name a checkpoint, a session, or a time to take back what was shared since');
			}
			return engine.sync.retract(request, actor());
		}),
	);
	on(rpc.syncDisable, (params) => host.write(async (engine) => ({ remote: (await engine.sync.disable(params.remote)).remote })));
	on(rpc.syncOrigins, async (params) => ({ origins: await (await host.get()).sync.origins(params.sessionIds) }));
}
