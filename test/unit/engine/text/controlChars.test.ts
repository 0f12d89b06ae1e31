/**
 * Stored text is data, never control: the one escaping function every text output uses, and the NUL
 * filter at the entries (src/engine/text/controlChars.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeControls, withoutNul } from '../../../../src/engine/text/controlChars';
import { escapeControls as fromProtocol } from '../../../../src/protocol/displayText';
import { rawControl } from '../../helpers';

/** Every character the function must escape, by class. */
const classes: Record<string, number[]> = {
	'C0 but tab and newline': [...range(0x00, 0x08), ...range(0x0b, 0x1f)],
	DEL: [0x7f],
	C1: range(0x80, 0x9f),
	'bidirectional marks, embeddings, overrides and isolates': [0x061c, 0x200e, 0x200f, ...range(0x202a, 0x202e), ...range(0x2066, 0x2069)],
};

function range(from: number, to: number): number[] {
	return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

void describe('escapeControls', () => {
	for (const [name, codes] of Object.entries(classes)) {
		void it(`shows ${name} as escapes`, () => {
			for (const code of codes) {
				const c = String.fromCharCode(code);
				const shown = escapeControls(`a${c}b`);
				assert.equal(
					shown,
					`a${code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`}b`,
					`U+${code.toString(16)}`,
				);
				assert.doesNotMatch(shown, rawControl);
			}
		});
	}

	void it('escapes the terminal attacks readably', () => {
		assert.equal(escapeControls('\u001b[2J\u001b]0;owned\u0007'), '\\x1b[2J\\x1b]0;owned\\x07');
		assert.equal(escapeControls('safe\rEVIL'), 'safe\\x0dEVIL', 'a lone CR would rewrite the line');
		assert.equal(escapeControls('\u009b31m'), '\\x9b31m');
		assert.equal(escapeControls('abc\u202edcba'), 'abc\\u202edcba');
	});

	void it('keeps tab and newline, shows CRLF as a newline, and leaves other text alone', () => {
		assert.equal(escapeControls('a\tb\nc'), 'a\tb\nc');
		assert.equal(escapeControls('one\r\ntwo'), 'one\ntwo');
		const plain = 'Ünïcödé — 日本語のテキスト 🚀👩‍💻 עברית العربية C:\\Users\\x \\x1b';
		assert.equal(escapeControls(plain), plain);
	});

	void it('gives the same on a second pass', () => {
		const once = escapeControls('\u0000\u001b[1m\u202e\r\u0085');
		assert.equal(escapeControls(once), once);
	});

	void it('is the function the protocol hands to the editor', () => {
		assert.equal(fromProtocol, escapeControls);
	});
});

void describe('withoutNul', () => {
	void it('drops NUL from strings, arrays and keys, and keeps the rest', () => {
		assert.equal(withoutNul('a\u0000b'), 'ab');
		assert.deepEqual(withoutNul({ prompt: 'x\u0000y', list: ['\u0000', 1, null, true], ['k\u0000ey']: { deep: 'z\u0000' } }), {
			prompt: 'xy',
			list: ['', 1, null, true],
			key: { deep: 'z' },
		});
		const keeps = '\u001b\ttext';
		assert.equal(withoutNul(keeps), keeps, 'only NUL: other controls are escaped on output, not lost');
	});

	void it('never writes a prototype from a key named __proto__', () => {
		const out = withoutNul(JSON.parse('{"__proto__": {"polluted": "yes\\u0000"}}') as Record<string, unknown>);
		assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
		assert.deepEqual(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, { polluted: 'yes' });
	});
});
