/**
 * The daemon's HTTP hook endpoint (src/server/hookHttp.ts, docs/daemon.md "HTTP hooks"), with real
 * processes: the built CLI starts the daemon, requests go over real TCP to 127.0.0.1, and what was
 * recorded is read from the journal. A refused request records nothing; a right one records its
 * event once, however often it is sent.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'node:test';
import { Engine } from '../../../src/engine/engine';
import { MemoryLogger } from '../helpers';
import { baton, claudeToolCall, daemonWorkspace, endpoint, socketInodes, tcpListenerInodes } from './daemonProcesses';

const session = 'b7e1c2d3-0000-4000-8000-0000000000aa';

function post(
	port: number,
	pathname: string,
	body: string | Buffer,
	headers: Record<string, string> = {},
	method = 'POST',
): Promise<{ status: number; body: string }> {
	return new Promise((resolve, reject) => {
		const req = http.request({ host: '127.0.0.1', port, path: pathname, method, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
			let text = '';
			res.on('data', (c: Buffer) => (text += c.toString()));
			res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
		});
		req.on('error', reject);
		req.end(body);
	});
}

function toolCall(root: string, phase: 'PreToolUse' | 'PostToolUse', id: string, file: string): string {
	return claudeToolCall(root, session, phase, id, file);
}

/** Every timeline step's tool call id, as often as each was recorded, and how many prompts. */
async function recorded(root: string): Promise<{ steps: string[]; events: number }> {
	const engine = await Engine.open({ workspaceRoot: root, log: new MemoryLogger() });
	try {
		const rows = engine.store.sqlite.exec("SELECT kind, body_json FROM shared_events WHERE kind LIKE 'timeline.%'")[0]?.values ?? [];
		return {
			steps: rows.filter((r) => r[0] === 'timeline.step').map((r) => String((JSON.parse(String(r[1])) as { toolUseId: unknown }).toolUseId)),
			events: rows.length,
		};
	} finally {
		engine.close();
	}
}

test('the HTTP hook endpoint refuses what is not a hook event with the secret (nothing recorded) and records a right one exactly once, sent twice', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	const started = await baton(cli, root, ['hook', 'session-start'], {
		input: JSON.stringify({
			session_id: session,
			cwd: root,
			hook_event_name: 'SessionStart',
			source: 'startup',
			transcript_path: path.join(root, 'none.jsonl'),
		}),
	});
	assert.equal(started.code, 0, started.stderr);
	const info = endpoint(root);
	assert.ok(info, 'a daemon serves the workspace');
	const kept = JSON.parse(fs.readFileSync(path.join(root, '.baton', 'hook-http.json'), 'utf8')) as { port: number };
	const secretFile = path.join(root, '.baton', 'hook-secret');
	assert.equal(fs.statSync(secretFile).mode & 0o777, 0o600, 'the secret is its user’s only');
	const secret = fs.readFileSync(secretFile, 'utf8').trim();
	assert.match(secret, /^[0-9a-f]{64}$/);
	const auth = { authorization: `Bearer ${secret}` };
	const port = kept.port;
	const before = await recorded(root);

	const pre = toolCall(root, 'PreToolUse', 'toolu_http_1', 'made.ts');
	const refusals: [string, Promise<{ status: number; body: string }>, number, RegExp][] = [
		['no secret', post(port, '/baton/hook/pre-tool-use', pre), 401, /secret is missing or wrong/],
		['a wrong secret', post(port, '/baton/hook/pre-tool-use', pre, { authorization: `Bearer ${'0'.repeat(64)}` }), 401, /secret is missing or wrong/],
		['the secret not as a bearer token', post(port, '/baton/hook/pre-tool-use', pre, { authorization: secret }), 401, /secret/],
		['a GET', post(port, '/baton/hook/pre-tool-use', '', auth, 'GET'), 405, /POSTed/],
		['another path', post(port, '/rpc', pre, auth), 404, /no such hook/],
		['an event word that is no word', post(port, '/baton/hook/..%2Fcli', pre, auth), 404, /no such hook/],
		['another host', post(port, '/baton/hook/pre-tool-use?agent=copilot', pre, auth), 404, /no such hook/],
		['a malformed body', post(port, '/baton/hook/pre-tool-use', '{"session_id": ', auth), 400, /JSON object/],
		['a JSON array', post(port, '/baton/hook/pre-tool-use', '[1,2]', auth), 400, /JSON object/],
		['a huge body', post(port, '/baton/hook/pre-tool-use', Buffer.alloc(33 * 1024 * 1024, 0x20), auth), 413, /at most/],
	];
	for (const [what, request, status, says] of refusals) {
		const got = await request;
		assert.equal(got.status, status, `${what}: ${got.status} ${got.body}`);
		assert.match(got.body, says, what);
	}
	assert.deepEqual(await recorded(root), before, 'nothing refused was recorded');

	// The right call, each sent twice: one step, with its file.
	for (let i = 0; i < 2; i++) {
		const got = await post(port, '/baton/hook/pre-tool-use', pre, auth);
		assert.equal(got.status, 200, got.body);
	}
	fs.writeFileSync(path.join(root, 'made.ts'), "export const id = 'toolu_http_1';\n");
	const postCall = toolCall(root, 'PostToolUse', 'toolu_http_1', 'made.ts');
	const answers = await Promise.all([post(port, '/baton/hook/post-tool-use', postCall, auth), post(port, '/baton/hook/post-tool-use', postCall, auth)]);
	for (const got of answers) {
		assert.equal(got.status, 200, got.body);
	}
	// A tool call's result is answered at once and captured right after, before the daemon's next command.
	assert.equal((await baton(cli, root, ['session', 'list'])).code, 0);
	assert.deepEqual((await recorded(root)).steps, [...before.steps, 'toolu_http_1'], 'the call is one step, recorded once');
	const log = fs.readFileSync(path.join(root, '.baton', 'logs', 'daemon.log'), 'utf8');
	assert.match(log, /hook\/http post-tool-use → 200/, 'the daemon served it over HTTP');

	// JSON-RPC never listens on TCP; the one TCP listener is the hook endpoint, on 127.0.0.1 only.
	const listeners = tcpListenerInodes();
	const held = socketInodes(info.pid).filter((inode) => listeners.has(inode));
	assert.equal(held.length, 1, 'one TCP listener: the hook endpoint');
	const tcp = fs.readFileSync('/proc/net/tcp', 'utf8');
	const line = tcp.split('\n').find((l) => l.trim().split(/\s+/)[9] === held[0]);
	assert.ok(line, 'an IPv4 listener');
	assert.equal(line.trim().split(/\s+/)[1], `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`, 'bound to 127.0.0.1 on the kept port');
});

test('a kept port someone else holds: the daemon listens on another with a new secret, says so, and Claude’s local settings follow both', async (t) => {
	const { cli, root } = await daemonWorkspace(t);
	assert.equal((await baton(cli, root, ['connect', 'claude'])).code, 0);
	const local = path.join(root, '.claude', 'settings.local.json');
	const secretFile = path.join(root, '.baton', 'hook-secret');
	const before = {
		secret: fs.readFileSync(secretFile, 'utf8').trim(),
		port: (JSON.parse(fs.readFileSync(path.join(root, '.baton', 'hook-http.json'), 'utf8')) as { port: number }).port,
	};
	assert.ok(fs.readFileSync(local, 'utf8').includes(`127.0.0.1:${before.port}/`));
	assert.equal((await baton(cli, root, ['daemon', 'stop'])).code, 0);
	// While no daemon runs, another program (another user's, say) takes the port Claude's settings name.
	const squatter = http.createServer((_req, res) => res.end());
	await new Promise<void>((resolve) => squatter.listen(before.port, '127.0.0.1', resolve));
	t.after(() => squatter.close());
	for (let i = 0; i < 100 && endpoint(root); i++) {
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	assert.equal((await baton(cli, root, ['task', 'list'])).code, 0);
	const after = {
		secret: fs.readFileSync(secretFile, 'utf8').trim(),
		port: (JSON.parse(fs.readFileSync(path.join(root, '.baton', 'hook-http.json'), 'utf8')) as { port: number }).port,
	};
	assert.notEqual(after.port, before.port);
	assert.match(after.secret, /^[0-9a-f]{64}$/);
	assert.notEqual(after.secret, before.secret, 'what the port’s holder may have learnt from calls is no key here');
	assert.equal(fs.statSync(secretFile).mode & 0o777, 0o600);
	const settings = fs.readFileSync(local, 'utf8');
	assert.ok(
		settings.includes(`127.0.0.1:${after.port}/`) && settings.includes(`Bearer ${after.secret}`),
		'Claude’s next start calls the new port with the new secret',
	);
	assert.equal(
		(await post(after.port, '/baton/hook/pre-tool-use', toolCall(root, 'PreToolUse', 'toolu_old', 'x.ts'), { authorization: `Bearer ${before.secret}` }))
			.status,
		401,
	);
	assert.match(
		fs.readFileSync(path.join(root, '.baton', 'logs', 'daemon.log'), 'utf8'),
		/\[warn\] hook endpoint: port \d+ is taken .* with a new hook secret/,
	);
});
