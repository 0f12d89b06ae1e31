/**
 * The bodies of a `Content-Length:`-framed stream (JSON-RPC over the daemon's socket), in time linear
 * in the bytes received. Joining every chunk onto the buffer received so far copied the whole answer
 * again on each chunk: a 70 MB answer cost 74 s of the client's CPU. Here a chunk is kept as it came,
 * only the bytes not yet searched are searched for the header's end, and a body is joined once, when
 * it is whole. Node built-ins only: dist/cli.js bundles it.
 */
const headerEnd = Buffer.from('\r\n\r\n');

export class ContentLengthFrames {
	private chunks: Buffer[] = [];
	private buffered = 0;
	/** The length of the body being received, once its header was read; -1 while reading a header. */
	private bodyLength = -1;
	/** How many bytes of the header being read were already searched for its end. */
	private searched = 0;

	/** Takes one chunk; returns the bodies it completed, in order. Throws on a header without a length. */
	push(chunk: Buffer): Buffer[] {
		this.chunks.push(chunk);
		this.buffered += chunk.length;
		const bodies: Buffer[] = [];
		for (;;) {
			if (this.bodyLength < 0) {
				// A header is a few dozen bytes: what came since the last body is joined while it is read.
				const head = this.joined();
				const end = head.indexOf(headerEnd, Math.max(0, this.searched - (headerEnd.length - 1)));
				if (end < 0) {
					this.searched = head.length;
					return bodies;
				}
				const length = Number(/Content-Length: *(\d+)/i.exec(head.subarray(0, end).toString('ascii'))?.[1] ?? NaN);
				if (!Number.isSafeInteger(length)) {
					throw new Error(`a message without a Content-Length: ${JSON.stringify(head.subarray(0, Math.min(end, 200)).toString('ascii'))}`);
				}
				this.drop(end + headerEnd.length);
				this.bodyLength = length;
				this.searched = 0;
			}
			if (this.buffered < this.bodyLength) {
				return bodies;
			}
			bodies.push(this.joined().subarray(0, this.bodyLength));
			this.drop(this.bodyLength);
			this.bodyLength = -1;
		}
	}

	/** The buffered bytes as one buffer: copied only when they came in more than one chunk. */
	private joined(): Buffer {
		if (this.chunks.length !== 1) {
			this.chunks = [Buffer.concat(this.chunks, this.buffered)];
		}
		return this.chunks[0]!;
	}

	/** Forgets the first `count` bytes (after `joined()`, so there is one chunk). */
	private drop(count: number): void {
		const rest = this.chunks[0]!.subarray(count);
		this.chunks = rest.length > 0 ? [rest] : [];
		this.buffered = rest.length;
	}
}
