import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { durationText, escapeMarkdown, focusMarkdown, handoffMarkdown, relativeTime, sessionMoment, withoutIcons } from '../../../src/extension/format';

const now = Date.parse('2026-03-01T12:00:00.000Z');
const ago = (ms: number) => new Date(now - ms).toISOString();

void describe('editor wording', () => {
	void it('says how long ago, in the unit a person would use', () => {
		assert.equal(relativeTime(ago(10_000), now), 'just now');
		assert.equal(relativeTime(ago(5 * 60_000), now), '5 min ago');
		assert.equal(relativeTime(ago(3 * 3_600_000), now), '3 h ago');
		assert.equal(relativeTime(ago(3 * 86_400_000), now), '3 d ago');
		assert.equal(relativeTime(ago(30 * 86_400_000), now), '4 w ago');
		assert.equal(relativeTime(new Date(now + 2 * 3_600_000).toISOString(), now), 'in 2 h');
		assert.equal(relativeTime(null, now), '');
	});

	void it('gives durations and the moment that describes a session', () => {
		assert.equal(durationText(ago(90 * 60_000), ago(0), now), '1 h 30 min');
		assert.equal(durationText(ago(20 * 60_000), null, now), '20 min');
		const base = { endedAt: 'E', suspendedAt: 'S', lastActivity: 'L' };
		assert.equal(sessionMoment({ ...base, status: 'ended' }), 'E');
		assert.equal(sessionMoment({ ...base, status: 'suspended' }), 'S');
		assert.equal(sessionMoment({ ...base, status: 'active' }), 'L');
	});

	void it('renders a handoff as markdown without letting its text inject markup', () => {
		const md = handoffMarkdown({
			lastTask: null,
			tasksCompleted: [
				{ id: 'T1', title: 'a_b' },
				{ id: '[T2](command:evil)', title: 'a pulled task whose id is a link' },
			],
			tasksCreated: [],
			decisionsRecorded: 1,
			decisions: [{ id: 'd', text: 'use [links](command:evil)', rationale: null }],
			nextSuggested: [],
			openBlockers: ['keys'],
			openBugs: [],
			note: '**bold** claim',
			nextAction: null,
		});
		assert.match(md, /\*\*Note:\*\* \\\*\\\*bold\\\*\\\* claim/);
		assert.doesNotMatch(md, /\]\(command:/);
		assert.match(md, /\*\*Blocker:\*\* keys/);
		assert.equal(handoffMarkdown(null), '_No handoff._');
		assert.equal(escapeMarkdown('a*b'), 'a\\*b');
	});

	void it('shows an icon’s syntax in stored text as written: VS Code’s escaped icon in markdown, an invisible space in a label', () => {
		// A name a teammate wrote: drawn as a check mark, a spinner and a warning, it would pass for Baton's own state.
		const name = 'Fix $(check) $(loading~spin) $(warning) (x)';
		assert.equal(escapeMarkdown(name), 'Fix \\$(check) \\$(loading~spin) \\$(warning) \\(x\\)');
		assert.equal(withoutIcons(name), 'Fix $\u200b(check) $\u200b(loading~spin) $\u200b(warning) (x)');
		assert.doesNotMatch(withoutIcons(name), /\$\([A-Za-z0-9-]+(?:~[A-Za-z]+)?\)/, 'no icon left for a label to draw');
	});

	void it('renders a session’s focus for the tree’s hover: Focus while active, Last focus after, its text escaped', () => {
		const focus = { note: 'Working on JWT validation', nextAction: 'use [links](command:evil)', blockedReason: null };
		assert.equal(
			focusMarkdown(focus, true),
			'$(target) **Focus**  \n**Working on:** Working on JWT validation  \n**Next:** use \\[links\\]\\(command:evil\\)',
		);
		assert.match(focusMarkdown({ ...focus, blockedReason: 'no key' }, false), /^\$\(target\) \*\*Last focus\*\* {2}\n.* {2}\n\*\*Blocked:\*\* no key$/s);
	});
});
