/**
 * What each row of the Replay view says, shared by the two places that draw it: the extension writes
 * the first screen of rows into the page's HTML (so they show before any script runs) and the page's
 * virtual list draws every row after that. One description keeps the two identical.
 */
import { actorName } from '../protocol/people';
import type { TimelineDto, TimelineEntryDto } from '../protocol/timelineRpc';

/** Every row is this tall: the virtual list positions rows by index, the first screen stacks them. */
export const replayRowHeight = 44;

interface ReplayRowView {
	/** Classes of the row element (`row row-<type>` …); `selected` is added by the list. */
	className: string;
	marker: string;
	label: string;
	text: string;
	/** The full text when `text` is cut. */
	title?: string;
	/** Files and lines of a step, or why it was not captured. */
	stats?: string;
}

/** Cuts text to `max` characters with an ellipsis; the full text goes in the row's title. */
function cutText(text: string, max: number): string {
	return text.length <= max ? text : `${text.slice(0, Math.max(1, max - 1)).trimEnd()}…`;
}

/** `you`: this machine's user as actors record it (TimelineDto.you), so an approval of theirs reads "by you". */
export function replayRowView(entry: TimelineEntryDto, you: string | null = null): ReplayRowView {
	switch (entry.type) {
		case 'prompt':
			return {
				className: 'row row-prompt',
				marker: '❯',
				label: `Turn ${entry.turn}`,
				text: cutText(entry.text.replace(/\s+/g, ' '), 160),
				title: entry.text,
			};
		case 'checkpoint':
			// Named by number as everywhere else; the id is in the hover for whoever needs it.
			return {
				className: 'row row-checkpoint',
				marker: '◆',
				label: 'Checkpoint',
				text: `#${entry.seq} (${entry.trigger})${entry.message ? ` ${entry.message}` : ''}`,
				title: entry.checkpointId,
			};
		case 'approval':
			return {
				className: 'row row-approval',
				marker: entry.status === 'approved' ? '✓' : '✗',
				label: entry.status === 'approved' ? 'Approved' : 'Rejected',
				text: `Checkpoint #${entry.seq}${entry.user ? ` by ${actorName(entry.user, you)}` : ''}`,
				title: `${entry.checkpointId}${entry.user ? ` · ${entry.user}` : ''}`,
			};
		case 'step': {
			const adds = entry.files.reduce((n, f) => n + f.additions, 0);
			const dels = entry.files.reduce((n, f) => n + f.deletions, 0);
			const who = entry.actor === 'human' ? 'You' : (entry.tool ?? 'agent');
			const count = entry.files.length + (entry.moreFiles ?? 0);
			return {
				className: `row row-step actor-${entry.actor}${entry.captured ? '' : ' not-captured'}`,
				marker: entry.actor === 'human' ? '●' : '○',
				label: `${entry.step}. ${who}`,
				text: cutText(entry.actor === 'human' ? 'edits between agent steps' : entry.summary, 160),
				title: entry.summary,
				stats: entry.captured ? `${count} file${count === 1 ? '' : 's'} +${adds} −${dels}` : 'not captured',
			};
		}
	}
}

/** The view's heading and the line beside it. */
export function replayHeading(timeline: TimelineDto): { title: string; hint: string } {
	const steps = timeline.entries.filter((e) => e.type === 'step').length;
	const prompts = timeline.entries.filter((e) => e.type === 'prompt').length;
	return { title: `Replay: ${timeline.sessionName ?? timeline.session}`, hint: `${steps} steps · ${prompts} prompts · ↑/↓ move · Enter opens the diff` };
}
