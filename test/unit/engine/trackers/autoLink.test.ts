/**
 * Auto-link patterns, table-driven: what links (and to which id), and what must never link.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TrackerName } from '../../../../src/engine/config';
import { findIssueRefs, type LinkPatterns, type TextSource } from '../../../../src/engine/trackers/autoLink';
import { parseIssueRef } from '../../../../src/engine/trackers/issueRef';

const all: LinkPatterns = {
	enabled: new Set<TrackerName>(['github', 'linear', 'beads']),
	github: { owner: 'acme', repo: 'shop', webUrl: 'https://github.com' },
	linearKeys: null,
	beadsPrefixes: ['bd'],
};
const withTeam: LinkPatterns = { ...all, linearKeys: ['ENG'] };

const refs = (text: string, source: TextSource, p: LinkPatterns = all): string[] => findIssueRefs(text, source, p).map((r) => `${r.tracker}:${r.issueId}`);

void describe('auto-linking finds issue references', () => {
	const cases: [TextSource, string, string[], LinkPatterns?][] = [
		['name', 'Fix login #42', ['github:42']],
		['name', '#7: crash on save', ['github:7']],
		['name', 'Port acme/shop#12 and other/lib#3', ['github:12', 'github:other/lib#3']],
		['name', 'See https://github.com/acme/shop/issues/99 please', ['github:99']],
		['name', 'Upstream https://github.com/nodejs/node/issues/5 bug', ['github:nodejs/node#5']],
		['name', 'ENG-123 checkout retries', ['linear:ENG-123']],
		['name', 'https://linear.app/acme/issue/ENG-9/slow-login', ['linear:ENG-9']],
		['name', 'Work on bd-a1b2 and bd-42', ['beads:bd-a1b2', 'beads:bd-42']],
		['name', 'child bd-a1b2.1 first', ['beads:bd-a1b2.1']],
		['prompt', 'Please fix #12 today', ['github:12']],
		['prompt', 'This closes #3, resolves #4 and addresses #5', ['github:3', 'github:4', 'github:5']],
		['prompt', 'Fixes: #8', ['github:8']],
		['prompt', 'fix issue #13 then Resolve the issue #14', ['github:13', 'github:14']],
		['prompt', 'look at ENG-77 and bd-ff00', ['linear:ENG-77', 'beads:bd-ff00']],
		['branch', 'feature/123-login', ['github:123']],
		['branch', '123-login', ['github:123']],
		['branch', 'fix/gh-45', ['github:45']],
		['branch', 'issue-8-typo', ['github:8']],
		['branch', 'feature/ABC-123-login', ['linear:ABC-123']],
		['branch', 'alice/eng-12-login', ['linear:ENG-12'], withTeam],
		['branch', 'bd-a1b2-fix-login', ['beads:bd-a1b2']],
	];
	for (const [source, text, expected, patterns] of cases) {
		void it(`${source}: ${JSON.stringify(text)} → ${expected.join(', ')}`, () => {
			assert.deepEqual(refs(text, source, patterns), expected);
		});
	}
});

void describe('auto-linking leaves alone what is not an issue', () => {
	const cases: [TextSource, string, LinkPatterns?][] = [
		['name', 'Release v1.2-3'],
		['name', 'Convert files to UTF-8'],
		['name', 'ISO-8859-1 and SHA-256 and RFC-7231 and CVE-2024-1234'],
		['name', 'Theme: #fff on #1e1e1e'],
		['name', 'Set color: #123456'],
		['name', 'Escape &#123; entities'],
		['name', 'Version 2.0 #0'],
		['name', 'Node v20-x and x86-64'],
		['name', 'a time in UTC-5'],
		['prompt', 'Look at #12 when you can'],
		['prompt', 'prefix #12 is not a verb'],
		['prompt', 'set the background to #333'],
		['branch', 'release/v1.2-3'],
		['branch', 'release/2024-05'],
		['branch', 'dependabot/npm_and_yarn/express/4.18.2'],
		['branch', 'renovate/node-20.x'],
		['branch', 'feature/login'],
		['name', 'bd-fix is a word, bd-abc too short'],
		['name', 'ABC-123 is not ENG', withTeam],
		['branch', 'alice/eng-12-login'],
	];
	for (const [source, text, patterns] of cases) {
		void it(`${source}: ${JSON.stringify(text)} links nothing`, () => {
			assert.deepEqual(refs(text, source, patterns), []);
		});
	}

	void it('links only to enabled trackers', () => {
		const githubOnly: LinkPatterns = { ...all, enabled: new Set<TrackerName>(['github']) };
		assert.deepEqual(refs('Fix #4 ENG-5 bd-a1b2', 'name', githubOnly), ['github:4']);
		assert.deepEqual(refs('Fix #4 ENG-5 bd-a1b2', 'name', { ...all, enabled: new Set() }), []);
	});

	void it('a URL on a GitHub Enterprise host links too', () => {
		const ghe: LinkPatterns = { ...all, github: { owner: 'team', repo: 'app', webUrl: 'https://git.example.test' } };
		assert.deepEqual(refs('see https://git.example.test/team/app/issues/31', 'prompt', ghe), ['github:31']);
	});
});

void describe('explicit references (the CLI and the editor)', () => {
	const cases: [string, string | null][] = [
		['github:123', 'github:123'],
		['#123', 'github:123'],
		['acme/shop#5', 'github:5'],
		['other/lib#5', 'github:other/lib#5'],
		['github:other/lib#6', 'github:other/lib#6'],
		['https://github.com/acme/shop/issues/8', 'github:8'],
		['ABC-123', 'linear:ABC-123'],
		['linear:abc-9', 'linear:ABC-9'],
		['bd-a1b2', 'beads:bd-a1b2'],
		['beads:proj-1f.2', 'beads:proj-1f.2'],
		['webhook:JIRA-1', 'webhook:JIRA-1'],
		['nonsense', null],
		['github:abc', null],
		['#0', null],
	];
	for (const [input, expected] of cases) {
		void it(`${input} → ${expected ?? 'refused'}`, () => {
			const ref = parseIssueRef(input, all);
			assert.equal(ref ? `${ref.tracker}:${ref.issueId}` : null, expected);
		});
	}
});
