/**
 * Every refusal the engine makes is a BatonError with a stable `code`: the CLI prints it as
 * `{"error":{"code","message"}}`, the server forwards it over JSON-RPC, the extension shows it.
 */
const errorCodes = [
	'invalidTransition',
	'notFound',
	'scopeConflict',
	'limitReached',
	'invalidScope',
	'invalidInput',
	'handoffExists',
	'notInitialized',
	'corruptJournal',
	'corruptDatabase',
	'locked',
	'storageFailure',
	'replayFailed',
	'configInvalid',
	/** git is missing or one of its commands failed (the shadow store of checkpoints). */
	'gitFailed',
	/** Rolling back to a rejected checkpoint needs the explicit override (`--force`). */
	'checkpointRejected',
	/** A rollback failed; `details.recovered` says whether the workspace was put back as it was. */
	'rollbackFailed',
	/** An issue tracker refused or failed a request; `details` name the tracker and the HTTP status. */
	'trackerFailed',
	/** A person's decision (an approval, a session's review policy) asked by an agent: its hook, MCP tools or shell. */
	'personOnly',
] as const;
type ErrorCode = (typeof errorCodes)[number];

/** A code a BatonError can carry (one read back from another process's answer, say). */
export function isBatonErrorCode(value: string): value is ErrorCode {
	return (errorCodes as readonly string[]).includes(value);
}

export class BatonError extends Error {
	override readonly name = 'BatonError';

	constructor(
		readonly code: ErrorCode,
		message: string,
		readonly details?: Record<string, unknown>,
	) {
		super(message);
	}

	/**
	 * By name and code, not `instanceof`: the workspace daemon runs the CLI's bundle against the
	 * server bundle's engine, so a refusal may come from another copy of this class.
	 */
	static is(value: unknown, code?: ErrorCode): value is BatonError {
		if (!(value instanceof Error) || value.name !== 'BatonError' || !(errorCodes as readonly unknown[]).includes((value as { code?: unknown }).code)) {
			return false;
		}
		return code === undefined || (value as BatonError).code === code;
	}
}
