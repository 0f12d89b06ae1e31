/**
 * Sync over a real HTTP remote: `git http-backend` behind a small Node server on 127.0.0.1 that
 * demands basic auth. The password is generated here and answered by a credential helper configured
 * in the clones' own git config — Baton passes the user's helpers to its own store's git and stores
 * no credential itself. A wrong password is a clear refusal.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import test from 'node:test';
import { batonAsync, type Run } from '../../cli/cliRunner';
import { tempDir } from '../../helpers';
import { git, hashTree, startEnd, syncWorld } from './syncWorld';

function gitHttpServer(root: () => string, user: string, password: string): http.Server {
	const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
	return http.createServer((req, res) => {
		if (req.headers.authorization !== expected) {
			res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="baton-test"' });
			res.end();
			return;
		}
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		const cgi = spawn('git', ['http-backend'], {
			env: {
				PATH: process.env['PATH'],
				GIT_PROJECT_ROOT: root(),
				GIT_HTTP_EXPORT_ALL: '1',
				PATH_INFO: decodeURIComponent(url.pathname),
				QUERY_STRING: url.search.slice(1),
				REQUEST_METHOD: req.method ?? 'GET',
				CONTENT_TYPE: req.headers['content-type'] ?? '',
				HTTP_CONTENT_ENCODING: String(req.headers['content-encoding'] ?? ''),
				GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
				REMOTE_USER: user,
				REMOTE_ADDR: '127.0.0.1',
			},
		});
		req.pipe(cgi.stdin);
		const chunks: Buffer[] = [];
		cgi.stdout.on('data', (c: Buffer) => chunks.push(c));
		cgi.on('close', () => {
			const out = Buffer.concat(chunks);
			const split = out.indexOf('\r\n\r\n');
			const head = out.subarray(0, split).toString('utf8');
			const headers: Record<string, string> = {};
			let status = 200;
			for (const line of head.split('\r\n')) {
				const at = line.indexOf(':');
				const [key, value] = [line.slice(0, at).trim(), line.slice(at + 1).trim()];
				if (key.toLowerCase() === 'status') {
					status = Number(value.split(' ')[0]);
				} else if (key) {
					headers[key] = value;
				}
			}
			res.writeHead(status, headers);
			res.end(out.subarray(split + 4));
		});
	});
}

test('push and pull over an HTTP remote with basic auth, credentials from the user’s own credential helper', async (t) => {
	const password = randomBytes(18).toString('hex');
	const secrets = tempDir(t, 'baton-cred-');
	const passwordFile = path.join(secrets, 'password');
	fs.writeFileSync(passwordFile, password);
	const helper = path.join(secrets, 'helper.sh');
	fs.writeFileSync(helper, `#!/bin/sh\ntest "$1" = get || exit 0\necho username=baton\necho "password=$(cat '${passwordFile}')"\n`, { mode: 0o755 });
	let root = '';
	// The project root is known once the world exists: the server reads it per request.
	const server = gitHttpServer(() => root, 'baton', password);
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	t.after(() => server.close());
	const port = (server.address() as AddressInfo).port;
	const w = await syncWorld(t, { url: () => `http://127.0.0.1:${port}/remote.git` });
	root = w.dir;
	for (const side of [w.a, w.b]) {
		git(side.root, ['config', 'credential.helper', helper]);
	}
	await w.a.engine.sync.enable('origin');
	await w.b.engine.sync.enable('origin');
	const first = await startEnd(w.a, 'over http', 'pushed through http-backend');
	const before = hashTree(path.join(w.a.root, '.git'));
	const pushed = await w.a.engine.sync.push();
	assert.equal(pushed[0]?.pushed.length, 1);
	assert.equal(hashTree(path.join(w.a.root, '.git')), before);
	const pulled = await w.b.engine.sync.pull();
	assert.equal(pulled.sessions.added, 1);
	assert.equal((await w.b.engine.briefings.get(first.id)).name, 'over http');
	// Baton kept no copy of the credential anywhere.
	for (const side of [w.a, w.b]) {
		const walk = (d: string): void => {
			for (const e of fs.readdirSync(d, { withFileTypes: true })) {
				const full = path.join(d, e.name);
				if (e.isDirectory()) walk(full);
				else assert.ok(!fs.readFileSync(full).includes(password), `${full} holds the password`);
			}
		};
		walk(path.join(side.root, '.baton'));
	}
	// A refused credential: a clear error, the ref stays queued.
	fs.writeFileSync(passwordFile, 'wrong');
	await startEnd(w.a, 'refused', 'stays queued');
	await assert.rejects(() => w.a.engine.sync.push(), /could not push to remote "origin"/);
	const status = await w.a.engine.sync.status();
	assert.ok((status.remotes[0]?.queued ?? 0) >= 1);
	assert.match(status.remotes[0]?.lastError ?? '', /could not push to remote "origin"/);
	fs.writeFileSync(passwordFile, password);
	await w.a.engine.sync.push();
	assert.equal((await w.a.engine.sync.status()).remotes[0]?.queued, 0);
});

test('a token in the remote’s URL appears in no output: enable’s text and JSON, push and pull errors, status, logs and the store', async (t) => {
	const token = `ghp_${randomBytes(18).toString('hex')}`;
	let root = '';
	const server = gitHttpServer(() => root, 'ci-bot', token);
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	t.after(() => server.close());
	const port = (server.address() as AddressInfo).port;
	const w = await syncWorld(t, { url: () => `http://ci-bot:${token}@127.0.0.1:${port}/remote.git` });
	root = w.dir;
	await w.a.engine.close();
	const outputs: string[] = [];
	// Not spawnSync: this process serves the remote, so its event loop must keep running.
	const run = async (...args: string[]): Promise<Run> => {
		const r = await batonAsync(w.a.root, args);
		outputs.push(r.stdout, r.stderr);
		return r;
	};
	const enabled = await run('sync', 'enable', 'origin', '--json');
	assert.equal(enabled.code, 0, enabled.stderr);
	assert.equal(enabled.json['url'], `http://ci-bot:[REDACTED]@127.0.0.1:${port}/remote.git`);
	await run('sync', 'enable', 'origin');
	await run('session', 'start', '--name', 'shared over a token URL');
	assert.equal((await run('sync', 'push', '--json')).code, 0, 'the URL’s own credential authenticates the push');
	// The server goes away: git's errors quote the URL it could not reach.
	await new Promise<void>((resolve) => server.close(() => resolve()));
	server.closeAllConnections();
	await run('session', 'end', '--note', 'queued for the next push');
	const failed = await run('sync', 'push');
	assert.notEqual(failed.code, 0);
	assert.match(failed.stderr, /could not push to remote "origin"/);
	await run('sync', 'pull', '--json');
	await run('sync', 'status', '--json');
	await run('sync', 'status');
	const leaks = outputs.filter((o) => o.includes(token));
	assert.deepEqual(leaks, [], 'no output carries the token');
	const walk = (d: string): void => {
		for (const e of fs.readdirSync(d, { withFileTypes: true })) {
			const full = path.join(d, e.name);
			if (e.isDirectory()) walk(full);
			else if (e.isFile() && !full.includes(`${path.sep}shadow.git${path.sep}`))
				assert.ok(!fs.readFileSync(full).includes(token), `${full} holds the token`);
		}
	};
	walk(path.join(w.a.root, '.baton'));
});
