/**
 * Imports and exports over JSON-RPC (issue 6). A preview and an export only read Baton's data (an
 * export writes the folder the person chose), so they also work in an untrusted workspace; an import
 * is a write and is refused there.
 */
import type { MessageConnection } from 'vscode-jsonrpc/node';
import { agentHomeEnv, isAgentKind } from '../engine/agentKinds';
import type { AgentHistoryInput } from '../engine/agentHistory/historyImport';
import { historyAgents, type HistoryAgent } from '../engine/agentHistory/historySources';
import { BatonError } from '../engine/errors';
import * as rpc from '../protocol/rpc';
import type { EngineHost } from './engineHost';
import { actor, requestRegistrar } from './handlers';

export function registerInteropHandlers(connection: MessageConnection, host: EngineHost): void {
	const on = requestRegistrar(connection, host);
	on(rpc.importPreview, async (params) => (await host.get()).imports.run({ format: params.format, path: params.path, dryRun: true, actor: actor() }));
	on(rpc.importRun, (params) => host.write((engine) => engine.imports.run({ format: params.format, path: params.path, dryRun: false, actor: actor() })));
	on(rpc.agentHistoryImport, async (params) => {
		// Where the asking editor's agents keep their files, over this backend's own environment.
		const asked = agentHomeEnv(params.env ?? {});
		const input: AgentHistoryInput = {
			agents: historyAgentsOf(params.agents ?? []),
			since: params.since ?? null,
			dryRun: params.dryRun,
			actor: actor(),
			...(Object.keys(asked).length > 0 ? { env: { ...process.env, ...asked } } : {}),
			...(asked['HOME'] ? { homeDir: asked['HOME'] } : {}),
		};
		return params.dryRun ? (await host.get()).agentHistory.import(input) : host.write((engine) => engine.agentHistory.import(input));
	});
	on(rpc.agentHistoryReindex, (params) => {
		const asked = agentHomeEnv(params.env ?? {});
		return host.write((engine) =>
			engine.agentHistory.reindex({
				...(Object.keys(asked).length > 0 ? { env: { ...process.env, ...asked } } : {}),
				...(asked['HOME'] ? { homeDir: asked['HOME'] } : {}),
			}),
		);
	});
	on(rpc.exportRun, async (params) =>
		(await host.get()).exports.export({
			...(params.sessionId ? { sessionId: params.sessionId } : {}),
			...(params.chainId ? { chainId: params.chainId } : {}),
			out: params.out,
		}),
	);
	on(rpc.sessionMarkdown, async (params) => (await host.get()).exports.markdown({ sessionId: params.id, kind: params.kind }));
}

function historyAgentsOf(names: readonly string[]): HistoryAgent[] {
	return names.map((name) => {
		if (!isAgentKind(name) || !(historyAgents as readonly string[]).includes(name)) {
			throw new BatonError('invalidInput', `Baton reads the history of ${historyAgents.join(', ')}, not ${JSON.stringify(name)}`);
		}
		return name as HistoryAgent;
	});
}
