/**
 * A command drains the hook spool before it runs (docs/daemon.md, "The hook spool"): the events hooks
 * could not record in time are the workspace's history, and the command must see them. In the daemon
 * with its warm engine; in a process of its own, with an engine opened for the drain only when
 * records wait (one readdir otherwise).
 */
import path from 'node:path';
import { Engine } from '../engine/engine';
import { HookLog, hookLogFile } from '../engine/hooks/hookLog';
import { findWorkspaceRoot } from '../engine/workspace';
import { drainSpool } from '../hookHost/hookRunner';
import { listSpool } from '../hookHost/hookSpool';
import type { EngineSource } from '../hookHost/warmEngines';

/** Commands that do not drain: they create, repair or serve the store, or are the hook itself. */
const noDrain = new Set(['init', 'doctor', 'mcp', 'daemon', 'hook']);

export async function drainBeforeCommand(argv: string[], io: { cwd: string; stderr(text: string): void; engines?: EngineSource }): Promise<void> {
	if (noDrain.has(argv[0] ?? '') || argv.includes('--help') || argv.includes('-h')) {
		return;
	}
	const at = argv.findIndex((a) => a === '--workspace' || a.startsWith('--workspace='));
	const explicit = at < 0 ? undefined : argv[at]?.includes('=') ? argv[at]?.slice('--workspace='.length) : argv[at + 1];
	const root = findWorkspaceRoot(explicit ? path.resolve(io.cwd, explicit) : io.cwd);
	if (!root) {
		return;
	}
	const waiting = listSpool(root);
	if (waiting.records.length === 0 && waiting.torn.length === 0) {
		return;
	}
	let own: Engine | undefined;
	try {
		const engines: EngineSource = io.engines ?? {
			acquire: async () => (own ??= await Engine.open({ workspaceRoot: root, log: new HookLog(hookLogFile(root)) })),
			release: () => undefined,
		};
		const result = await drainSpool(root, engines);
		if (result.left > 0 && !result.busy) {
			io.stderr(`baton: warning: ${result.left} spooled hook event(s) could not be recorded yet (see .baton/logs/hooks.log)\n`);
		}
	} catch (error) {
		// The command itself still runs: its own open reports a damaged store as it always did.
		io.stderr(`baton: warning: could not drain the hook spool: ${(error as Error).message}\n`);
	} finally {
		if (own) {
			await own.checkpoints.settled();
			own.close();
		}
	}
}
