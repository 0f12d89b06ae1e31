/**
 * The Agents board over the protocol (src/protocol/boardRpc.ts): the engine's board as it is. An
 * uninitialised workspace has nobody on it.
 */
import type { MessageConnection } from 'vscode-jsonrpc/node';
import * as rpc from '../protocol/boardRpc';
import type { EngineHost } from './engineHost';
import { requestRegistrar } from './handlers';

export function registerBoardHandlers(connection: MessageConnection, host: EngineHost): void {
	const on = requestRegistrar(connection, host);
	on(rpc.agentsBoard, async () => (host.initialized ? (await host.get()).board.list() : { entries: [], waiting: 0, at: new Date().toISOString() }));
}
