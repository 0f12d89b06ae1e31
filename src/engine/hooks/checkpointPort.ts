/**
 * What agents need from checkpoints, as a structural interface looked up at runtime on the engine
 * (`engine.checkpoints`). The checkpoint feature is written alongside this one: depending on the
 * few members used here, checked when called, keeps hooks and the MCP server working (with a clear
 * "checkpoints are not available") whatever state that feature is in.
 */
interface CheckpointView {
	id: string;
	trigger: string;
	approvalStatus: string;
	sessionId?: string | null;
	message?: string | null;
	approvalReason?: string | null;
	escalationReasons?: string[];
	createdAt?: string;
}

export interface CheckpointPort {
	/** True once the workspace has a shadow store (checkpoints are in use). */
	readonly enabled?: boolean;
	create(input: {
		trigger?: string;
		message?: string | null;
		sessionId?: string | null;
		tags?: string[];
		reviewRequested?: boolean;
		costUsd?: number;
		errorCount?: number;
		actor: string;
	}): Promise<CheckpointView>;
	list(filter?: { sessionId?: string; status?: 'pending' | 'approved' | 'rejected' | 'auto_approved'; limit?: number }): Promise<CheckpointView[]>;
	get?(id: string): Promise<CheckpointView>;
	annotate?(id: string, text: string, actor: string): Promise<CheckpointView>;
	maybePeriodic?(input: { sessionId?: string; actor: string }): Promise<{ checkpoint: CheckpointView | null; reason: string | null }>;
	recordMetrics?(input: { sessionId: string; costUsd?: number; errorCount?: number; actor: string }): Promise<void>;
}

export const checkpointsUnavailable = 'checkpoints are not available in this version of Baton';

/** `engine.checkpoints` when it offers at least `create` and `list`, else null. */
export function checkpointPortOf(engine: object): CheckpointPort | null {
	const candidate = (engine as { checkpoints?: unknown }).checkpoints;
	if (!candidate || typeof candidate !== 'object') {
		return null;
	}
	const port = candidate as Partial<CheckpointPort>;
	return typeof port.create === 'function' && typeof port.list === 'function' ? (candidate as CheckpointPort) : null;
}

/**
 * The default approval gate: a pending checkpoint of the session that escalation made pending
 * (cost, duration or errors over their thresholds) is critical; a pending one that only waits for
 * routine review is not, so it does not interrupt every edit.
 */
export function criticalApprovalReason(port: CheckpointPort): (sessionId: string) => Promise<string | null> {
	return async (sessionId) => {
		const pending = await port.list({ sessionId, status: 'pending', limit: 50 });
		const critical = pending.find((c) => (c.escalationReasons?.length ?? 0) > 0);
		if (!critical) {
			return null;
		}
		return `Baton checkpoint ${critical.id} of this session awaits approval (${(critical.escalationReasons ?? []).join('; ')}). Approve or reject it in Baton (\`baton checkpoint approve ${critical.id}\`) before more changes, or allow this one.`;
	};
}
