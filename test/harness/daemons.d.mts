/** Removes a test's folder once the workspace daemons under it stopped (SIGTERM, then up to 10 s). */
export declare function removeTestFolder(dir: string): Promise<void>;
