/**
 * Short text for places with little room (a briefing line, a summary, a handoff note): whitespace
 * flattened to single spaces, cut at a limit with an ellipsis. Shared by every engine room that
 * writes such lines, so it sits below all of them.
 */

/** One line, at most `max` characters, with an ellipsis when cut. */
export function clip(value: string, max: number): string {
	const flat = value.replace(/\s+/g, ' ').trim();
	return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}
