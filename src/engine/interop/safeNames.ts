/**
 * Names of exported session files (seed 004's rules): `[A-Za-z0-9._-]`, 1–64 characters, no
 * traversal, no reserved names. Checked on export (what Baton writes) and on import (what an
 * `index.json` asks Baton to open): a name that fails never reaches the file system.
 */
const allowed = /^[A-Za-z0-9._-]{1,64}$/;
/** Windows device names are reserved with any extension too (`CON.json` opens the console), and the superscript digits ¹ ² ³ count as digits there. */
const windowsDevices = /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3]|conin\$|conout\$)(\..*)?$/i;
/** The index itself, and seed 004's own reserved names. */
const reservedNames = new Set(['index', 'metadata']);

/** Why `name` is not a safe file name (without `.json`), or null when it is. */
export function unsafeNameReason(name: string): string | null {
	if (name.length === 0 || name.length > 64) {
		return `must be 1 to 64 characters (got ${name.length})`;
	}
	if (name.includes('/') || name.includes('\\') || name === '.' || name === '..' || name.includes('..')) {
		return `"${name}" would leave the folder (path separators and ".." are refused)`;
	}
	if (!allowed.test(name)) {
		return `"${name}" has characters outside A-Z a-z 0-9 . _ -`;
	}
	if (name.startsWith('.') || name.startsWith('-')) {
		return `"${name}" starts with "${name[0]}" (hidden or option-like names are refused)`;
	}
	if (windowsDevices.test(name) || reservedNames.has(name.toLowerCase().replace(/\.json$/, ''))) {
		return `"${name}" is a reserved name`;
	}
	return null;
}

/** Why `file` (a name plus `.json`) may not be read or written as a session file, or null. */
export function unsafeFileReason(file: string): string | null {
	if (!file.endsWith('.json')) {
		return unsafeNameReason(file) ?? `"${file}" is not a .json file`;
	}
	return unsafeNameReason(file.slice(0, -'.json'.length));
}

/**
 * A safe name made from any text (a session's name): other characters become `-`, the result is cut
 * to `max` characters, and a reserved or empty result gets a suffix. Always passes unsafeNameReason.
 */
export function sanitizeName(text: string, max = 59): string {
	let name = text
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.replace(/[^A-Za-z0-9._-]+/g, '-')
		.replace(/\.{2,}/g, '.')
		.replace(/-{2,}/g, '-')
		.replace(/^[.-]+/, '')
		.slice(0, Math.max(1, Math.min(64, max)))
		.replace(/[.-]+$/, '');
	if (!name) {
		name = 'session';
	}
	if (unsafeNameReason(name) !== null) {
		name = `${name.slice(0, Math.min(64, max) - 8)}-session`;
	}
	return name;
}
