/**
 * The Session Chains tree, served lazily: the first request answers only the first visible level
 * (the scope groups, and the rows of the groups that open expanded), a collapsed group's rows come
 * when it is expanded. `session/overview` (everything at once) stays for other callers.
 */
import { RequestType } from 'vscode-jsonrpc';
import type { SessionRowDto } from './dto';
import type { RpcErrorData } from './rpc';
import type { SessionOriginDto } from './syncRpc';

/** One row: a session, and the workers it orchestrates nested under it (wherever their scope). */
export interface TreeRowDto {
	session: SessionRowDto;
	/** 1-based: place in the scope's chain, or among the orchestrator's workers. */
	position: number;
	workers: TreeRowDto[];
}

/** A scope group as its row shows it; `rows` only when the group opens expanded. */
export interface TreeScopeDto {
	scopeKey: string;
	/** `Epic T1 · Checkout flow`: the scope with its root task's title. */
	label: string;
	/** Every session whose scope this is, workers shown under an orchestrator elsewhere included. */
	sessionCount: number;
	activeCount: number;
	/** The newest session's activity: groups sort by it. */
	lastActivity: string;
	rows?: TreeRowDto[];
}

export interface TreeRootResult {
	scopes: TreeScopeDto[];
	/** Where the sessions of the rows sent ran, for those pulled from other machines only. */
	origins: SessionOriginDto[];
}

interface TreeScopeResult {
	/** Its top rows in chain order; empty when the scope no longer has a row of its own. */
	rows: TreeRowDto[];
	origins: SessionOriginDto[];
}

/** Whether a group opens expanded: one with an active session, or a short one. The view and the server (which sends those rows with the groups) agree on it. */
export function opensExpanded(scope: Pick<TreeScopeDto, 'sessionCount' | 'activeCount'>): boolean {
	return scope.activeCount > 0 || scope.sessionCount <= 3;
}

/** Extension → server: the scope groups, newest activity first, with the rows of those that open expanded. */
export const sessionTreeRoot = new RequestType<void, TreeRootResult, RpcErrorData>('session/treeRoot');
/** Extension → server: one scope group's rows (the group was expanded). */
export const sessionTreeScope = new RequestType<{ scopeKey: string }, TreeScopeResult, RpcErrorData>('session/treeScope');
