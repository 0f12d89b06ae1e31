/** An export nothing imports on purpose: the names ('*' for all) and why. */
export declare const allowedUnused: Record<string, { names: string[]; reason: string }>;
/** Unused exports waiting for their room's move on another branch: file → names. */
export declare const awaitingMoves: Record<string, string[]>;
/** Every export of src/ and webview/ that no file of the repository imports, as `path:line name`, plus stale allow-list entries. */
export declare function findUnusedExports(root: string, options?: { allowed?: Record<string, { names: string[]; reason: string }> }): string[];
