/**
 * The one rule for records that change: fold a subject's events in id order. Both directions use it
 * — recordEvents.ts to see what the tables hold that the events do not say yet, recordProjection.ts to
 * set the tables from the events — so two machines holding the same events hold the same state.
 */
import type { CheckpointAnnotation } from '../storage/jsonShapes';
import type { SharedEvent, Task } from '../storage/model';

/** The task columns a `task.changed` event may carry (everything but the id and its sequence number). */
export const taskFields = [
	'title',
	'description',
	'type',
	'status',
	'priority',
	'parentId',
	'phase',
	'createdAt',
	'updatedAt',
	'completedAt',
	'createdBySession',
	'completedBySession',
] as const;
type TaskFields = Partial<Pick<Task, (typeof taskFields)[number]>>;

type EventLike = Pick<SharedEvent, 'kind' | 'subject' | 'body'> & Partial<Pick<SharedEvent, 'id'>>;

export function groupBySubject<E extends EventLike>(events: readonly E[]): Map<string, E[]> {
	const sorted = [...events].sort((a, b) => ((a.id ?? '') < (b.id ?? '') ? -1 : 1));
	const map = new Map<string, E[]>();
	for (const e of sorted) {
		const list = map.get(e.subject) ?? [];
		list.push(e);
		map.set(e.subject, list);
	}
	return map;
}

/** A task's fields: each `task.changed` event sets the fields it names, later ids over earlier ones. */
export function foldTask(events: readonly EventLike[]): TaskFields {
	const out: Record<string, unknown> = {};
	for (const e of events) {
		if (e.kind !== 'task.changed') {
			continue;
		}
		for (const field of taskFields) {
			if (field in e.body) {
				out[field] = e.body[field] ?? null;
			}
		}
	}
	return out as TaskFields;
}

/** A shared checkpoint's tags and annotations: its recording's, then each `checkpoint.labels` change in id order. */
export function foldLabels(events: readonly EventLike[]): { tags: string[]; annotations: CheckpointAnnotation[] } {
	let tags: string[] = [];
	const annotations: CheckpointAnnotation[] = [];
	const addAnnotations = (list: unknown): void => {
		for (const a of Array.isArray(list) ? (list as CheckpointAnnotation[]) : []) {
			if (a && typeof a.text === 'string' && !annotations.some((h) => h.at === a.at && h.user === a.user && h.text === a.text)) {
				annotations.push({ at: String(a.at), user: String(a.user), text: a.text });
			}
		}
	};
	for (const e of events) {
		if (e.kind === 'checkpoint.recorded') {
			tags = strings(e.body['tags']);
			addAnnotations(e.body['annotations']);
		} else if (e.kind === 'checkpoint.labels') {
			const remove = strings(e.body['removeTags']);
			tags = tags.filter((t) => !remove.includes(t));
			for (const t of strings(e.body['addTags'])) {
				if (!tags.includes(t)) {
					tags.push(t);
				}
			}
			addAnnotations(e.body['annotations']);
		}
	}
	return { tags, annotations };
}

/**
 * How many times a fact has been confirmed: every recording of it (two machines may record the same
 * fact, by kind and fingerprint, under two ids) and every confirmation of any of those ids. Counted
 * for all facts at once, keyed by `memoryKey`.
 */
export function memoryConfirmations(events: ReadonlyMap<string, readonly EventLike[]>): Map<string, number> {
	const counts = new Map<string, number>();
	for (const list of events.values()) {
		const fact = list.find((e) => e.kind === 'memory.fact');
		if (fact) {
			const key = memoryKey(fact.body['kind'], fact.body['fingerprint']);
			counts.set(key, (counts.get(key) ?? 0) + 1 + list.filter((e) => e.kind === 'memory.confirmed').length);
		}
	}
	return counts;
}

export function memoryKey(kind: unknown, fingerprint: unknown): string {
	return `${String(kind)}\u0000${String(fingerprint)}`;
}

function strings(value: unknown): string[] {
	return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
