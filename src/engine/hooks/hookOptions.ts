/**
 * What a hook run is given: the checkpoint, timeline and transcript hooks of the engine for one call,
 * the agent settings, and the hook log's note on how the capture read the workspace.
 */
import type { AgentSettings } from '../agentConfig/agentSettings';
import type { DirtyClaim } from '../watcher/dirtyPaths';
import type { EngineContext } from '../context';
import type { JournalStore } from '../storage/journalStore';
import type { TranscriptArchive } from '../transcripts/transcriptArchive';
import type { DirtyTracking } from '../watcher/dirtyTracking';
import { checkpointPortOf, criticalApprovalReason, type CheckpointPort } from './checkpointPort';
import type { CheckpointTrigger, HookOptions } from './runHook';
import type { Logger } from '../ports';
import { timelineHooks } from '../timeline/timelineRecorder';

/** How this call's capture read the workspace, for the hook log: the watcher's paths or the full scan. */
export function scanNote(claim: DirtyClaim | undefined): string {
	if (!claim) {
		return '';
	}
	return claim.kind === 'paths'
		? `; read ${claim.paths.length} changed path${claim.paths.length === 1 ? '' : 's'} from the file watcher`
		: `; full scan (${claim.reason})`;
}

/** The parts of the engine a hook run's options come from (`engine.ts`, ranked above this room, has them all: callers pass their `Engine`). */
interface OptionsEngine {
	readonly ctx: EngineContext;
	readonly store: JournalStore;
	readonly checkpoints: { readonly dirty: DirtyTracking };
	transcripts(input: { env?: NodeJS.ProcessEnv; log?: Logger; settings?: AgentSettings }): TranscriptArchive;
}

export function hookOptions(engine: OptionsEngine, input: { actor: string; settings: AgentSettings; log: Logger; env: NodeJS.ProcessEnv }): HookOptions {
	const port = checkpointPortOf(engine);
	const archive = engine.transcripts({ settings: input.settings, log: input.log, env: input.env });
	return {
		actor: input.actor,
		settings: input.settings,
		archive,
		log: input.log,
		...(port ? checkpointHooks(port, input.actor, engine.store) : {}),
		...(input.settings.timeline
			? { timeline: timelineHooks(engine.ctx, { budgetMs: input.settings.timelineBudget, dirty: engine.checkpoints.dirty }) }
			: {}),
	};
}

/**
 * Wires the hook points to the checkpoint feature; only when the workspace uses checkpoints. A
 * checkpoint runs once the event's one write is durable (hookOnce.ts): its git snapshot takes the
 * shadow store's lock and would otherwise hold the journal's meanwhile.
 */
function checkpointHooks(port: CheckpointPort, actor: string, store: JournalStore): Pick<HookOptions, 'awaitingApproval' | 'onCheckpoint' | 'onMetrics'> {
	return {
		awaitingApproval: criticalApprovalReason(port),
		onCheckpoint: (trigger, sessionId) => store.afterOneWrite(() => checkpointAt(port, actor, trigger, sessionId)),
		...(port.recordMetrics
			? {
					onMetrics: async (sessionId: string, metrics: { costUsd: number; errorCount: number }) =>
						port.recordMetrics?.({ sessionId, ...metrics, actor }),
				}
			: {}),
	};
}

async function checkpointAt(port: CheckpointPort, actor: string, trigger: CheckpointTrigger, sessionId: string): Promise<void> {
	if (trigger === 'compact') {
		// Always, even in a workspace that never had a checkpoint: a compaction loses context for
		// good, and the snapshot before it is the one way back (creating it sets the store up).
		await port.create({ trigger: 'compact', sessionId, message: 'before the agent compacted its context', actor });
	} else if (port.enabled !== false && port.maybePeriodic) {
		await port.maybePeriodic({ sessionId, actor });
	}
}
