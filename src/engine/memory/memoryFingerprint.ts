/**
 * The identity of a fact in project memory: its text, normalised so that the same fact written a
 * little differently is recognised as a repeat (which confirms it) instead of becoming a duplicate
 * (otherwise sessions file the same memory again and again).
 *
 * The normalisation, in order:
 * 1. Unicode NFKC (full-width letters, ligatures, non-breaking spaces become their plain forms);
 * 2. lower case;
 * 3. typographic apostrophes (’ ‘ ʼ `) become `'`, dashes (‐ – — −) become `-`;
 * 4. each whitespace-separated word loses the punctuation (Unicode category P) at its start and
 *    end: quotes, backticks, brackets, commas, colons, bullets, ellipses, leading dashes and
 *    trailing periods go (`"Don't edit dist/!"` → `don't edit dist`), while punctuation inside a
 *    word stays, because it carries meaning (`src/app.ts`, `x-1`, `don't`, `NODE_OPTIONS=--inspect`);
 *    a word of punctuation only disappears. Symbols (`<`, `>`, `=`, `+`,
 *    `$`) are not punctuation and always stay (`cost < $5` and `cost > $5` are different facts);
 * 5. the words are joined by single spaces.
 *
 * So `Run  the tests with --runInBand.` and `run the tests with "--runInBand"` are one fact, while
 * `use port 8080` and `use port 8081` stay two. The result is stored as `memory_entries.fingerprint`
 * (unique per kind) and is readable on purpose: a person can see why two facts collapsed.
 */

const apostrophes = /[\u2018\u2019\u02bc\u0060\u00b4]/g;
const dashes = /[\u2010-\u2015\u2212]/g;
const edges = /^\p{P}+|\p{P}+$/gu;

export function memoryFingerprint(text: string): string {
	return text
		.normalize('NFKC')
		.toLowerCase()
		.replace(apostrophes, "'")
		.replace(dashes, '-')
		.split(/\s+/)
		.map((word) => word.replace(edges, ''))
		.filter(Boolean)
		.join(' ');
}
