/** Packs the extension into `out` (a .vsix path) with vsce; returns `out`. */
export declare function packageVsix(out: string): string;
