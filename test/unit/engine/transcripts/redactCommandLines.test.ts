/**
 * Redaction of credentials in the command lines agents run, against real command shapes: the secret
 * is gone, the command, its options and the user names stay readable, and ordinary commands pass
 * through untouched.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { containsSecret, redactSecrets } from '../../../../src/engine/text/redactSecrets';
import { ExcerptBuilder } from '../../../../src/engine/transcripts/transcriptExcerpts';
import { newTranscriptEntry } from '../../../../src/engine/transcripts/transcriptIndex';

/** [command, the secret in it, the command as archived]. */
const shapes: [string, string, string][] = [
	['curl -u admin:hunter2pass https://api.example.com/v1/items', 'hunter2pass', 'curl -u admin:[REDACTED] https://api.example.com/v1/items'],
	["curl -s -u 'admin:s3cr3t!' https://jenkins.example.com/api/json", 's3cr3t!', "curl -s -u 'admin:[REDACTED]' https://jenkins.example.com/api/json"],
	['curl -uadmin:Gl0ued https://x.example.com', 'Gl0ued', 'curl -uadmin:[REDACTED] https://x.example.com'],
	['curl --user deploy:Zx9qWv7 -X POST https://ci.example.com/job', 'Zx9qWv7', 'curl --user deploy:[REDACTED] -X POST https://ci.example.com/job'],
	['curl --user=deploy:Zx9qWv7 https://ci.example.com', 'Zx9qWv7', 'curl --user=deploy:[REDACTED] https://ci.example.com'],
	['curl -x proxy:3128 --proxy-user bob:Pr0xyPw https://x.example.com', 'Pr0xyPw', 'curl -x proxy:3128 --proxy-user bob:[REDACTED] https://x.example.com'],
	[
		"curl -H 'Authorization: Bearer abc123def456ghi789' https://api.example.com",
		'abc123def456ghi789',
		"curl -H 'Authorization: Bearer [REDACTED]' https://api.example.com",
	],
	[
		'curl -H "Authorization: Basic YWRtaW46aHVudGVyMg==" https://api.example.com',
		'YWRtaW46aHVudGVyMg==',
		'curl -H "Authorization: Basic [REDACTED]" https://api.example.com',
	],
	[
		"curl -H 'Authorization: token 0123abcd' https://api.github.com/user",
		'0123abcd',
		"curl -H 'Authorization: token [REDACTED]' https://api.github.com/user",
	],
	['curl -H "Authorization:shortkey" https://x.example.com', 'shortkey', 'curl -H "Authorization:[REDACTED]" https://x.example.com'],
	[
		"curl -H 'Proxy-Authorization: Basic Ym9iOnB3' https://x.example.com",
		'Ym9iOnB3',
		"curl -H 'Proxy-Authorization: Basic [REDACTED]' https://x.example.com",
	],
	['curl https://admin:hunter2@example.com/path', 'hunter2', 'curl https://admin:[REDACTED]@example.com/path'],
	[
		'git clone https://x-access-token:abcdEFGH1234@github.com/org/repo.git',
		'abcdEFGH1234',
		'git clone https://x-access-token:[REDACTED]@github.com/org/repo.git',
	],
	['git clone https://a1b2c3d4e5f6a7b8c9d0@github.com/org/repo.git', 'a1b2c3d4e5f6a7b8c9d0', 'git clone https://[REDACTED]@github.com/org/repo.git'],
	[
		'git remote set-url origin https://oauth2:glpat1234abcd@gitlab.example.com/g/p.git',
		'glpat1234abcd',
		'git remote set-url origin https://oauth2:[REDACTED]@gitlab.example.com/g/p.git',
	],
	['mysql -u root -pSECRETpw mydb', 'SECRETpw', 'mysql -u root -p[REDACTED] mydb'],
	["mysql -h db -uroot -p'my pass' -e 'show tables'", 'my pass', "mysql -h db -uroot -p[REDACTED] -e 'show tables'"],
	['mysqldump --password=SECRETpw db > dump.sql', 'SECRETpw', 'mysqldump --password=[REDACTED] db > dump.sql'],
	['mongosh --username app --password SECRETpw mongodb://db/app', 'SECRETpw', 'mongosh --username app --password [REDACTED] mongodb://db/app'],
	['PGPASSWORD=SECRETpw psql -h db -U app', 'SECRETpw', 'PGPASSWORD=[REDACTED] psql -h db -U app'],
	['MYSQL_PWD=SECRETpw mysql -u root', 'SECRETpw', 'MYSQL_PWD=[REDACTED] mysql -u root'],
	['docker login -u user -p SECRETpw registry.example.com', 'SECRETpw', 'docker login -u user -p [REDACTED] registry.example.com'],
	[
		'docker login --username user --password SECRETpw registry.example.com',
		'SECRETpw',
		'docker login --username user --password [REDACTED] registry.example.com',
	],
	['helm registry login ghcr.io -u bot -p SECRETpw', 'SECRETpw', 'helm registry login ghcr.io -u bot -p [REDACTED]'],
	['npm config set //registry.npmjs.org/:_authToken=npmSECRETabcdefgh', 'npmSECRETabcdefgh', 'npm config set //registry.npmjs.org/:_authToken=[REDACTED]'],
	['npm config set //npm.example.com/:_authToken npmSECRETabcdefgh', 'npmSECRETabcdefgh', 'npm config set //npm.example.com/:_authToken [REDACTED]'],
	['npm config set _auth YWRtaW46aHVudGVyMg==', 'YWRtaW46aHVudGVyMg==', 'npm config set _auth [REDACTED]'],
	['yarn config set npmAuthToken SECRETtok', 'SECRETtok', 'yarn config set npmAuthToken [REDACTED]'],
	[
		'wget --http-user=bob --http-password=SECRETpw https://x.example.com/file',
		'SECRETpw',
		'wget --http-user=bob --http-password=[REDACTED] https://x.example.com/file',
	],
	['wget --http-password SECRETpw https://x.example.com/file', 'SECRETpw', 'wget --http-password [REDACTED] https://x.example.com/file'],
	['gh auth login --with-token --token SECRETtok', 'SECRETtok', 'gh auth login --with-token --token [REDACTED]'],
	['sshpass -p SECRETpw ssh user@host uptime', 'SECRETpw', 'sshpass -p [REDACTED] ssh user@host uptime'],
	['redis-cli -h cache -a SECRETpw ping', 'SECRETpw', 'redis-cli -h cache -a [REDACTED] ping'],
	['htpasswd -bc .htpasswd bob SECRETpw', 'SECRETpw', 'htpasswd -bc .htpasswd bob [REDACTED]'],
	['export GITHUB_TOKEN=SECRETtok && gh pr list', 'SECRETtok', 'export GITHUB_TOKEN=[REDACTED] && gh pr list'],
];

/** Commands with nothing to hide, some of which look close. */
const harmless = [
	'git push -u origin main',
	'docker run -u 1000:1000 node:20 npm test',
	'ssh -p 2222 user@host',
	'npm test -- --grep token',
	"git commit -m 'update the password docs'",
	'mysql -u root -p mydb',
	'docker login --password-stdin registry.example.com',
	'git clone https://github.com/org/repo.git',
	'git clone git@github.com:org/repo.git',
	'psql postgres://app@db:5432/app',
	"curl --user-agent 'Mozilla/5.0' https://x.example.com",
	'scp -P 22 file user@host:/tmp/',
	'git clone https://octocat@github.com/org/repo.git',
];

void describe('redaction of command lines', () => {
	for (const [command, secret, expected] of shapes) {
		void it(command.split(' ').slice(0, 2).join(' ') + ` (${command.length} chars)`, () => {
			const out = redactSecrets(command);
			assert.equal(out, expected);
			assert.ok(!out.includes(secret), 'the secret is gone');
			assert.equal(redactSecrets(out), out, 'redacting again changes nothing');
			assert.ok(containsSecret(command));
		});
	}

	void it('leaves ordinary commands alone', () => {
		for (const command of harmless) {
			assert.equal(redactSecrets(command), command);
		}
	});

	void it('applies to the archived transcript excerpts, which share the function', () => {
		const entry = newTranscriptEntry({
			id: 'tr_1',
			agent: 'claude-code',
			agentSessionId: 'conv-1',
			parentAgentSessionId: null,
			sourcePath: 'conv-1.jsonl',
			agentType: null,
			description: null,
		});
		const builder = new ExcerptBuilder(entry, '/workspace');
		for (const [index, [command]] of shapes.entries()) {
			// A Bash call as Claude Code records it in its transcript.
			builder.add({
				type: 'assistant',
				sessionId: 'conv-1',
				timestamp: '2026-11-24T10:00:00Z',
				message: { model: 'm', content: [{ type: 'tool_use', id: `tool-${index}`, name: 'Bash', input: { command } }] },
			});
		}
		const details = builder.drain().map((line) => JSON.parse(line) as { type: string; detail: string });
		assert.deepEqual(
			details.map((d) => d.detail),
			shapes.map(([, , expected]) => expected),
		);
	});
});
