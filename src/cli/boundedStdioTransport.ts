/**
 * MCP over stdio with a bound on each message instead of on the whole stream. The SDK's own stdio
 * transport throws when its read buffer passes its limit and then closes itself, so one oversize
 * message ended `baton mcp` without a word to the client. Here a line over the limit is dropped as it
 * streams in (never held whole), answered with a JSON-RPC error carrying the request's id when the
 * line names one at its top level, and the server keeps serving the lines after it. A line that is
 * not JSON-RPC gets a parse or invalid-request error rather than silence.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The SDK's own limit, now per message: big tool arguments still fit. */
export const defaultMaxLineBytes = 10 * 1024 * 1024;

type Id = string | number | null;

interface BoundedStdioOptions {
	maxLineBytes?: number;
}

export class BoundedStdioServerTransport implements Transport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: <T extends JSONRPCMessage>(message: T) => void;

	private readonly maxLineBytes: number;
	private chunks: Buffer[] = [];
	private size = 0;
	/** Set while the rest of an oversize line is being skipped; it finds the line's id on the way. */
	private skipping: IdScanner | undefined;
	private started = false;
	private closed = false;

	constructor(
		private readonly stdin: NodeJS.ReadableStream,
		private readonly stdout: NodeJS.WritableStream,
		options: BoundedStdioOptions = {},
	) {
		this.maxLineBytes = options.maxLineBytes ?? defaultMaxLineBytes;
	}

	async start(): Promise<void> {
		if (this.started) {
			throw new Error('the transport is already started');
		}
		this.started = true;
		this.stdin.on('data', this.onData);
		this.stdin.on('error', this.onStreamError);
	}

	async close(): Promise<void> {
		if (this.closed) {
			return;
		}
		this.closed = true;
		this.stdin.off('data', this.onData);
		this.stdin.off('error', this.onStreamError);
		if (this.stdin.listenerCount('data') === 0) {
			this.stdin.pause();
		}
		this.chunks = [];
		this.size = 0;
		this.skipping = undefined;
		this.onclose?.();
	}

	send(message: JSONRPCMessage): Promise<void> {
		return new Promise((resolve) => {
			if (this.stdout.write(`${JSON.stringify(message)}\n`)) {
				resolve();
			} else {
				this.stdout.once('drain', resolve);
			}
		});
	}

	private readonly onStreamError = (error: Error): void => {
		this.onerror?.(error);
	};

	private readonly onData = (data: Buffer | string): void => {
		let chunk = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
		while (chunk.length > 0) {
			const newline = chunk.indexOf(0x0a);
			const piece = newline === -1 ? chunk : chunk.subarray(0, newline);
			if (this.skipping) {
				this.skipping.feed(piece);
			} else if (this.size + piece.length > this.maxLineBytes) {
				// Over the limit: scan what is held for the id, then let go of it.
				this.skipping = new IdScanner();
				for (const held of this.chunks) {
					this.skipping.feed(held);
				}
				this.skipping.feed(piece);
				this.chunks = [];
				this.size = 0;
			} else if (piece.length > 0) {
				this.chunks.push(piece);
				this.size += piece.length;
			}
			if (newline === -1) {
				return;
			}
			chunk = chunk.subarray(newline + 1);
			this.endLine();
		}
	};

	private endLine(): void {
		if (this.skipping) {
			const id = this.skipping.id();
			this.skipping = undefined;
			this.reject(id, -32600, `Invalid Request: the message is over ${this.maxLineBytes} bytes; it was discarded`);
			return;
		}
		const line = Buffer.concat(this.chunks, this.size).toString('utf8').replace(/\r$/, '');
		this.chunks = [];
		this.size = 0;
		if (line.trim() === '') {
			return;
		}
		let raw: unknown;
		try {
			raw = JSON.parse(line);
		} catch (error) {
			this.reject(null, -32700, `Parse error: ${(error as Error).message}`);
			return;
		}
		const parsed = JSONRPCMessageSchema.safeParse(raw);
		if (!parsed.success) {
			this.reject(idOf(raw), -32600, 'Invalid Request: not a JSON-RPC 2.0 message');
			return;
		}
		this.onmessage?.(parsed.data);
	}

	private reject(id: Id, code: number, message: string): void {
		this.onerror?.(new Error(message));
		if (this.closed) {
			return;
		}
		// `id: null` is what JSON-RPC prescribes when the request's id cannot be known; the SDK's
		// message type has no room for it, hence the direct write.
		this.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
	}
}

function idOf(raw: unknown): Id {
	if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
		const id = (raw as Record<string, unknown>)['id'];
		if (typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))) {
			return id;
		}
	}
	return null;
}

const quote = 0x22;
const backslash = 0x5c;
/** Longest id value kept; a longer one is not an id a client would send, and is answered with null. */
const maxIdBytes = 256;

/**
 * Follows JSON structure byte by byte (its structural characters are ASCII, so UTF-8 needs no
 * decoding) and keeps the value of the top-level `"id"` member, wherever in the line it comes: in
 * a request whose huge `params` come first, the id is at the end. Memory stays bounded.
 */
class IdScanner {
	private depth = 0;
	private inString = false;
	private escaped = false;
	/** The top-level string being read, while it may still be the key `id`. */
	private key: number[] | undefined;
	private lastKey: string | undefined;
	/** After `"id":` at depth 1: collecting the value's bytes. */
	private value: number[] | undefined;
	private found: Id | undefined;

	feed(bytes: Uint8Array): void {
		for (const byte of bytes) {
			this.step(byte);
		}
	}

	id(): Id {
		this.finishValue();
		return this.found ?? null;
	}

	private step(byte: number): void {
		if (this.value) {
			// The id's value ends at the next top-level `,` or `}`; string ids keep their quotes
			// so that JSON.parse tells a string from a number.
			if (!this.inString && this.depth === 1 && (byte === 0x2c || byte === 0x7d)) {
				this.finishValue();
			} else if (this.value.length >= maxIdBytes) {
				this.value = undefined;
				this.found = null;
			} else {
				this.value.push(byte);
			}
		}
		if (this.inString) {
			if (this.escaped) {
				this.escaped = false;
			} else if (byte === backslash) {
				this.escaped = true;
			} else if (byte === quote) {
				this.inString = false;
				if (this.key) {
					this.lastKey = Buffer.from(this.key).toString('utf8');
					this.key = undefined;
				}
				return;
			}
			if (this.key) {
				this.key.push(byte);
				if (this.key.length > 8) {
					this.key = undefined;
				}
			}
			return;
		}
		if (byte === quote) {
			this.inString = true;
			this.key = this.depth === 1 && !this.value ? [] : undefined;
			return;
		}
		if (byte === 0x7b || byte === 0x5b) {
			this.depth++;
			this.lastKey = undefined;
		} else if (byte === 0x7d || byte === 0x5d) {
			this.depth--;
		} else if (byte === 0x3a && this.depth === 1 && this.lastKey === 'id' && this.found === undefined) {
			this.value = [];
		} else if (byte === 0x2c) {
			this.lastKey = undefined;
		}
	}

	private finishValue(): void {
		if (!this.value) {
			return;
		}
		const text = Buffer.from(this.value).toString('utf8').trim();
		this.value = undefined;
		try {
			const parsed: unknown = JSON.parse(text);
			if (typeof parsed === 'string' || (typeof parsed === 'number' && Number.isFinite(parsed))) {
				this.found = parsed;
				return;
			}
		} catch {
			// Cut off or not an id: answer with null.
		}
		this.found = null;
	}
}
