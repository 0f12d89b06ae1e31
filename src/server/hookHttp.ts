/**
 * The daemon's HTTP hook endpoint: a host that can call a hook over HTTP (Claude Code's `http`
 * hooks) posts its event here instead of starting a process per call. It listens on 127.0.0.1 only,
 * takes `POST /baton/hook/<event>` with the workspace's secret as a bearer token (compared in
 * constant time) and a JSON object no larger than the hook's stdin bound, and hands the event to the
 * same hook runner `hook/run` reaches (exactly once by event id: hookHost/hookOnce.ts). Anything else is
 * refused with a status that says why, before anything is recorded. The JSON-RPC protocol never
 * listens on TCP: this endpoint serves hook events and nothing else. docs/daemon.md, "HTTP hooks".
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hookPort, hookSecret, renewHookSecret, hookUrlPath, keepHookPort } from '../engine/agentConfig/hookEndpoint';
import type { CliRunParams, CliRunResult } from '../protocol/rpc';

/** The largest event body taken: the same bound as a command hook's stdin (hookHost/hookStdin.ts). */
const maxHookBodyBytes = 32 * 1024 * 1024;
/** A refused body up to this size is read to its end before the answer (see refuse). */
const drainLimitBytes = 2 * maxHookBodyBytes;

interface HookHttpOptions {
	workspaceRoot: string;
	/** Runs `baton hook …` as the daemon's hook/run does. */
	run(params: CliRunParams): Promise<CliRunResult>;
	log(level: 'debug' | 'info' | 'warn', message: string): void;
	/** Each accepted call (the daemon's idle timer counts it as a client). */
	onActivity?(): void;
	/** The environment hooks run with: the daemon's own (HTTP carries none). */
	env: Record<string, string>;
	/** The port to ask for first (tests); default: the workspace's kept one (agentConfig/hookEndpoint.ts). */
	port?: number;
}

export interface HookHttpEndpoint {
	port: number;
	close(): void;
}

/** The event words a hook URL may name (`baton hook <event>`): lower-case words and dashes. */
const eventWord = /^[a-z]+(?:-[a-z]+)*$/;
/** The hosts whose hooks may come over HTTP, and the `--agent` each one's hook runs with. */
const agentParam: Record<string, string[]> = { claude: [] };

function digest(text: string): Buffer {
	return crypto.createHash('sha256').update(text).digest();
}

/** Whether the request carries the secret: both hashed first, so the comparison takes the same time whatever the length. */
function bearerMatches(header: string | undefined, secret: string): boolean {
	const given = /^Bearer ([^\s]+)$/.exec(header ?? '')?.[1] ?? '';
	return crypto.timingSafeEqual(digest(given), digest(secret)) && given.length > 0;
}

function answer(res: http.ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
	res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), connection: 'close' });
	res.end(body);
}

/**
 * Refuses a request whose body is not read: the body is discarded, and the answer goes once it has
 * all arrived, so the client, still sending, reads the refusal instead of a connection reset (an
 * answer that closes the connection mid-body made the client's next write fail with EPIPE before it
 * had read the status). A body declared larger than `drainLimitBytes` is not waited for: the answer
 * goes at once and the connection closes. The server's request timeout bounds a client that never
 * finishes.
 */
function refuse(req: http.IncomingMessage, res: http.ServerResponse, status: number, body: string): void {
	const declared = Number(req.headers['content-length'] ?? '0');
	if (req.complete || declared > drainLimitBytes) {
		req.resume();
		answer(res, status, body);
		return;
	}
	req.once('end', () => answer(res, status, body));
	req.once('error', () => res.destroy());
	req.resume();
}

export async function startHookHttp(options: HookHttpOptions): Promise<HookHttpEndpoint> {
	let secret = hookSecret(options.workspaceRoot);
	// Headers are checked every 2 s (Node's default, 30 s, let an idle connection live that long).
	const server = http.createServer({ connectionsCheckingInterval: 2_000 }, (req, res) => {
		void serveHook(req, res, options, secret).catch((error: Error) => {
			options.log('warn', `hook/http: ${error.message}`);
			if (!res.headersSent) {
				answer(res, 500, `baton: the hook failed: ${error.message}\n`);
			}
		});
	});
	server.headersTimeout = 5_000;
	server.requestTimeout = 30_000;
	// Any local user can open connections to 127.0.0.1 without the secret: bounded, so they cannot
	// take every descriptor the daemon has (its socket, its store). A host calls one hook at a time.
	server.maxConnections = 128;
	const wanted = options.port ?? hookPort(options.workspaceRoot);
	const port = await listenOnKeptPort(server, wanted);
	if (port !== wanted) {
		// Whoever holds the kept port receives the calls of Claude Code sessions started before (their
		// settings name it) and the secret they carry: a new secret makes what it learns useless here.
		secret = renewHookSecret(options.workspaceRoot);
		options.log(
			'warn',
			`hook endpoint: port ${wanted} is taken (another program, another user's, or this workspace's previous daemon); listening on ${port} with a new hook secret. Claude Code sessions started before keep calling port ${wanted} until they restart.`,
		);
	}
	keepHookPort(options.workspaceRoot, port);
	return { port, close: () => server.close() };
}

/** One request: refused before anything is recorded unless it is a hook call with a JSON object, else run as `baton hook <event>`. */
async function serveHook(req: http.IncomingMessage, res: http.ServerResponse, options: HookHttpOptions, secret: string): Promise<void> {
	const call = admitHookCall(req, res, options, secret);
	if (!call) {
		return;
	}
	const body = await readBounded(req);
	if (body === undefined) {
		answer(res, 413, `baton: a hook event is at most ${maxHookBodyBytes} bytes\n`);
		return;
	}
	if (!isJsonObject(body)) {
		answer(res, 400, 'baton: a hook event is a JSON object\n');
		return;
	}
	await runHookCall(res, options, call, body);
}

/** The event and agent a request names, or undefined once it has been refused (wrong path, method, secret or declared size); a refused body is discarded unread. */
function admitHookCall(
	req: http.IncomingMessage,
	res: http.ServerResponse,
	options: HookHttpOptions,
	secret: string,
): { event: string; agent: string } | undefined {
	const url = new URL(req.url ?? '/', 'http://127.0.0.1');
	const event = url.pathname.startsWith(hookUrlPath) ? url.pathname.slice(hookUrlPath.length) : '';
	const agent = url.searchParams.get('agent') ?? 'claude';
	if (!eventWord.test(event) || !Object.hasOwn(agentParam, agent)) {
		refuse(req, res, 404, `baton: no such hook: ${url.pathname} (POST ${hookUrlPath}<event>)\n`);
		return undefined;
	}
	if (req.method !== 'POST') {
		res.setHeader('allow', 'POST');
		refuse(req, res, 405, 'baton: hook events are POSTed\n');
		return undefined;
	}
	if (!bearerMatches(req.headers.authorization, secret)) {
		options.log('warn', `hook/http ${event} refused: no or wrong secret`);
		refuse(req, res, 401, 'baton: this workspace’s hook secret is missing or wrong\n');
		return undefined;
	}
	const declared = Number(req.headers['content-length'] ?? '0');
	if (declared > maxHookBodyBytes) {
		refuse(req, res, 413, `baton: a hook event is at most ${maxHookBodyBytes} bytes\n`);
		return undefined;
	}
	return { event, agent };
}

/** Whether the body parses as a JSON object (not an array, not null). */
function isJsonObject(body: string): boolean {
	let payload: unknown;
	try {
		payload = JSON.parse(body);
	} catch {
		payload = undefined;
	}
	return !!payload && typeof payload === 'object' && !Array.isArray(payload);
}

/** Runs the event as the daemon's hook/run does and answers with the hook's output (500 with its stderr when it fails). */
async function runHookCall(res: http.ServerResponse, options: HookHttpOptions, call: { event: string; agent: string }, body: string): Promise<void> {
	options.onActivity?.();
	const began = Date.now();
	const result = await options.run({
		argv: ['hook', call.event, ...(agentParam[call.agent] ?? [])],
		cwd: options.workspaceRoot,
		env: { ...options.env, BATON_HOOK_TRANSPORT: 'http' },
		stdin: body,
		// The hooks room names a tool call's event by its id; this one is for a payload that names none.
		eventId: crypto.randomUUID(),
	});
	options.log('debug', `hook/http ${call.event} → ${result.exitCode === 0 ? 200 : 500} in ${Date.now() - began} ms (no process)`);
	if (result.exitCode !== 0) {
		answer(res, 500, result.stderr || `baton: the hook exited ${result.exitCode}\n`);
		return;
	}
	// What the command hook prints is the host's answer (empty, or its decision JSON).
	answer(res, 200, result.stdout.trim() ? result.stdout : '', 'application/json');
}

/** Listens on 127.0.0.1 at the `wanted` port, or at any free port when that one is taken or forbidden. */
async function listenOnKeptPort(server: http.Server, wanted: number): Promise<number> {
	const listen = (port: number): Promise<number> =>
		new Promise((resolve, reject) => {
			const fail = (error: Error): void => reject(error);
			server.once('error', fail);
			server.listen(port, '127.0.0.1', () => {
				server.off('error', fail);
				resolve((server.address() as AddressInfo).port);
			});
		});
	try {
		return await listen(wanted);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' && (error as NodeJS.ErrnoException).code !== 'EACCES') {
			throw error;
		}
		// Taken (another program, or this workspace's other daemon not gone yet): any free port; the
		// agent's local settings follow it at its next session start.
		return listen(0);
	}
}

/** The body, or undefined past the bound (the rest is discarded, not buffered). */
function readBounded(req: http.IncomingMessage): Promise<string | undefined> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		let over = false;
		req.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > maxHookBodyBytes) {
				over = true;
				chunks.length = 0;
			} else if (!over) {
				chunks.push(chunk);
			}
		});
		req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}
