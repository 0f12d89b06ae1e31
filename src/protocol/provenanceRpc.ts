/**
 * Line provenance over JSON-RPC: the editor's hover, Agent Blame annotations and the status bar's
 * agent share ask the backend for a file's blame (docs/provenance.md). The shapes are the engine's
 * (`provenanceShapes.ts`), named here by type only.
 */
import { RequestType } from 'vscode-jsonrpc';
import type { RpcErrorData } from './rpc';
import type { BlameLine, BlameView } from '../engine/provenance/provenanceShapes';

export type BlameLineDto = Omit<BlameLine, 'text'>;
export type BlameDto = BlameView;

interface BlameParams {
	/** Relative to the workspace root. */
	file: string;
}

export const provenanceBlame = new RequestType<BlameParams, BlameView, RpcErrorData>('provenance/blame');
