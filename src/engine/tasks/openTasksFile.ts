/**
 * The briefing's open tasks kept between processes (`.baton/cache/open-tasks`): the rows `openTasksOf`
 * reads from SQLite — the open tasks and the closed ones on their parent chains, the dependencies
 * they reach, the done tasks under each — saved under the content mark of the task tables
 * (storage/tableVersions.ts: the store's generation and the last record that wrote them, the same
 * in every process). A fresh process whose tables carry that mark reads them from here instead (at
 * 84,000 open tasks: the file's read and parse instead of 0.6 s of SQLite); any other mark, or a file
 * that is cut short, damaged or of another format (storage/cacheFile.ts), and it reads the store.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Places } from '../arrays';
import { readCacheFile, writeCacheFile, type CacheKind } from '../storage/cacheFile';
import { readAll } from '../storage/fsUtil';
import { openRegularFile } from '../storage/regularFile';
import { batonDir } from '../workspace';
import type { TaskNode } from './taskGraph';

/** What a briefing's graph of the open tasks is built from. */
export interface OpenTaskSources {
	/** Titles are '' (a briefing reads the few it shows by id). */
	nodes: TaskNode[];
	deps: { taskId: string; dependsOnId: string }[];
	/** Done tasks under each parent. */
	doneUnder: ReadonlyMap<string, number>;
}

/** Bumped whenever what the sources hold or how they are read changes. */
const kind: CacheKind = { magic: Buffer.from('BATONOPENTASKS\n\0', 'latin1'), format: 1, name: 'an open-tasks cache' };

export function openTasksFile(workspaceRoot: string): string {
	return path.join(batonDir(workspaceRoot), 'cache', 'open-tasks');
}

/** The saved sources when the file holds them for `mark`; otherwise why not (`stale`: another mark). */
export function readOpenTasks(file: string, mark: string): OpenTaskSources | { problem: string } {
	// A running process finds the file stale after each change of the tasks: its first line says so.
	if (beginsWithOtherMark(file, mark)) return { problem: 'stale' };
	const read = readCacheFile(file, kind);
	if ('problem' in read) return read;
	if (markOf(read.bytes) !== mark) return { problem: 'stale' };
	try {
		return sourcesOf(JSON.parse(read.bytes.toString('utf8', Buffer.byteLength(mark) + 1)) as unknown);
	} catch (error) {
		return { problem: `unreadable (${(error as Error).message})` };
	}
}

/** The mark the file holds its sources for, read from the file whole and checked (undefined: none to trust). */
export function savedMark(file: string): string | undefined {
	const read = readCacheFile(file, kind);
	return 'problem' in read ? undefined : markOf(read.bytes);
}

/** The mark on the first line of a file's bytes. */
function markOf(bytes: Buffer): string | undefined {
	const newline = bytes.indexOf(0x0a);
	return newline < 0 ? undefined : bytes.toString('utf8', 0, newline);
}

/** Whether the file begins with a whole line that is not `mark`, read alone; anything else (missing, short, not a file) is for the whole read to say. */
function beginsWithOtherMark(file: string, mark: string): boolean {
	const expected = Buffer.from(`${mark}\n`, 'utf8');
	let opened: { fd: number };
	try {
		opened = openRegularFile(file);
	} catch {
		return false;
	}
	try {
		const head = Buffer.alloc(expected.length);
		return readAll(opened.fd, head) === head.length && !head.equals(expected);
	} finally {
		fs.closeSync(opened.fd);
	}
}

/** Saves the sources under `mark`; false (nothing written) when an id holds a newline, which the file's id column cannot. */
export function writeOpenTasks(file: string, mark: string, sources: OpenTaskSources): boolean {
	const columns = columnsOf(sources);
	if (!columns) return false;
	const body = JSON.stringify(columns);
	writeCacheFile(file, kind, [Buffer.from(`${mark}\n`, 'utf8'), Buffer.from(body, 'utf8')]);
	return true;
}

/**
 * The sources by column, as the file holds them: every id once, in one string (the tasks' first, then
 * the others the dependencies and done counts name), the rest numbers — an id by its place, a type,
 * status, priority or phase by its place among the file's words. Parsing a row of values per task took
 * 140-255 ms at 84,000 open tasks; numbers and one string parse in a fraction of that.
 */
interface Columns {
	/** The ids, joined by newlines (sources with an id that holds one are not saved). */
	ids: string;
	idCount: number;
	/** How many of `ids` are tasks of `nodes` (the first). */
	tasks: number;
	words: string[];
	seq: number[];
	type: number[];
	status: number[];
	priority: number[];
	/** An id's place, or -1. */
	parent: number[];
	/** A word's place, or -1. */
	phase: number[];
	depTask: number[];
	depOn: number[];
	doneParent: number[];
	doneCount: number[];
}

function columnsOf(sources: OpenTaskSources): Columns | undefined {
	const idPlaces = new Places<string>();
	const wordPlaces = new Places<string>();
	const ids = idPlaces.values;
	const words = wordPlaces.values;
	const idOf = (id: string): number => idPlaces.of(id);
	const wordOf = (word: string): number => wordPlaces.of(word);
	for (const node of sources.nodes) idOf(node.id);
	const out: Columns = {
		ids: '',
		idCount: 0,
		tasks: ids.length,
		words,
		seq: [],
		type: [],
		status: [],
		priority: [],
		parent: [],
		phase: [],
		depTask: [],
		depOn: [],
		doneParent: [],
		doneCount: [],
	};
	for (const node of sources.nodes) {
		out.seq.push(node.seq);
		out.type.push(wordOf(node.type));
		out.status.push(wordOf(node.status));
		out.priority.push(wordOf(node.priority));
		out.parent.push(node.parentId === null ? -1 : idOf(node.parentId));
		out.phase.push(node.phase === null ? -1 : wordOf(node.phase));
	}
	for (const dep of sources.deps) {
		out.depTask.push(idOf(dep.taskId));
		out.depOn.push(idOf(dep.dependsOnId));
	}
	for (const [parent, count] of sources.doneUnder) {
		out.doneParent.push(idOf(parent));
		out.doneCount.push(count);
	}
	if (ids.some((id) => id.includes('\n'))) return undefined;
	out.ids = ids.join('\n');
	out.idCount = ids.length;
	return out;
}

const isPlaces = (value: unknown, length: number): value is number[] => Array.isArray(value) && value.length === length;

/** The sources of a parsed file, every place checked (one out of range: the whole file is not used). */
function sourcesOf(parsed: unknown): OpenTaskSources {
	const c = (parsed ?? {}) as Partial<Columns>;
	if (typeof c.ids !== 'string' || typeof c.tasks !== 'number' || !Array.isArray(c.words) || !c.words.every((w) => typeof w === 'string')) {
		throw new Error('its ids or words are missing');
	}
	const ids = c.ids === '' ? [] : c.ids.split('\n');
	if (ids.length !== c.idCount) throw new Error(`it holds ${ids.length} ids of the ${String(c.idCount)} it says`);
	const words = c.words as string[];
	const n = c.tasks;
	if (n > ids.length || ![c.seq, c.type, c.status, c.priority, c.parent, c.phase].every((column) => isPlaces(column, n)))
		throw new Error('its task columns differ in length');
	if (!isPlaces(c.depTask, c.depOn?.length ?? -1) || !isPlaces(c.doneParent, c.doneCount?.length ?? -1))
		throw new Error('its dependency or done columns differ in length');
	const id = (at: unknown): string => {
		if (typeof at !== 'number' || !(at >= 0 && at < ids.length)) throw new Error(`an id's place ${String(at)} is out of range`);
		return ids[at] as string;
	};
	const word = (at: unknown): string => {
		if (typeof at !== 'number' || !(at >= 0 && at < words.length)) throw new Error(`a word's place ${String(at)} is out of range`);
		return words[at] as string;
	};
	const seq = c.seq as number[];
	const type = c.type as number[];
	const status = c.status as number[];
	const priority = c.priority as number[];
	const parent = c.parent as number[];
	const phase = c.phase as number[];
	const doneUnder = new Map<string, number>();
	const out: OpenTaskSources = { nodes: new Array<TaskNode>(n), deps: new Array<OpenTaskSources['deps'][number]>(c.depTask.length), doneUnder };
	for (let i = 0; i < n; i++) {
		if (typeof seq[i] !== 'number') throw new Error(`task ${i} has no number`);
		const parentAt = parent[i] as number;
		const phaseAt = phase[i] as number;
		out.nodes[i] = {
			id: ids[i] as string,
			seq: seq[i] as number,
			title: '',
			type: word(type[i]) as TaskNode['type'],
			status: word(status[i]) as TaskNode['status'],
			priority: word(priority[i]) as TaskNode['priority'],
			parentId: parentAt === -1 ? null : id(parentAt),
			phase: phaseAt === -1 ? null : word(phaseAt),
		};
	}
	const depOn = c.depOn as number[];
	for (let k = 0; k < c.depTask.length; k++) out.deps[k] = { taskId: id(c.depTask[k]), dependsOnId: id(depOn[k]) };
	const doneCount = c.doneCount as number[];
	for (let k = 0; k < c.doneParent.length; k++) {
		if (typeof doneCount[k] !== 'number') throw new Error('a done count is not a number');
		doneUnder.set(id(c.doneParent[k]), doneCount[k] as number);
	}
	return out;
}
