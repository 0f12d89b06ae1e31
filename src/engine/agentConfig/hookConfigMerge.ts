/**
 * Merging Baton's hook entries into an agent's own hook configuration without disturbing anything
 * else: the user's hooks stay where they are, in their order; Baton's entry of an event is updated
 * in place, added at the end when missing, and removed (with the groups and keys it alone filled)
 * by `remove`. Pure functions over parsed JSON; connectAgent.ts does the files.
 *
 * - Claude Code (`.claude/settings.json`): `{"hooks":{"<Event>":[{"matcher"?,"hooks":[{"type":"command","command","timeout"}]}]}}`.
 * - VS Code / Copilot (`.github/hooks/*.json`): `{"hooks":{"<Event>":[{"type":"command","command","timeout"}]}}`.
 */
import { BatonError } from '../errors';
import { isBatonHookUrl } from './hookEndpoint';
import { portableHookCommand } from './userLauncher';

export interface HookSpec {
	/** The agent's event name (`SessionStart`, `PreToolUse`, …). */
	event: string;
	command: string;
	timeout: number;
	/** Claude Code only: which tools (or sources) the entry applies to. */
	matcher?: string;
	/** Claude Code only: an `http` hook to this URL with these headers instead of the command (`command` is then unused). */
	http?: { url: string; headers: Record<string, string> };
}

type Json = Record<string, unknown>;

/**
 * A command Baton wrote: `baton hook …`, `"…/baton" hook …`, `"node" "…/cli.js" hook …`, or the
 * command this installation writes now (`prefix`), whatever its script is called.
 */
export function isBatonHookCommand(command: unknown, prefix?: string): boolean {
	if (typeof command !== 'string') {
		return false;
	}
	return (
		(!!prefix && command.startsWith(`${prefix} hook `)) ||
		command.startsWith(`${portableHookCommand} hook `) ||
		/(?:^|[\s"'/\\])(?:baton(?:\.cmd|\.exe)?|cli\.js)["']?\s+hook(?:\s|$)/.test(command)
	);
}

/** The command prefix of Baton's specs (they all read `<prefix> hook <event>`). */
function prefixOf(specs: readonly HookSpec[]): string | undefined {
	const command = specs[0]?.command;
	const at = command?.lastIndexOf(' hook ') ?? -1;
	return command && at > 0 ? command.slice(0, at) : undefined;
}

function isObject(value: unknown): value is Json {
	return !!value && typeof value === 'object' && !Array.isArray(value);
}

function hooksObject(settings: unknown, file: string): { root: Json; hooks: Json } {
	if (!isObject(settings)) {
		throw new BatonError('configInvalid', `${file} does not hold a JSON object; Baton changed nothing`);
	}
	const hooks = settings['hooks'] ?? {};
	if (!isObject(hooks)) {
		throw new BatonError('configInvalid', `${file}: "hooks" is not an object; Baton changed nothing`);
	}
	for (const [event, list] of Object.entries(hooks)) {
		if (!Array.isArray(list) || !list.every(isObject)) {
			throw new BatonError('configInvalid', `${file}: hooks.${event} is not a list of objects; Baton changed nothing`);
		}
	}
	return { root: settings, hooks };
}

/** Claude's settings with Baton's entries set (or removed): a new object, the input untouched. */
export function mergeClaudeHooks(settings: unknown, specs: readonly HookSpec[], options: { remove: boolean; file: string }): Json {
	const { root, hooks } = hooksObject(structuredClone(settings), options.file);
	for (const [event, groups] of Object.entries(hooks) as [string, Json[]][]) {
		for (const group of groups) {
			if (group['hooks'] !== undefined && !(Array.isArray(group['hooks']) && group['hooks'].every(isObject))) {
				throw new BatonError(
					'configInvalid',
					`${options.file}: a hooks.${event} entry has a "hooks" that is not a list of objects; Baton changed nothing`,
				);
			}
		}
	}
	const wanted = new Map(options.remove ? [] : specs.map((s) => [s.event, s]));
	const prefix = prefixOf(specs);
	// Baton's entry: its command, or an http hook to its endpoint (a per-machine file: docs/daemon.md, "HTTP hooks").
	const isBatonEntry = (h: Json): boolean => isBatonHookCommand(h['command'], prefix) || (h['type'] === 'http' && isBatonHookUrl(h['url']));
	for (const event of new Set([...Object.keys(hooks), ...wanted.keys()])) {
		const groups = (hooks[event] as Json[] | undefined) ?? [];
		const spec = wanted.get(event);
		const entry = spec
			? spec.http
				? { type: 'http', url: spec.http.url, headers: spec.http.headers, timeout: spec.timeout }
				: { type: 'command', command: spec.command, timeout: spec.timeout }
			: undefined;
		let placed = false;
		const next: Json[] = [];
		for (const group of groups) {
			const inner = (group['hooks'] as Json[] | undefined) ?? [];
			const ours = inner.filter(isBatonEntry);
			if (ours.length === 0) {
				next.push(group);
				continue;
			}
			const theirs = inner.filter((h) => !isBatonEntry(h));
			if (entry && spec && !placed) {
				placed = true;
				if (theirs.length === 0) {
					// A group of Baton's own: it takes Baton's current matcher.
					const { matcher: _old, hooks: _hooks, ...rest } = group;
					next.push({ ...(spec.matcher !== undefined ? { matcher: spec.matcher } : {}), ...rest, hooks: [entry] });
				} else {
					// The user put Baton's command in a group of theirs: update it there, keep their matcher.
					const at = inner.indexOf(ours[0] as Json);
					next.push({ ...group, hooks: inner.filter((h, i) => i === at || !isBatonEntry(h)).map((h, i) => (i === at ? entry : h)) });
				}
			} else if (theirs.length > 0) {
				next.push({ ...group, hooks: theirs });
			}
		}
		if (entry && spec && !placed) {
			next.push({ ...(spec.matcher !== undefined ? { matcher: spec.matcher } : {}), hooks: [entry] });
		}
		setOrDelete(hooks, event, next);
	}
	return finish(root, hooks);
}

/** VS Code's hook file with Baton's entries set (or removed). */
export function mergeCopilotHooks(config: unknown, specs: readonly HookSpec[], options: { remove: boolean; file: string }): Json {
	const { root, hooks } = hooksObject(structuredClone(config), options.file);
	const wanted = new Map(options.remove ? [] : specs.map((s) => [s.event, s]));
	const prefix = prefixOf(specs);
	for (const event of new Set([...Object.keys(hooks), ...wanted.keys()])) {
		const entries = (hooks[event] as Json[] | undefined) ?? [];
		const spec = wanted.get(event);
		let placed = false;
		const next: Json[] = [];
		for (const item of entries) {
			if (!isBatonHookCommand(item['command'], prefix)) {
				next.push(item);
			} else if (spec && !placed) {
				placed = true;
				next.push({ ...item, type: 'command', command: spec.command, timeout: spec.timeout });
			}
		}
		if (spec && !placed) {
			next.push({ type: 'command', command: spec.command, timeout: spec.timeout });
		}
		setOrDelete(hooks, event, next);
	}
	return finish(root, hooks);
}

/**
 * Copilot CLI's and the Copilot cloud agent's hook file (`version: 1`, camelCase events,
 * `{"type":"command","bash","powershell","timeoutSec"}`) with Baton's entries set (or removed).
 */
export function mergeCopilotCliHooks(config: unknown, specs: readonly HookSpec[], options: { remove: boolean; file: string }): Json {
	const { root, hooks } = hooksObject(structuredClone(config), options.file);
	if (root['version'] !== undefined && root['version'] !== 1) {
		throw new Error(`${options.file}: version ${JSON.stringify(root['version'])} is not the version 1 hook format Baton writes`);
	}
	const wanted = new Map(options.remove ? [] : specs.map((s) => [s.event, s]));
	const prefix = prefixOf(specs);
	const ours = (item: Json): boolean => isBatonHookCommand(item['bash'], prefix) || isBatonHookCommand(item['powershell'], prefix);
	for (const event of new Set([...Object.keys(hooks), ...wanted.keys()])) {
		const spec = wanted.get(event);
		const entry = spec ? { type: 'command', bash: spec.command, powershell: spec.command, timeoutSec: spec.timeout } : undefined;
		const next: Json[] = [];
		let placed = false;
		for (const item of (hooks[event] as Json[] | undefined) ?? []) {
			if (!ours(item)) {
				next.push(item);
			} else if (entry && !placed) {
				placed = true;
				next.push({ ...item, ...entry });
			}
		}
		if (entry && !placed) {
			next.push(entry);
		}
		setOrDelete(hooks, event, next);
	}
	if (Object.keys(hooks).length > 0) {
		root['version'] = 1;
	}
	return finish(root, hooks);
}

function setOrDelete(hooks: Json, event: string, list: Json[]): void {
	if (list.length > 0) {
		hooks[event] = list;
	} else {
		delete hooks[event];
	}
}

/** Puts `hooks` back (a new key goes last), or removes it when nothing is left in it. */
function finish(root: Json, hooks: Json): Json {
	if (Object.keys(hooks).length > 0) {
		root['hooks'] = hooks;
	} else {
		delete root['hooks'];
	}
	return root;
}
