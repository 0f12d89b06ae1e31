export interface BenchRow {
	name: string;
	/** Median milliseconds. */
	ours: number;
	oursP99: number;
	baseline: number;
	baselineName: string;
	/** ours ÷ baseline (median of per-pair ratios where runs alternate). */
	ratio: number;
	target: string;
	/** Set when the row has a checkable target: false prints FAILED next to it. */
	passed?: boolean;
	/** What the figures count (milliseconds unless said). */
	unit?: 'ms' | 'bytes';
}

export function median(values: number[]): number {
	return percentile(values, 50);
}

export function percentile(values: number[], p: number): number {
	if (values.length === 0) {
		return Number.NaN;
	}
	const sorted = [...values].sort((a, b) => a - b);
	const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
	return sorted[index] as number;
}

export function formatTable(rows: BenchRow[]): string {
	const header = ['benchmark', 'Baton median', 'p99', 'baseline', 'baseline median', 'ratio', 'target'];
	const body = rows.map((r) => [
		r.name,
		figure(r.ours, r.unit),
		figure(r.oursP99, r.unit),
		r.baselineName,
		figure(r.baseline, r.unit),
		Number.isFinite(r.ratio) ? `${r.ratio.toFixed(2)}×` : '—',
		r.passed === false ? `FAILED (${r.target})` : r.target,
	]);
	return [header, header.map(() => '---'), ...body].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

function figure(value: number, unit: BenchRow['unit'] = 'ms'): string {
	// A figure a row does not have (no p99 from a p95-only row, no baseline) prints as a dash, not 'NaN ms'.
	if (!Number.isFinite(value)) {
		return '—';
	}
	if (unit === 'bytes') {
		return `${Math.round(value).toLocaleString('en-US')} B`;
	}
	return `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;
}

/** `--sessions 1000,10000 --rounds 3` of a bench run on its own (defaults: 1,000 and 10,000 sessions, 3 rounds). */
export function sizesAndRounds(argv: readonly string[] = process.argv): { sizes: number[]; rounds: number } {
	const arg = (name: string): string | undefined => {
		const at = argv.indexOf(name);
		return at > 0 ? argv[at + 1] : undefined;
	};
	return { sizes: (arg('--sessions') ?? '1000,10000').split(',').map(Number), rounds: Number(arg('--rounds') ?? 3) };
}

/** The row of a measurement that could not be taken: FAILED, saying why (the first line of the error). */
export function failedRow(name: string, error: unknown, target: string): BenchRow {
	return {
		name: `${name}: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`,
		ours: Number.NaN,
		oursP99: Number.NaN,
		baseline: Number.NaN,
		baselineName: '—',
		ratio: Number.NaN,
		target,
		passed: false,
	};
}
