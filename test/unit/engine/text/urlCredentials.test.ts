import assert from 'node:assert/strict';
import test from 'node:test';
import { withoutUrlCredentials } from '../../../../src/engine/text/urlCredentials';

test('a URL’s user information is redacted wherever it appears in a text; an ssh user name and URLs without one stay', () => {
	const cases: [string, string][] = [
		['https://ghp_abc123def456@github.com/o/r.git', 'https://[REDACTED]@github.com/o/r.git'],
		['https://x-access-token:ghs_secret@github.com/o/r', 'https://x-access-token:[REDACTED]@github.com/o/r'],
		[
			"fatal: unable to access 'http://ci:p%40ss@127.0.0.1:8080/r.git/': Failed",
			"fatal: unable to access 'http://ci:[REDACTED]@127.0.0.1:8080/r.git/': Failed",
		],
		['ssh://git@example.com/o/r.git', 'ssh://git@example.com/o/r.git'],
		['ssh://git:hunter2@example.com/o/r.git', 'ssh://git:[REDACTED]@example.com/o/r.git'],
		['git@github.com:o/r.git', 'git@github.com:o/r.git'],
		['https://github.com/o/r.git and mail me at a@b.c', 'https://github.com/o/r.git and mail me at a@b.c'],
		['two: https://a:1@h/x https://b@h/y', 'two: https://a:[REDACTED]@h/x https://[REDACTED]@h/y'],
	];
	for (const [text, expected] of cases) {
		assert.equal(withoutUrlCredentials(text), expected, text);
	}
});
