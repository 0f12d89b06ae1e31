/**
 * Shared event ids: `evt_<ULID>_<machine>`. The ULID (48-bit millisecond time, 80 random bits,
 * Crockford base32) sorts by time; the machine suffix makes two machines unable to write the same
 * name even in the same millisecond with the same randomness. Sorting ids as plain strings is the
 * one order every machine agrees on.
 */
import { randomSlice } from '../ids';

const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const idPattern = /^evt_[0-9A-HJKMNP-TV-Z]{26}_[0-9a-f]{8}$/;
const machinePattern = /^[0-9a-f]{8}$/;
/** The greatest time a ULID holds (48 bits of milliseconds, the year 10889). */
const maxUlidMs = 2 ** 48 - 1;

/**
 * How far ahead of this machine's clock an event's time may be: a teammate's clock may be off by
 * minutes or hours, not by more. A pulled event further ahead is refused, and a local id never
 * follows one already stored (an older version merged them): deriving a new id from it would put
 * every later event of this machine in that future, or past the ULID range, which fails every write.
 */
export const maxClockAheadMs = 86_400_000;

/** A ULID for `nowMs`: 10 characters of time, 16 of randomness. */
export function ulid(nowMs: number, random: Buffer = randomSlice(10)): string {
	if (!Number.isSafeInteger(nowMs) || nowMs < 0 || nowMs > maxUlidMs) {
		throw new RangeError(`a ULID needs a millisecond time between 0 and 2^48-1 (got ${nowMs})`);
	}
	let time = '';
	let t = nowMs;
	for (let i = 0; i < 10; i++) {
		time = (alphabet[t % 32] ?? '0') + time;
		t = Math.floor(t / 32);
	}
	// 80 bits of randomness as 16 base32 digits, 5 bits each.
	let bits = 0;
	let value = 0;
	let rest = '';
	for (const byte of random.subarray(0, 10)) {
		value = (value << 8) | byte;
		bits += 8;
		while (bits >= 5) {
			rest += alphabet[(value >> (bits - 5)) & 31];
			bits -= 5;
		}
		value &= (1 << bits) - 1;
	}
	return time + rest;
}

/**
 * A new event id. With `after` (the store's greatest id, read in the same write), the id sorts after
 * it: two events written within one millisecond would otherwise be ordered by their random bits, and
 * derived state (order by id) could see a session end before its start, or step 2 before step 1.
 * An `after` more than `maxClockAheadMs` ahead of this clock (a remote's broken clock) is not followed.
 */
export function newEventId(nowMs: number, machine: string, after?: string | null): string {
	if (!machinePattern.test(machine)) {
		throw new Error(`a machine id is 8 hex digits (got ${JSON.stringify(machine)})`);
	}
	let id = ulid(nowMs);
	const previous = after && isEventId(after) && eventTime(after) <= nowMs + maxClockAheadMs ? after.slice(4, 30) : null;
	if (previous && id <= previous) {
		id = successor(previous);
	}
	return `evt_${id}_${machine}`;
}

/** The next ULID after `value` in sort order (base32 plus one, carrying). */
function successor(value: string): string {
	const digits = [...value];
	for (let i = digits.length - 1; i >= 0; i--) {
		const next = alphabet.indexOf(digits[i] as string) + 1;
		if (next < alphabet.length) {
			digits[i] = alphabet[next] as string;
			return digits.join('');
		}
		digits[i] = '0';
	}
	throw new RangeError('no ULID sorts after the greatest one');
}

export function isEventId(value: string): boolean {
	return idPattern.test(value);
}

/**
 * Why a well-formed event id's time cannot be taken from a remote, or null: past the ULID range (its
 * first character above 7), or more than `maxClockAheadMs` ahead of `nowMs`.
 */
export function idTimeProblem(id: string, nowMs: number): string | null {
	const ms = eventTime(id);
	if (ms > maxUlidMs) {
		return 'its time is past the ULID range (2^48-1 ms)';
	}
	if (ms > nowMs + maxClockAheadMs) {
		return `its time ${new Date(ms).toISOString()} is more than a day ahead of this machine's clock (${new Date(nowMs).toISOString()})`;
	}
	return null;
}

/** The writing machine of an event id (its suffix). */
export function eventMachine(id: string): string {
	return id.slice(-8);
}

/** The millisecond time encoded in an event id. */
export function eventTime(id: string): number {
	let t = 0;
	for (const ch of id.slice(4, 14)) {
		t = t * 32 + alphabet.indexOf(ch);
	}
	return t;
}
