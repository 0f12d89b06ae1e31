import type * as vscode from 'vscode';
import type { RequestType } from 'vscode-jsonrpc/node';
import type { RpcErrorData } from '../../protocol/rpc';

/**
 * What the webview panels need from the rest of the extension: requests to the backend server and
 * a signal when data changed (the panels re-render on it).
 */
export interface PanelHost {
	request<P, R>(type: RequestType<P, R, RpcErrorData>, params: P): Promise<R>;
	readonly onDidChangeData: vscode.Event<void>;
	readonly log: vscode.LogOutputChannel;
}
