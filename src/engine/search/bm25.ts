/**
 * Okapi BM25 over FTS4's `matchinfo(t, 'pcx')` (sql.js carries FTS3/FTS4 but not FTS5, whose
 * `bm25()` is built in). The blob is 32-bit unsigned integers: p phrases, c columns, then x[p][c][3]:
 * hits in this row, hits in all rows, rows with a hit. The row's token counts and the averages come
 * from the index itself (searchIndex.ts keeps them): asking matchinfo for them too ('nal') doubled the
 * cost of a query whose words are in most records (docs/search.md). Columns are weighted (a title
 * counts more than a body).
 */
const k1 = 1.2;
const b = 0.75;

interface Lengths {
	/** Records in the index. */
	rows: number;
	/** Tokens per column of every record, three per record id (from 3 × id). */
	lengths: ArrayLike<number>;
	/** Average tokens per column over all rows. */
	average: ArrayLike<number>;
}

export function bm25(matchinfo: Uint8Array, id: number, figures: Lengths, weights: readonly number[]): number {
	const words = new Uint32Array(matchinfo.buffer, matchinfo.byteOffset, matchinfo.byteLength >>> 2);
	const phrases = words[0] ?? 0;
	const columns = words[1] ?? 0;
	let score = 0;
	for (let p = 0; p < phrases; p++) {
		for (let c = 0; c < columns; c++) {
			const at = 2 + 3 * (p * columns + c);
			score += termScore(words[at] ?? 0, words[at + 2] ?? 0, id, c, figures, weights);
		}
	}
	return score;
}

/**
 * BM25 over `matchinfo(t, 'pcy')` (hits in this row only: no pass over every row's doclist), with
 * the rows holding each phrase in each column (`withHit[p * columns + c]`) given by the caller: for a
 * query whose words are in most records, estimated from a sample of its matches (docs/search.md).
 */
export function bm25Sampled(matchinfo: Uint8Array, id: number, figures: Lengths, weights: readonly number[], withHit: ArrayLike<number>): number {
	const words = new Uint32Array(matchinfo.buffer, matchinfo.byteOffset, matchinfo.byteLength >>> 2);
	const phrases = words[0] ?? 0;
	const columns = words[1] ?? 0;
	let score = 0;
	for (let p = 0; p < phrases; p++) {
		for (let c = 0; c < columns; c++) {
			score += termScore(words[2 + p * columns + c] ?? 0, withHit[p * columns + c] ?? 0, id, c, figures, weights);
		}
	}
	return score;
}

function termScore(hits: number, withHit: number, id: number, c: number, figures: Lengths, weights: readonly number[]): number {
	const weight = weights[c] ?? 1;
	if (hits === 0 || weight === 0) return 0;
	const idf = Math.log(1 + (figures.rows - withHit + 0.5) / (withHit + 0.5));
	const length = figures.lengths[3 * id + c] ?? 0;
	const average = Math.max(1, figures.average[c] ?? 1);
	return weight * idf * ((hits * (k1 + 1)) / (hits + k1 * (1 - b + (b * length) / average)));
}
