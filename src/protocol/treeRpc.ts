/**
 * The Session Chains tree, served lazily: the first request answers only the first visible level's
 * first page (a hundred scope groups, and the rows of those that open expanded), the next groups
 * come when the view's "show more" row is clicked, a collapsed group's rows when it is expanded. `session/overview` (everything at once) stays for other callers.
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

/** Which groups of the first level to send: `limit` of them from the `offset`-th, newest activity first. */
export interface TreeRootParams {
	/** 0 when omitted. */
	offset?: number;
	/** {@link treeRootPage} when omitted; the server sends at most {@link treeRootMost}. */
	limit?: number;
}

/** Groups a page of the first level holds: a view shows them and a "show more" row for the rest. */
export const treeRootPage = 100;
/** The most groups one answer holds, whatever was asked (a view that showed more asks again in parts). */
export const treeRootMost = 2_000;

export interface TreeRootResult {
	/** The groups asked for (the page), in order. */
	scopes: TreeScopeDto[];
	/** Every group the first level has: more than the page's last index when there is more to show. */
	total: number;
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

/** Extension → server: a page of the scope groups, newest activity first, with the rows of those that open expanded. */
export const sessionTreeRoot = new RequestType<TreeRootParams | undefined, TreeRootResult, RpcErrorData>('session/treeRoot');
/** Extension → server: one scope group's rows (the group was expanded). */
export const sessionTreeScope = new RequestType<{ scopeKey: string }, TreeScopeResult, RpcErrorData>('session/treeScope');
