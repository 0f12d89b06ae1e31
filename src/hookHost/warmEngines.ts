/**
 * A long-lived process (the workspace daemon) keeps the workspace's engine open between commands and
 * lends it to each: the same engine its editor windows use. While a command holds it, the engine's
 * warnings go to that command's stderr and its secrets come from that command's environment first,
 * never another command's.
 */
import type { Engine } from '../engine/engine';

export interface EngineSource {
	/** The workspace's warm engine (opened again when its files were replaced behind its back). */
	acquire(workspaceRoot: string, io: { stderr(text: string): void; env: NodeJS.ProcessEnv }): Promise<Engine>;
	/** The command is done with it (it stays open). */
	release(engine: Engine, workspaceRoot: string): void;
}
