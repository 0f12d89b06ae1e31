/**
 * Line provenance over JSON-RPC: the editor's hover, Agent Blame annotations and the status bar's
 * agent share ask the backend for a file's blame (docs/provenance.md).
 */
import { RequestType } from 'vscode-jsonrpc';
import type { RpcErrorData } from './rpc';

export interface BlameLineDto {
	line: number;
	commit: string | null;
	author: string | null;
	time: string | null;
	origin: 'agent' | 'human' | 'unknown';
	session: string | null;
	agent: string | null;
	model: string | null;
	turn: string | null;
	prompt: string | null;
	step: number | null;
	recovered: boolean;
}

export interface BlameDto {
	file: string;
	lines: BlameLineDto[];
}

export interface BlameParams {
	/** Relative to the workspace root. */
	file: string;
}

export const provenanceBlame = new RequestType<BlameParams, BlameDto, RpcErrorData>('provenance/blame');
