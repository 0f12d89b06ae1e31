/**
 * `beads`: Beads' `issues.jsonl`, one issue per line, as tasks. Status,
 * type and priority (0 = critical … 4) are mapped onto Baton's sets; a `parent-child` dependency (or a
 * `parent.N` id) gives the parent; `blocks`, `conditional-blocks` and `waits-for` become dependencies;
 * other relations, design notes, acceptance criteria, labels and the assignee are kept in the
 * description so nothing the issue said is lost.
 *
 * Unfamiliar is not malformed: a type Baton does not know (Gas Town's `agent`, `convoy`, …) is
 * imported as a task with its type in the description, and a second parent is kept as a link; both
 * with a warning. Fields Baton has no place for are kept verbatim on the import record.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Task } from '../storage/model';
import type { ImportBatch, ImportedTask, TaskRef } from './importTypes';
import { check, contentHash, foreignTime, unknownFields } from './recordCheck';
import { isDirectory, parseJsonText, readSourceText } from './sourceFiles';

const statusMap = {
	open: 'pending',
	in_progress: 'active',
	blocked: 'blocked',
	deferred: 'pending',
	closed: 'done',
	pinned: 'pending',
	hooked: 'active',
	tombstone: 'cancelled',
} as const;
const typeMap = {
	bug: 'bug',
	feature: 'task',
	task: 'task',
	epic: 'epic',
	chore: 'task',
	decision: 'task',
	message: 'task',
	molecule: 'task',
	gate: 'task',
	spike: 'task',
	story: 'task',
	milestone: 'epic',
} as const;
const priorities: readonly Task['priority'][] = ['critical', 'high', 'medium', 'low', 'low'];
const blocking = new Set(['blocks', 'conditional-blocks', 'waits-for']);

const issueSchema = z.object({
	id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'not a Beads id (letters, digits, . _ -)'),
	title: z.string().trim().min(1).max(500),
	description: z.string().nullish(),
	design: z.string().nullish(),
	acceptance_criteria: z.string().nullish(),
	notes: z.string().nullish(),
	status: z.enum(Object.keys(statusMap) as [keyof typeof statusMap]),
	priority: z.number().int().min(0).max(4),
	issue_type: z
		.string()
		.regex(/^[a-z][a-z0-9_-]{0,63}$/, 'not a Beads issue type (lower-case letters, digits, _ -)')
		.nullish(),
	parent: z.string().min(1).nullish(),
	assignee: z.string().nullish(),
	labels: z.array(z.string()).nullish(),
	created_at: foreignTime,
	updated_at: foreignTime.nullish(),
	closed_at: foreignTime.nullish(),
	close_reason: z.string().nullish(),
	dependencies: z.array(z.object({ issue_id: z.string().nullish(), depends_on_id: z.string().min(1), type: z.string().min(1) })).nullish(),
});
type Issue = z.output<typeof issueSchema>;
const knownFields = new Set(Object.keys(issueSchema.shape));
const dependencyFields = new Set(['issue_id', 'depends_on_id', 'type']);

/** `PATH` is the `issues.jsonl` file, or a folder holding it (directly or in `.beads/`). */
function resolveBeadsFile(input: string): string {
	if (!isDirectory(input)) return input;
	const direct = path.join(input, 'issues.jsonl');
	return isDirectory(path.join(input, '.beads')) && !fs.existsSync(direct) ? path.join(input, '.beads', 'issues.jsonl') : direct;
}

export function readBeads(input: string): ImportBatch {
	const file = resolveBeadsFile(input);
	const batch: ImportBatch = { source: 'beads', path: file, tasks: [], sessions: [], settings: [], taskRefSource: null, errors: [] };
	const text = readSourceText(file, 'issues.jsonl', batch.errors);
	if (text === undefined) return batch;
	const byId = new Map<string, ImportedTask>();
	text.split('\n').forEach((rawLine, i) => {
		const line = rawLine.replace(/\r$/, '');
		if (!line.trim()) return;
		let record = `line ${i + 1}`;
		const raw = parseJsonText(line, record, batch.errors);
		if (raw === undefined) return;
		if (raw && typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'string') record += ` (${(raw as { id: string }).id})`;
		const issue = check(issueSchema, raw, record, batch.errors);
		if (!issue) return;
		const earlier = byId.get(issue.id);
		if (earlier) {
			batch.errors.push({ record, field: 'id', message: `duplicate of ${earlier.record}` });
			return;
		}
		const task = toTask(issue, record, raw, batch);
		if (!task) return;
		byId.set(issue.id, task);
		batch.tasks.push(task);
	});
	// Hierarchical ids (`bd-a1b2.1` is a child of `bd-a1b2`) name the parent when no dependency does.
	for (const task of batch.tasks) {
		const dot = task.externalId.lastIndexOf('.');
		if (!task.parent && dot > 0 && byId.has(task.externalId.slice(0, dot))) {
			task.parent = { id: task.externalId.slice(0, dot), record: task.record, field: 'id' };
		}
	}
	return batch;
}

function toTask(issue: Issue, record: string, raw: unknown, batch: ImportBatch): ImportedTask | undefined {
	const warnings = (batch.warnings ??= []);
	// Beads' own `parent` field names the parent it shows; other `parent-child` links are kept as links.
	let parent: TaskRef | null = issue.parent && issue.parent !== issue.id ? { id: issue.parent, record, field: 'parent' } : null;
	const dependsOn: TaskRef[] = [];
	const related: string[] = [];
	let ok = true;
	(issue.dependencies ?? []).forEach((d, k) => {
		const field = `dependencies[${k}]`;
		if (d.issue_id && d.issue_id !== issue.id) {
			batch.errors.push({ record, field: `${field}.issue_id`, message: `expected ${issue.id} (this issue), got ${d.issue_id}` });
			ok = false;
		} else if (d.depends_on_id === issue.id) {
			batch.errors.push({ record, field: `${field}.depends_on_id`, message: 'an issue cannot depend on itself' });
			ok = false;
		} else if (d.type === 'parent-child') {
			if (!parent) {
				parent = { id: d.depends_on_id, record, field: `${field}.depends_on_id` };
			} else if (parent.id !== d.depends_on_id) {
				warnings.push({
					record,
					field: `${field}.depends_on_id`,
					message: `a second parent (${d.depends_on_id}; the first is ${parent.id}); Baton keeps one parent, so this one is kept as a link in the description`,
				});
				related.push(`second parent ${d.depends_on_id}`);
			}
		} else if (blocking.has(d.type)) {
			dependsOn.push({ id: d.depends_on_id, record, field: `${field}.depends_on_id` });
		} else {
			related.push(`${d.type} ${d.depends_on_id}`);
		}
	});
	if (!ok) return undefined;
	const mappedType = issue.issue_type && issue.issue_type in typeMap ? typeMap[issue.issue_type as keyof typeof typeMap] : undefined;
	if (issue.issue_type && !mappedType) {
		warnings.push({
			record,
			field: 'issue_type',
			message: `type ${issue.issue_type} is not one Baton knows; imported as a task, with its type in the description`,
		});
	}
	const details = [
		issue.issue_type && !mappedType ? `type ${issue.issue_type}` : '',
		issue.assignee ? `assignee ${issue.assignee}` : '',
		issue.labels?.length ? `labels ${issue.labels.join(', ')}` : '',
		issue.close_reason ? `closed: ${issue.close_reason}` : '',
		related.length ? `related: ${related.join(', ')}` : '',
	].filter(Boolean);
	const description = [
		issue.description?.trim() ?? '',
		issue.design?.trim() ? `## Design\n${issue.design.trim()}` : '',
		issue.acceptance_criteria?.trim() ? `## Acceptance criteria\n${issue.acceptance_criteria.trim()}` : '',
		issue.notes?.trim() ? `## Notes\n${issue.notes.trim()}` : '',
		details.length ? `Beads: ${details.join('; ')}` : '',
	]
		.filter(Boolean)
		.join('\n\n');
	const status = statusMap[issue.status];
	return {
		record,
		externalId: issue.id,
		contentHash: contentHash(raw),
		preferredId: null,
		title: issue.title,
		description: description || null,
		type: mappedType ?? 'task',
		status,
		priority: priorities[issue.priority] ?? 'medium',
		phase: null,
		parent,
		dependsOn,
		createdAt: issue.created_at,
		updatedAt: issue.updated_at ?? issue.created_at,
		completedAt: status === 'done' ? (issue.closed_at ?? issue.updated_at ?? issue.created_at) : null,
		extra: extraFields(raw),
	};
}

/** Unmapped fields verbatim; the dependency list too when its entries carry more than Baton maps (who, when, metadata). */
function extraFields(raw: unknown): Record<string, unknown> | null {
	const rest = unknownFields(raw, knownFields) ?? {};
	const deps = (raw as { dependencies?: unknown }).dependencies;
	const richer = Array.isArray(deps) && deps.some((d) => d && typeof d === 'object' && unknownFields(d, dependencyFields));
	const extra = richer ? { ...rest, dependencies: deps } : rest;
	return Object.keys(extra).length ? extra : null;
}
