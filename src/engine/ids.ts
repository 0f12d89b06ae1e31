import { randomBytes } from 'node:crypto';

/** Baton's own session id: `ses_YYYYMMDDHHmmss_<6 hex>` (UTC). */
export function newSessionId(nowMs: number): string {
	return `ses_${compactStamp(nowMs)}_${randomBytes(3).toString('hex')}`;
}

export function newDecisionId(nowMs: number): string {
	return `dec_${compactStamp(nowMs)}_${randomBytes(3).toString('hex')}`;
}

/** `cp_YYYYMMDDHHmmss_<6 hex>` (UTC). */
export function newCheckpointId(nowMs: number): string {
	return `cp_${compactStamp(nowMs)}_${randomBytes(3).toString('hex')}`;
}

export function newRollbackId(nowMs: number): string {
	return `rb_${compactStamp(nowMs)}_${randomBytes(3).toString('hex')}`;
}

const sessionIdPatterns = [
	/^ses_\d{14}_[0-9a-f]{6}$/,
	/^session_\d{8}_\d{6}_[0-9a-f]{6}$/, // legacy v2 (CLEO JSON era)
	/^session-\d+-[0-9a-f]{6}$/, // legacy v1
];

export function isSessionId(value: string): boolean {
	return sessionIdPatterns.some((p) => p.test(value));
}

function compactStamp(nowMs: number): string {
	return new Date(nowMs).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

export function isoTime(ms: number): string {
	return new Date(ms).toISOString();
}

/** `ntf_YYYYMMDDHHmmss_<8 hex>`: one outbox delivery. */
export function newOutboxId(nowMs: number): string {
	return `ntf_${compactStamp(nowMs)}_${randomBytes(4).toString('hex')}`;
}

/** `mem_YYYYMMDDHHmmss_<6 hex>`: one fact of project memory. */
export function newMemoryId(nowMs: number): string {
	return `mem_${compactStamp(nowMs)}_${randomBytes(3).toString('hex')}`;
}
