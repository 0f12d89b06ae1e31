// Lists the entries of a zip file (a .vsix) from its central directory, without unpacking it and
// without a zip library: the end-of-central-directory record points at one header per entry.

/** @param {Buffer} buf the whole zip file @returns {string[]} entry names, in archive order */
export function zipEntries(buf) {
	// The end record is the last 22 bytes, or further back by a trailing comment of up to 64 KiB.
	let eocd = -1;
	for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
		if (buf.readUInt32LE(i) === 0x06054b50) {
			eocd = i;
			break;
		}
	}
	if (eocd < 0) throw new Error('not a zip file: no end-of-central-directory record');
	const count = buf.readUInt16LE(eocd + 10);
	let at = buf.readUInt32LE(eocd + 16);
	const names = [];
	for (let n = 0; n < count; n++) {
		if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error(`corrupt zip: bad central header at ${at}`);
		const nameLength = buf.readUInt16LE(at + 28);
		const extraLength = buf.readUInt16LE(at + 30);
		const commentLength = buf.readUInt16LE(at + 32);
		names.push(buf.toString('utf8', at + 46, at + 46 + nameLength));
		at += 46 + nameLength + extraLength + commentLength;
	}
	return names;
}
