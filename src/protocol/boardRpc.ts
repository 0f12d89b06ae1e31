/**
 * The Agents board over JSON-RPC (issue 26, item 4): the Agents view and the status bar's count ask
 * the backend for the engine's board (`src/engine/board`), as `baton agents --json` prints it.
 */
import { RequestType } from 'vscode-jsonrpc';
import type { RpcErrorData } from './rpc';
import type { BoardEntry, BoardReport, BoardState, WaitKind } from '../engine/board/boardShapes';

export type BoardEntryDto = BoardEntry;
export type BoardReportDto = BoardReport;
export type BoardStateDto = BoardState;
export type WaitKindDto = WaitKind;

export const agentsBoard = new RequestType<void, BoardReportDto, RpcErrorData>('agents/board');
