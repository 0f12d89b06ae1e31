/**
 * The sizes a pulled event may have: the limits local input has, applied to what another machine
 * wrote (docs/sync.md "How it travels"). A 1 MB session name from a remote was stored and printed
 * in every list; here it is refused, by its event id, with the field named. Only limits that every
 * local writer enforces are applied to a field (a pulled value past one can come only from a
 * broken or hostile writer); fields some local way still takes longer (a handoff's note from the
 * CLI) are bounded by the body's own limit, which every local write has. The local limits these
 * repeat are checked to be the same by test/unit/engine/sync/wireLimits.test.ts.
 */
import type { WireEvent } from './sharedEvents';

/** What local input takes, by the writer that enforces it. */
export const wireLimits = {
	/** sessions/sessionService.ts `start` (and interop/textLimits.ts `sessionName`). */
	sessionName: 200,
	/** checkpoints/checkpointService.ts: a checkpoint's message, an annotation. */
	checkpointText: 5_000,
	/** checkpoints/checkpointService.ts: a tag's characters, and the tags a checkpoint is created with. */
	tag: 100,
	tagsAtCreate: 50,
	/** memory/memoryRecords.ts `maxFactLength`, memory/factFiles.ts `maxFactFiles` and a path's characters. */
	factText: 2_000,
	factFiles: 50,
	factFile: 1_000,
	/**
	 * An event's own fields (kind, subject, session, actor, machine name, author, time): Baton writes
	 * ids, kind names, agent names and short display names, far below this.
	 */
	field: 1_000,
} as const;

/**
 * The longest batch line read (in characters, never more than its bytes): a body of at most
 * `maxEventBodyBytes` (256 KiB, sharedEvents.ts; every local write is held to it) and the event's
 * own fields. A longer line is refused before it is parsed.
 */
export const maxWireLineChars = 256 * 1024 + 16 * 1024;

const ownFields = ['kind', 'subject', 'sessionId', 'actor', 'machineName', 'author', 'at'] as const;

/** Why a pulled event is larger than local input could have made it (the field named), or null. */
export function wireSizeProblem(event: WireEvent): string | null {
	for (const field of ownFields) {
		const problem = over(field, (event as unknown as Record<string, unknown>)[field], wireLimits.field);
		if (problem) {
			return problem;
		}
	}
	const body = event.body as Record<string, unknown>;
	switch (event.kind) {
		case 'session.started':
		case 'session.renamed':
			return over('body.name', body['name'], wireLimits.sessionName);
		case 'checkpoint.recorded':
			return (
				over('body.message', body['message'], wireLimits.checkpointText) ??
				listOver('body.tags', body['tags'], wireLimits.tagsAtCreate, wireLimits.tag) ??
				annotationsOver(body['annotations'])
			);
		case 'checkpoint.labels':
			return (
				listOver('body.addTags', body['addTags'], Infinity, wireLimits.tag) ??
				listOver('body.removeTags', body['removeTags'], Infinity, wireLimits.tag) ??
				annotationsOver(body['annotations'])
			);
		case 'memory.fact':
			return over('body.text', body['text'], wireLimits.factText) ?? listOver('body.files', body['files'], wireLimits.factFiles, wireLimits.factFile);
		default:
			return null;
	}
}

function over(field: string, value: unknown, limit: number): string | null {
	return typeof value === 'string' && value.length > limit ? `${field} has ${value.length} characters, more than the ${limit} local input takes` : null;
}

function listOver(field: string, value: unknown, maxItems: number, maxChars: number): string | null {
	if (!Array.isArray(value)) {
		return null;
	}
	if (value.length > maxItems) {
		return `${field} has ${value.length} entries, more than the ${maxItems} local input takes`;
	}
	for (let i = 0; i < value.length; i++) {
		const problem = over(`${field}.${i}`, value[i], maxChars);
		if (problem) {
			return problem;
		}
	}
	return null;
}

function annotationsOver(value: unknown): string | null {
	if (!Array.isArray(value)) {
		return null;
	}
	for (let i = 0; i < value.length; i++) {
		const item = value[i] as Record<string, unknown> | null;
		const problem = item && typeof item === 'object' ? over(`body.annotations.${i}.text`, item['text'], wireLimits.checkpointText) : null;
		if (problem) {
			return problem;
		}
	}
	return null;
}
