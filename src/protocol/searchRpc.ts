/**
 * Search over JSON-RPC (docs/search.md): *Baton: Search Sessions…* asks the backend's warm index. The
 * shapes are the engine's (`searchShapes.ts`), as `baton search --json` prints them; the wire adds a
 * transcript hit's line in the transcript's markdown, where the editor opens it.
 */
import { RequestType } from 'vscode-jsonrpc';
import type { RpcErrorData } from './rpc';
import type { SearchHit, SearchQuery, SearchResult } from '../engine/search/searchShapes';

/** `line`: a transcript hit's first line (0-based) in the transcript's rendering (`baton-transcript:`). */
export type SearchHitDto = SearchHit & { line?: number };
export type SearchResultDto = Omit<SearchResult, 'hits'> & { hits: SearchHitDto[] };
export type SearchQueryDto = SearchQuery;

export const searchSessions = new RequestType<SearchQuery, SearchResultDto, RpcErrorData>('search/sessions');
