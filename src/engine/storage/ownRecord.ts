/**
 * Objects keyed by names that come from outside (model names in transcripts, transcript ids from file
 * names, remote names): without a prototype, so `__proto__`, `constructor` or `toString` are keys like
 * any other. On a plain object, reading `constructor` finds Object itself and assigning `__proto__`
 * sets the prototype — a lost entry, or a write into Object.prototype for the whole process.
 */
import { z } from 'zod';

/** An empty object without a prototype. */
export function ownMap<T>(): Record<string, T> {
	return Object.create(null) as Record<string, T>;
}

/**
 * zod's record, read by own key into an object without a prototype (zod's own record assigns into a
 * plain `{}`, where a `__proto__` key sets the prototype and is gone).
 */
export function ownRecord<T extends z.ZodType>(value: T) {
	return z
		.custom<Record<string, z.input<T>>>((raw) => raw !== null && typeof raw === 'object' && !Array.isArray(raw), { message: 'expected an object' })
		.transform((raw, ctx) => {
			const out = ownMap<z.output<T>>();
			for (const [key, item] of Object.entries(raw)) {
				const parsed = value.safeParse(item);
				if (!parsed.success) {
					for (const issue of parsed.error.issues) {
						ctx.addIssue({ code: 'custom', message: issue.message, path: [key, ...issue.path] });
					}
					return z.NEVER;
				}
				out[key] = parsed.data;
			}
			return out;
		});
}
