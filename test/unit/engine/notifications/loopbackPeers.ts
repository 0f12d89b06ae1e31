/**
 * Real peers on 127.0.0.1 for the notification tests: an HTTP server that records every request
 * (method, path, headers, body) and answers from a script, and a real SMTP server (smtp-server)
 * that checks AUTH and keeps each mail. Ports are picked by the OS (port 0).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export interface RecordedRequest {
	method: string;
	path: string;
	headers: http.IncomingHttpHeaders;
	body: string;
}

export type Reply = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

export interface HttpPeer {
	url: string;
	requests: RecordedRequest[];
	/** Replies in order; the last one repeats. Default: 200 "ok". */
	replies: Reply[];
	/** Requests it holds unanswered ('hang') whose client has not given up on them yet. */
	hanging(): number;
	close(): Promise<void>;
}

export async function httpPeer(t: TestContext, replies: Reply[] = [{ status: 200, body: 'ok' }]): Promise<HttpPeer> {
	const requests: RecordedRequest[] = [];
	const hung: http.ServerResponse[] = [];
	const peer = { requests, replies } as HttpPeer;
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
			const reply = peer.replies[Math.min(requests.length - 1, peer.replies.length - 1)] ?? { status: 200, body: 'ok' };
			if (reply === 'hang') {
				hung.push(res);
				res.on('close', () => hung.splice(hung.indexOf(res), 1));
				return;
			}
			res.writeHead(reply.status, reply.headers ?? {});
			res.end(reply.body ?? '');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	peer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	peer.hanging = () => hung.length;
	peer.close = () =>
		new Promise<void>((resolve) => {
			[...hung].forEach((res) => res.destroy());
			server.closeAllConnections();
			server.close(() => resolve());
		});
	t.after(() => peer.close());
	return peer;
}

export interface ReceivedMail {
	from: string;
	to: string[];
	raw: string;
	user: string | undefined;
	secure: boolean;
}

export interface SmtpPeer {
	port: number;
	mails: ReceivedMail[];
	logins: { user: string; ok: boolean }[];
}

/** A real SMTP server; `password` is the one AUTH accepts (any other login is refused with 535). */
export async function smtpPeer(t: TestContext, options: { user: string; password: string; starttls?: boolean }): Promise<SmtpPeer> {
	const mails: ReceivedMail[] = [];
	const logins: SmtpPeer['logins'] = [];
	const config: SMTPServerOptions = {
		// STARTTLS with smtp-server's built-in self-signed certificate, or plain text with AUTH allowed.
		...(options.starttls ? {} : { disabledCommands: ['STARTTLS'], allowInsecureAuth: true }),
		authMethods: ['PLAIN', 'LOGIN'],
		logger: false,
		onAuth(auth, _session, callback) {
			const ok = auth.username === options.user && auth.password === options.password;
			logins.push({ user: auth.username ?? '', ok });
			callback(ok ? null : Object.assign(new Error('Invalid username or password'), { responseCode: 535 }), ok ? { user: auth.username } : undefined);
		},
		onData(stream, session, callback) {
			const chunks: Buffer[] = [];
			stream.on('data', (c: Buffer) => chunks.push(c));
			stream.on('end', () => {
				mails.push({
					from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
					to: session.envelope.rcptTo.map((r) => r.address),
					raw: Buffer.concat(chunks).toString('utf8'),
					user: session.user as string | undefined,
					secure: session.secure,
				});
				callback();
			});
		},
	};
	const server = new SMTPServer(config);
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const port = (server.server.address() as AddressInfo).port;
	t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
	return { port, mails, logins };
}

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago): connections are refused. */
export async function closedPort(): Promise<number> {
	const server = http.createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const port = (server.address() as AddressInfo).port;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}
