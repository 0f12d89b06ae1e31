/**
 * The MCP server's stdio framing on real streams: oversize lines are answered and skipped wherever
 * the id sits, broken lines get JSON-RPC errors, and the messages after them still arrive.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BoundedStdioServerTransport } from '../../../src/cli/boundedStdioTransport';

async function harness(maxLineBytes: number): Promise<{ stdin: PassThrough; messages: JSONRPCMessage[]; replies: () => any[]; settle: () => Promise<void> }> {
	const stdin = new PassThrough();
	const stdout = new PassThrough();
	let written = '';
	stdout.on('data', (chunk: Buffer) => {
		written += chunk.toString();
	});
	const transport = new BoundedStdioServerTransport(stdin, stdout, { maxLineBytes });
	const messages: JSONRPCMessage[] = [];
	transport.onmessage = (message) => messages.push(message);
	await transport.start();
	return {
		stdin,
		messages,
		replies: () =>
			written
				.split('\n')
				.filter(Boolean)
				.map((line) => JSON.parse(line)),
		settle: () => new Promise((resolve) => setImmediate(resolve)),
	};
}

const ping = (id: number | string): string => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`;

void describe('BoundedStdioServerTransport', () => {
	void it('answers an oversize line with its id, read from the front or the back, and goes on', async () => {
		const h = await harness(200);
		const big = 'y'.repeat(500);
		h.stdin.write(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"id":99,"name":"${big}"}}\n`);
		// The id after the huge params, split over chunks, with a nested "id" before it.
		h.stdin.write(`{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"id":"inner","text":"${big.slice(0, 300)}`);
		h.stdin.write(`${big}, \\" } ]"}}, "id" : "req-8"}\n${ping(9)}`);
		h.stdin.write(`{"jsonrpc":"2.0","method":"x","params":"${big}"}\n`);
		await h.settle();
		assert.deepEqual(
			h.replies().map((r) => [r.id, r.error.code]),
			[
				[7, -32600],
				['req-8', -32600],
				[null, -32600],
			],
		);
		assert.match(h.replies()[0].error.message, /over 200 bytes/);
		assert.deepEqual(h.messages, [{ jsonrpc: '2.0', id: 9, method: 'ping' }], 'the message after the oversize one arrived whole');
	});

	void it('answers lines that are not JSON or not JSON-RPC, and passes CRLF and split lines through', async () => {
		const h = await harness(1_000);
		h.stdin.write('this is not json\n');
		h.stdin.write('{"id":3,"hello":"world"}\n');
		h.stdin.write('\n');
		const line = ping('a');
		h.stdin.write(line.slice(0, 10));
		h.stdin.write(`${line.slice(10, -1)}\r\n`);
		await h.settle();
		assert.deepEqual(
			h.replies().map((r) => [r.id, r.error.code]),
			[
				[null, -32700],
				[3, -32600],
			],
		);
		assert.deepEqual(h.messages, [{ jsonrpc: '2.0', id: 'a', method: 'ping' }]);
	});

	void it('accepts a line of exactly the limit', async () => {
		const line = ping(1).trimEnd();
		const h = await harness(Buffer.byteLength(line));
		h.stdin.write(`${line}\n`);
		h.stdin.write(`${ping(12)}`);
		await h.settle();
		assert.deepEqual(h.messages, [{ jsonrpc: '2.0', id: 1, method: 'ping' }], 'a line at the limit passes');
		assert.deepEqual(
			h.replies().map((r) => [r.id, r.error.code]),
			[[12, -32600]],
			'one byte more is refused',
		);
	});
});
