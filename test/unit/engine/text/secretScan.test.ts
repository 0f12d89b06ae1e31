/**
 * The credential scan a file passes before a shared checkpoint carries it (text/secretScan.ts): the
 * credential-shaped rules and `.env`-style assignments find what a team must never push, with the
 * rule and line named; ordinary source code that names its variables `token` or `password` passes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findSecret } from '../../../../src/engine/text/secretScan';

test('finds keys, tokens, private keys and .env-style secrets, naming the rule and the first line', () => {
	const cases: [string, string, number][] = [
		['# settings\nOPENAI_API_KEY=sk-live-4f9c2b7e1d8a6f3c5b2e9d7a\n', 'api-key', 2],
		['DB_PASSWORD="correct-horse-battery"\n', 'env-assignment', 1],
		['export STRIPE_SECRET=rk_live_51H8c2kL0x\n', 'env-assignment', 1],
		['a\nb\nnotify: xoxb-118279232-9981726354-abcdefghijkl\n', 'slack-token', 3],
		['key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n', 'private-key', 2],
		['aws = "AKIAIOSFODNN7EXAMPLE"\n', 'aws-key', 1],
		['remote: https://ci:glpat-x8Yz2@gitlab.example.com/a/b.git\n', 'url-credentials', 1],
		['token: ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z\n', 'github-token', 1],
	];
	for (const [text, rule, line] of cases) {
		assert.deepEqual(findSecret(text), { rule, line }, text);
	}
});

test('source code and placeholders pass', () => {
	const clean = [
		'const token = await getToken(request);\nif (!password) throw new Error("password required");\n',
		'export function apiKey(): string { return process.env.API_KEY ?? ""; }\n',
		'API_KEY=${API_KEY}\nDB_PASSWORD=$DB_PASSWORD\nSECRET_TOKEN=<your token here>\nAUTH_TOKEN=\n',
		'# .env.example\nAPI_TOKEN=changeme\n',
		'Authorization header: see docs/auth.md\n',
		'const desk = "desk-top-organizer-large-model";\n',
	];
	for (const text of clean) {
		assert.equal(findSecret(text), null, text);
	}
});
