/**
 * Imports (issue 6, item 1): read → validate every record → plan → apply. A dry run plans inside a
 * read and writes nothing. A real run writes only when no record failed, all of it in one
 * `store.write`; the plan is computed again inside that write, so a change another process made in
 * between is taken into account (and can still stop the import).
 *
 * A backend that lives long (the workspace's daemon, an editor's backend) has a large file imported
 * in a process of its own (`inOwnProcess`, server/importProcess.ts): the batch, its plans and the
 * pages it writes take about 17 times the file's size (850 MB for a 50 MB CLEO database of 50,000
 * sessions), which a process gives back to the system only when it ends, and the backend keeps
 * answering while the import runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EngineContext } from '../context';
import { BatonError } from '../errors';
import { withoutNul } from '../text/controlChars';
import { readBeads } from './beadsReader';
import { readCleoDb } from './cleoDbReader';
import { configNotApplied, legacyConfigKey, readCleoSessions } from './cleoSessionsReader';
import { applyImport } from './importApplier';
import { planImport, type ImportPlan } from './importPlanner';
import { importFormats, zeroCounts, type ImportBatch, type ImportFormat, type ImportReport } from './importTypes';
import { readJsonSessions } from './jsonSessionsReader';

interface ImportInput {
	format: ImportFormat;
	path: string;
	dryRun: boolean;
	actor: string;
}

/** Runs an import (or its preview) in a process of its own and answers with its report. */
export type ImportProcess = (input: ImportInput) => Promise<ImportReport>;

/** From this size a host's `ImportProcess` imports the file (about 70 MB of memory for the import at 4 MB). */
const ownProcessFromBytes = 4 * 1024 * 1024;

/** The bytes an import of `file` reads: the file's size, or a folder's files' (Beads, JSON sessions); 0 when it names neither. */
function sourceBytes(file: string): number {
	try {
		const stat = fs.lstatSync(file);
		if (stat.isFile()) {
			return stat.size;
		}
		if (!stat.isDirectory()) {
			return 0;
		}
		let bytes = 0;
		for (const entry of fs.readdirSync(file, { withFileTypes: true }).slice(0, 10_000)) {
			if (entry.isFile()) {
				bytes += fs.lstatSync(path.join(file, entry.name)).size;
			}
		}
		return bytes;
	} catch {
		return 0;
	}
}

export function isImportFormat(value: string): value is ImportFormat {
	return (importFormats as readonly string[]).includes(value);
}

/** The file's records, with any NUL dropped from their text (a NUL means nothing in a name or a note). */
async function readImportBatch(format: ImportFormat, file: string): Promise<ImportBatch> {
	return withoutNul(await readBatch(format, file));
}

function readBatch(format: ImportFormat, file: string): ImportBatch | Promise<ImportBatch> {
	switch (format) {
		case 'cleo-sessions':
			return readCleoSessions(file);
		case 'cleo-db':
			return readCleoDb(file);
		case 'json-sessions':
			return readJsonSessions(file);
		case 'beads':
			return readBeads(file);
	}
}

/** Thrown inside the write to roll it back when the fresh plan found problems. */
class PlanRefused extends Error {
	constructor(readonly plan: ImportPlan) {
		super('import refused');
	}
}

export class ImportService {
	private elsewhere: { run: ImportProcess; fromBytes: number } | undefined;

	constructor(private readonly ctx: EngineContext) {}

	/** Imports of files of `fromBytes` or more run through `run` (a long-lived backend's own process stays small). */
	inOwnProcess(run: ImportProcess, fromBytes = ownProcessFromBytes): void {
		this.elsewhere = { run, fromBytes };
	}

	async run(input: ImportInput): Promise<ImportReport> {
		if (!isImportFormat(input.format)) {
			throw new BatonError('invalidInput', `unknown import format "${String(input.format)}" (one of ${importFormats.join(', ')})`);
		}
		const file = path.resolve(input.path);
		if (this.elsewhere && sourceBytes(file) >= this.elsewhere.fromBytes) {
			const report = await this.elsewhere.run({ ...input, path: file });
			if (!input.dryRun) {
				// What it wrote is read here before the answer: the caller's next read sees it.
				await this.ctx.store.refresh();
			}
			return report;
		}
		const batch = await readImportBatch(input.format, file);
		const answered = await this.previewAnswer(batch, input.dryRun);
		if (answered) {
			return answered;
		}
		try {
			const report = await this.ctx.store.write((db) => {
				const plan = planImport(db, batch);
				if (plan.errors.length > 0) {
					throw new PlanRefused(plan);
				}
				applyImport(db, plan, { now: this.ctx.nowIso(), actor: input.actor });
				return this.report(plan, false);
			});
			// An import is one bulk record: left in the journal, every process that opens the store next
			// replays it (56 s after a 10,000-session import, 0.3 s once compacted). It compacts before answering.
			if (this.ctx.store.needsCompaction()) {
				await this.ctx.store.compact();
			}
			return report;
		} catch (error) {
			if (error instanceof PlanRefused) {
				return this.report(error.plan, false);
			}
			throw error;
		}
	}

	/**
	 * The report when the preview is the answer: a dry run, a refusal, or nothing new (a repeated
	 * import writes nothing at all, not even an audit entry). Its own method so that the preview is let
	 * go before the write plans again: an async function's locals live across its awaits, and at 50,000
	 * sessions a plan is ~150 MB the write would otherwise hold besides its own.
	 */
	private async previewAnswer(batch: ImportBatch, dryRun: boolean): Promise<ImportReport | undefined> {
		const preview = await this.ctx.store.read((db) => planImport(db, batch));
		if (dryRun || preview.errors.length > 0 || Object.values(preview.added).every((n) => n === 0)) {
			return this.report(preview, dryRun);
		}
		return undefined;
	}

	/** The report, saying which imported CLEO limits Baton does not apply (its own come from its config). */
	private report(plan: ImportPlan, dryRun: boolean): ImportReport {
		// A refused import adds nothing: its counts say so (a preview still counts what it would add).
		const added = plan.errors.length > 0 && !dryRun ? zeroCounts() : plan.added;
		const legacy = plan.settings.find((s) => s.key === legacyConfigKey);
		const notApplied = legacy ? configNotApplied(legacy.value as Record<string, unknown>, this.ctx.config as unknown as Record<string, unknown>) : null;
		const warnings = notApplied && legacy ? [...plan.warnings, { record: legacy.record, field: null, message: notApplied }] : plan.warnings;
		return { dryRun, source: plan.batch.source, path: plan.batch.path, added, unchanged: plan.unchanged, errors: plan.errors, warnings };
	}
}
