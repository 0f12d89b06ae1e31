/**
 * A pulled batch's lines → wire events (docs/sync.md, "What is not an event is refused"), each line
 * parsed once. An export writes every line as `{…the event's fields…,"body":BODY}` (eventRefs.ts
 * `wireLineSql`), and the merge stores the body as JSON text: re-serialising every parsed body for
 * that was a tenth of a big pull. So the line is parsed as its two parts, the fields before
 * `,"body":` and BODY, and BODY's text is kept with the event for the insert
 * (`bodies`, handed to shared/eventInsert.ts).
 */
import type { WireEvent } from '../shared/sharedEvents';
import { claimsMachine } from './authority';
import { maxWireLineChars } from '../shared/wireLimits';

/** A line of a pulled batch that is no event, named `<blob>:<line>` (its first 12 hex digits, from 1); a batch refused whole is named by its blob alone. */
export interface RefusedLine {
	id: string;
	reason: string;
}

const bodyKey = ',"body":';

/**
 * One line as `JSON.parse` reads it, and the body's own text when the line is a JSON object that
 * ends with its `body` member. Split at the first `,"body":`, which cannot lie inside a string (a
 * quote in one is escaped): when both parts parse, the first as an object with a member, the split was at the
 * line's top level and BODY is one JSON value that ends the line, so the event is exactly the whole
 * line's parse (a `body` met earlier in the line is overwritten in its place, as `JSON.parse` does)
 * and the stored text parses back to the body the merge checked and derived from. Any other line
 * is parsed whole, with no text kept: its body is serialised at the insert as before.
 */
export function parseWireLine(line: string): { value: unknown; bodyText?: string } {
	const at = line.indexOf(bodyKey);
	if (at > 0 && line.charCodeAt(0) === 0x7b && line.charCodeAt(line.length - 1) === 0x7d) {
		let head: unknown;
		let body: unknown;
		const bodyText = line.slice(at + bodyKey.length, -1);
		try {
			head = JSON.parse(`${line.slice(0, at)}}`);
			body = JSON.parse(bodyText);
		} catch {
			head = undefined;
		}
		// A head with no member was `{` alone: the line then starts `{,` and is no JSON.
		if (head !== null && typeof head === 'object' && !Array.isArray(head) && Object.keys(head).length > 0) {
			(head as Record<string, unknown>)['body'] = body;
			return { value: head, bodyText };
		}
	}
	return { value: JSON.parse(line) as unknown };
}

/**
 * One batch file's events, a JSON object per line (and in `bodies`, each one's body text where it was kept). A line that is not one (a truncated write, a
 * tool that is not Baton) is refused by name and the others still count: a batch is written once,
 * so failing the pull over it would stop every later pull from that machine too.
 */
export function parseBatch(text: string, name: string, events: WireEvent[], refused: RefusedLine[], bodies?: Map<WireEvent, string>): void {
	const lines = text.split('\n');
	for (let n = 0; n < lines.length; n++) {
		const line = lines[n] as string;
		if (!line.trim()) {
			continue;
		}
		if (line.length > maxWireLineChars) {
			refused.push({
				id: `${name}:${n + 1}`,
				reason: `a line of ${line.length} characters, more than the ${maxWireLineChars} an event may take (not parsed)`,
			});
			continue;
		}
		let parsed: { value: unknown; bodyText?: string };
		try {
			parsed = parseWireLine(line);
		} catch (error) {
			refused.push({ id: `${name}:${n + 1}`, reason: `not JSON: ${(error as Error).message}` });
			continue;
		}
		const value = parsed.value;
		if (value === null || typeof value !== 'object' || Array.isArray(value)) {
			refused.push({ id: `${name}:${n + 1}`, reason: 'not a JSON object (an event is one object per line)' });
			continue;
		}
		events.push(value as WireEvent);
		if (parsed.bodyText !== undefined) {
			bodies?.set(value as WireEvent, parsed.bodyText);
		}
	}
}

/**
 * The events of a batch that name, as their `machine`, a machine whose ref it lies on into `kept`; the
 * others refused by id (an id whose suffix is not its machine's is refused at the merge, mergeWire.ts). Anyone who can push can write any ref, but an event of A's
 * put on B's ref (with A's id and other content) made clones disagree on which one was A's, each
 * keeping the first it saw.
 */
export function keepOwnersEvents(
	parsed: readonly WireEvent[],
	owners: ReadonlySet<string> | undefined,
	own: string,
	kept: WireEvent[],
	refused: RefusedLine[],
): void {
	for (const event of parsed) {
		const machine = typeof event.machine === 'string' ? event.machine : '';
		// One claiming this machine is refused after, saying so (authority.ts refuseIdentityClaims).
		if (claimsMachine(event, own) || owners?.has(machine)) {
			kept.push(event);
		} else {
			const refs = [...(owners ?? [])].map((m) => `refs/baton/events/${m}`).join(', ');
			refused.push({
				id: String(event.id).slice(0, 120),
				reason: `it names machine ${JSON.stringify(machine.slice(0, 40))} but came on ${refs || 'no ref'}: a machine's events come on its own ref only`,
			});
		}
	}
}
