/**
 * What the engine needs from its host, passed in so that tests can drive time without faking storage.
 */
export interface Clock {
	/** Milliseconds since the epoch. */
	now(): number;
}

export interface Logger {
	info(message: string): void;
	warn(message: string): void;
	error(message: string): void;
}

export const systemClock: Clock = { now: () => Date.now() };

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/**
 * Resolves on the event loop's next turn. Long work in a shared process (the daemon serves every
 * window, command and hook of the workspace) awaits it between chunks: writes that resolve at once
 * chain as microtasks, and a first push's thousands of pages held every other request for 17 s.
 */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
