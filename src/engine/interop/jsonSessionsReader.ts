/**
 * `json-sessions`: a folder of JSON session files with an `index.json` (seed 004; Baton's exports).
 * Only files the index lists are read, and only under names that pass the safe-name rules: an entry
 * like `../../etc/passwd` is an error naming the entry, never a path that is opened.
 */
import path from 'node:path';
import { isSessionId } from '../ids';
import type { ImportBatch, ImportedSession, ImportIssue } from './importTypes';
import { check, contentHash, toIso } from './recordCheck';
import { unsafeFileReason, unsafeNameReason } from './safeNames';
import { batonSessionBlockSchema, indexEntrySchema, indexFileName, indexSchema, sessionFileSchema, type SessionFile } from './sessionFileFormat';
import { derivedSessionId, handoffData, sessionRow } from './sessionRows';
import { isDirectory, readJsonFile } from './sourceFiles';
import { clip } from '../text/clip';

export function readJsonSessions(input: string): ImportBatch {
	const folder = path.basename(input) === indexFileName && !isDirectory(input) ? path.dirname(input) : input;
	const batch: ImportBatch = { source: 'json-sessions', path: folder, tasks: [], sessions: [], settings: [], taskRefSource: null, errors: [] };
	const errors = batch.errors;
	if (!isDirectory(folder)) {
		errors.push({ record: folder, field: null, message: 'not a folder: json-sessions imports a folder holding index.json and one .json file per session' });
		return batch;
	}
	const index = check(indexSchema, readJsonFile(path.join(folder, indexFileName), indexFileName, errors), indexFileName, errors);
	if (!index) {
		return batch;
	}
	const seenFiles = new Map<string, string>();
	const seenIds = new Map<string, string>();
	index.sessions.forEach((raw, i) => {
		const name = raw && typeof raw === 'object' && typeof (raw as { name?: unknown }).name === 'string' ? (raw as { name: string }).name : '?';
		const entryRecord = `${indexFileName} sessions[${i}] (${name})`;
		const entry = check(indexEntrySchema, raw, entryRecord, errors);
		if (!entry) return;
		const nameProblem = unsafeNameReason(entry.name);
		if (nameProblem) {
			errors.push({ record: entryRecord, field: 'name', message: nameProblem });
			return;
		}
		const file = entry.file ?? `${entry.name}.json`;
		const fileProblem = unsafeFileReason(file);
		if (fileProblem) {
			errors.push({ record: entryRecord, field: 'file', message: fileProblem });
			return;
		}
		const earlier = seenFiles.get(file.toLowerCase());
		if (earlier) {
			errors.push({ record: entryRecord, field: entry.file ? 'file' : 'name', message: `duplicate of ${earlier}` });
			return;
		}
		seenFiles.set(file.toLowerCase(), `sessions[${i}]`);
		const record = `sessions[${i}] (${file})`;
		const content = readJsonFile(path.join(folder, file), record, errors, 'file');
		if (content === undefined) return;
		const parsed = check(sessionFileSchema, content, record, errors);
		if (!parsed) return;
		if (parsed.name !== entry.name) {
			errors.push({
				record,
				field: 'name',
				message: `expected "${entry.name}" (its index entry), got ${JSON.stringify(parsed.name.length > 60 ? `${parsed.name.slice(0, 57)}…` : parsed.name)}${parsed.name.length > 60 ? ` (${parsed.name.length} characters)` : ''}`,
			});
			return;
		}
		const imported = parsed.baton !== undefined ? fromBatonBlock(parsed.baton, record, errors) : fromSeedFile(parsed, record, errors);
		if (!imported) return;
		const duplicate = seenIds.get(imported.session.id);
		if (duplicate) {
			errors.push({
				record,
				field: parsed.baton !== undefined ? 'baton.session.id' : 'name',
				message: `session ${imported.session.id} is also in ${duplicate}`,
			});
			return;
		}
		seenIds.set(imported.session.id, record);
		batch.sessions.push(imported);
	});
	return batch;
}

function fromBatonBlock(raw: unknown, record: string, errors: ImportIssue[]): ImportedSession | undefined {
	const block = check(batonSessionBlockSchema, raw, record, errors, 'baton');
	if (!block) return undefined;
	const { session } = block;
	let ok = true;
	if (!isSessionId(session.id)) {
		errors.push({ record, field: 'baton.session.id', message: `"${session.id}" is not a session id (ses_YYYYMMDDHHmmss_xxxxxx or a CLEO legacy id)` });
		ok = false;
	}
	block.decisions.forEach((d, k) => {
		if (d.sessionId !== session.id) {
			errors.push({
				record,
				field: `baton.decisions[${k}].sessionId`,
				message: `expected ${session.id} (the session of this file), got ${d.sessionId ?? 'null'}`,
			});
			ok = false;
		}
	});
	if (!ok) return undefined;
	return {
		record,
		externalId: session.id,
		contentHash: contentHash(block),
		session,
		handoff: block.handoff,
		decisions: block.decisions.map((d, k) => ({ ...d, record: `${record} decisions[${k}]` })),
		aliases: block.aliases,
	};
}

/** A file of the tool seed 004 describes: an ended conversation, its first request kept as the handoff note. */
function fromSeedFile(file: SessionFile, record: string, errors: ImportIssue[]): ImportedSession | undefined {
	const startedAt = toIso(file.created_at);
	const endedAt = toIso(file.updated_at);
	if (!startedAt) errors.push({ record, field: 'created_at', message: `not a timestamp (got "${file.created_at}")` });
	if (!endedAt) errors.push({ record, field: 'updated_at', message: `not a timestamp (got "${file.updated_at}")` });
	if (!startedAt || !endedAt) return undefined;
	const messages = file.message_count ?? file.thread?.messages?.length ?? 0;
	const session = sessionRow({
		id: derivedSessionId(startedAt, `json-sessions:${file.name}`),
		name: clip(file.description?.trim() || file.name, 200),
		status: 'ended',
		startedAt,
		endedAt,
		lastActivity: endedAt,
		endNote: `Imported from a JSON session file (${file.name}.json)`,
	});
	const note = [
		`Imported conversation "${file.name}" (${messages} message${messages === 1 ? '' : 's'}).`,
		file.first_message ? `First request: ${clip(file.first_message, 500)}` : '',
	]
		.filter(Boolean)
		.join(' ');
	return {
		record,
		externalId: file.name,
		contentHash: contentHash(file),
		session,
		handoff: { data: handoffData({ note }), createdAt: endedAt },
		decisions: [],
		aliases: [],
	};
}
