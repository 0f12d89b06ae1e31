/**
 * A person's words as an FTS4 MATCH expression that can never be an SQL or query-syntax error: each
 * whitespace-separated chunk becomes one quoted phrase of its letters and digits (what the index's
 * unicode61 tokenizer keeps), so `billing.ts` is the phrase "billing ts", `"`, `-`, `NEAR`, `OR`,
 * parentheses and NUL are plain text, and phrases are ANDed. A chunk ending in `*` matches as a prefix.
 */
import { BatonError } from '../errors';

/** More than this many phrases or characters is cut: a pasted log is still a query, not a failure. */
const queryLimits = { phrases: 16, chars: 1_000, wordChars: 64 } as const;

interface FtsQuery {
	/** The MATCH expression. */
	match: string;
	/** The words, lower-cased as the tokenizer folds them. */
	terms: string[];
}

export function ftsQuery(text: string): FtsQuery {
	const phrases: string[] = [];
	const terms: string[] = [];
	for (const chunk of text.slice(0, queryLimits.chars).split(/\s+/u)) {
		const words = chunk
			.toLowerCase()
			.split(/[^\p{L}\p{N}]+/u)
			.filter(Boolean)
			.map((w) => w.slice(0, queryLimits.wordChars));
		if (words.length === 0) {
			continue;
		}
		const prefix = chunk.endsWith('*') ? '*' : '';
		phrases.push(`"${words.join(' ')}${prefix}"`);
		for (const word of words) {
			if (!terms.includes(word)) terms.push(word);
		}
		if (phrases.length === queryLimits.phrases) {
			break;
		}
	}
	if (phrases.length === 0) {
		throw new BatonError('invalidInput', 'nothing to search for: give at least one word (letters or digits)');
	}
	return { match: phrases.join(' '), terms };
}
