/** The entry names of a zip file, read from its central directory. */
export declare function zipEntries(buf: Buffer): string[];
