/** Pure wording helpers for the editor (unit-tested without VS Code). */
import os from 'node:os';
import { escapeControls } from '../protocol/displayText';
import type { HandoffDto, SessionFocusDto, SessionStatusDto, SessionRowDto } from '../protocol/dto';

export function relativeTime(iso: string | null, nowMs: number = Date.now()): string {
	if (!iso) {
		return '';
	}
	const seconds = Math.round((nowMs - Date.parse(iso)) / 1000);
	const future = seconds < 0;
	const s = Math.abs(seconds);
	const [value, unit] =
		s < 45
			? [0, 'now']
			: s < 90 * 60
				? [Math.round(s / 60), 'min']
				: s < 36 * 3600
					? [Math.round(s / 3600), 'h']
					: s < 14 * 86400
						? [Math.round(s / 86400), 'd']
						: [Math.round(s / 604800), 'w'];
	if (unit === 'now') {
		return 'just now';
	}
	return future ? `in ${value} ${unit}` : `${value} ${unit} ago`;
}

export function durationText(fromIso: string, toIso: string | null, nowMs: number = Date.now()): string {
	const minutes = Math.max(0, Math.round(((toIso ? Date.parse(toIso) : nowMs) - Date.parse(fromIso)) / 60_000));
	if (minutes < 60) {
		return `${minutes} min`;
	}
	const hours = Math.floor(minutes / 60);
	return hours < 48 ? `${hours} h ${minutes % 60} min` : `${Math.round(hours / 24)} days`;
}

export const statusLabel: Record<SessionStatusDto, string> = {
	active: 'active',
	suspended: 'suspended',
	ended: 'ended',
	orphaned: 'orphaned',
	archived: 'archived (legacy)',
	closed: 'closed (legacy)',
};

/** The time that best describes where a session is: when it ended, else its last activity. */
export function sessionMoment(session: Pick<SessionRowDto, 'status' | 'endedAt' | 'suspendedAt' | 'lastActivity'>): string | null {
	return session.status === 'ended' ? session.endedAt : session.status === 'suspended' ? session.suspendedAt : session.lastActivity;
}

/** Markdown for a tooltip or a notification: the handoff in a few lines. */
export function handoffMarkdown(handoff: HandoffDto | null): string {
	if (!handoff) {
		return '_No handoff._';
	}
	const lines: string[] = [];
	if (handoff.note) lines.push(`**Note:** ${escapeMarkdown(handoff.note)}`);
	if (handoff.nextAction) lines.push(`**Next:** ${escapeMarkdown(handoff.nextAction)}`);
	for (const blocker of handoff.openBlockers) lines.push(`**Blocker:** ${escapeMarkdown(blocker)}`);
	if (handoff.tasksCompleted.length)
		lines.push(`**Completed:** ${handoff.tasksCompleted.map((t) => `${escapeMarkdown(t.id)} ${escapeMarkdown(t.title)}`).join(', ')}`);
	if (handoff.decisions.length) lines.push(`**Decisions:** ${handoff.decisions.map((d) => escapeMarkdown(d.text)).join('; ')}`);
	return lines.length ? lines.join('  \n') : '_Empty handoff._';
}

/** A session's focus (where a live session stands, in its own words): `Focus`, or `Last focus` once the session is not active. */
export function focusMarkdown(focus: SessionFocusDto, active: boolean): string {
	const lines = [`$(target) **${active ? 'Focus' : 'Last focus'}**`];
	if (focus.note) lines.push(`**Working on:** ${escapeMarkdown(focus.note)}`);
	if (focus.nextAction) lines.push(`**Next:** ${escapeMarkdown(focus.nextAction)}`);
	if (focus.blockedReason) lines.push(`**Blocked:** ${escapeMarkdown(focus.blockedReason)}`);
	return lines.join('  \n');
}

/**
 * A notification's or message dialog's text as shown: control characters escaped, and VS Code's link
 * syntax broken. A notification turns `[label](command:…)`, `(https:…)` and `(file:…)` in its text
 * into a link, and a click on a `command:` one runs that command with the arguments it names; a
 * session name, task title, path or id a teammate pushed would be one. An invisible space between `]`
 * and `(` leaves the text as it reads. Every message goes through it (messages.ts; lint keeps it).
 */
export function shownMessage(text: string): string {
	return escapeControls(text).replaceAll('](', ']\u200b(');
}

/**
 * Markdown that shows `text` as written. An icon's syntax, `$(name)`, becomes VS Code's escaped icon
 * `\$(name)`: shown as written where the markdown draws icons (`supportThemeIcons`; escaping its
 * parentheses alone left marked to give back `$(name)`, drawn as the icon), and as `$(name)` where it
 * does not (a backslash before `$` is markdown's escape).
 */
export function escapeMarkdown(text: string): string {
	return text.replace(/\$\(([A-Za-z0-9-]+(?:~[A-Za-z]+)?)\)|[\\`*_{}[\]()#+\-.!|<>]/g, (c: string, icon: string | undefined) =>
		icon === undefined ? `\\${c}` : `\\$(${icon})`,
	);
}

/**
 * Stored text in a label VS Code draws icons in (a status bar item's text, a quick pick's label,
 * description and detail): `$(name)` shown as written, not as an icon, by an invisible space in it.
 * Baton's own icons are put in around it.
 */
export function withoutIcons(text: string): string {
	return text.replaceAll('$(', '$\u200b(');
}

/** What a person reads on a tree item (or a status bar or quick pick item): their shapes in `vscode`, so the rule is tested without VS Code. */
interface ShownParts {
	label?: string | { label: string };
	text?: string;
	description?: string | boolean;
	/** A quick pick item's second line. */
	detail?: string;
	tooltip?: string | { value: string };
	accessibilityInformation?: { readonly label: string; readonly role?: string };
}

/**
 * The item with stored control characters in its label (or status bar text), description, tooltip
 * (plain or markdown) and spoken label shown escaped (docs/architecture.md §2, "Stored text is shown, never obeyed").
 * Every `getTreeItem` and `resolveTreeItem` returns through it (test/unit/extension/shownItem.test.ts).
 */
export function shownItem<T extends object>(item: T): T {
	const parts = item as ShownParts;
	if (typeof parts.label === 'string') {
		parts.label = escapeControls(parts.label);
	} else if (parts.label) {
		parts.label.label = escapeControls(parts.label.label);
	}
	if (typeof parts.text === 'string') {
		parts.text = escapeControls(parts.text);
	}
	if (typeof parts.description === 'string') {
		parts.description = escapeControls(parts.description);
	}
	if (typeof parts.detail === 'string') {
		parts.detail = escapeControls(parts.detail);
	}
	if (typeof parts.tooltip === 'string') {
		parts.tooltip = escapeControls(parts.tooltip);
	} else if (parts.tooltip) {
		parts.tooltip.value = escapeControls(parts.tooltip.value);
	}
	if (parts.accessibilityInformation) {
		parts.accessibilityInformation = { ...parts.accessibilityInformation, label: escapeControls(parts.accessibilityInformation.label) };
	}
	return item;
}

/** This machine's user as the backend records a person's actor (`vscode:<user>`): shown as "you" (protocol/people.ts). */
export function localUser(): string {
	try {
		return process.env['USER'] || process.env['USERNAME'] || os.userInfo().username || 'user';
	} catch {
		return 'user';
	}
}
