/**
 * Shared event ids: `evt_<ULID>_<machine>`. The ULID (48-bit millisecond time, 80 random bits,
 * Crockford base32) sorts by time; the machine suffix makes two machines unable to write the same
 * name even in the same millisecond with the same randomness. Sorting ids as plain strings is the
 * one order every machine agrees on.
 */
import { randomBytes } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const idPattern = /^evt_[0-9A-HJKMNP-TV-Z]{26}_[0-9a-f]{8}$/;
const machinePattern = /^[0-9a-f]{8}$/;

/** A ULID for `nowMs`: 10 characters of time, 16 of randomness. */
export function ulid(nowMs: number, random: Buffer = randomBytes(10)): string {
	if (!Number.isSafeInteger(nowMs) || nowMs < 0 || nowMs > 2 ** 48 - 1) {
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
 * An `after` more than a day ahead of this clock (a remote's broken clock) is not followed.
 */
export function newEventId(nowMs: number, machine: string, after?: string | null): string {
	if (!machinePattern.test(machine)) {
		throw new Error(`a machine id is 8 hex digits (got ${JSON.stringify(machine)})`);
	}
	let id = ulid(nowMs);
	const previous = after && isEventId(after) && eventTime(after) <= nowMs + 86_400_000 ? after.slice(4, 30) : null;
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
