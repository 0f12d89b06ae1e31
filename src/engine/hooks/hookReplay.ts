/**
 * No tool call lost when Claude Code's http hooks found no backend (docs/daemon.md, "HTTP hooks"):
 * Claude treats a refused or timed-out http hook as a non-blocking error and goes on, so the event
 * is gone on its side. Its transcript still has every call. At the end of each turn the Stop hook —
 * a command hook, which starts the backend — reads the turn's tool calls from the transcript and
 * runs a PostToolUse for each one whose PostToolUse was never recorded (the same id a live event
 * would have: the hook host's hookOnce.ts), in order, before the turn's own end is recorded. A replayed call
 * takes the files changed since the last capture, so a run of calls missed together shows its files
 * in the first of them, as the timeline already does for a call whose result never came.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { HookEvent } from '../hookEvent';
import { normaliseHookPayload } from './normaliseHookPayload';
import { isCapturedTool } from '../timeline/timelineTools';
import { hookEventId } from './hookClaims';
import { openRegularFile } from '../storage/regularFile';

/** How much of the transcript's end is read: a turn's calls are near it. */
const tailBytes = 8 * 1024 * 1024;

interface ToolCall {
	id: string;
	name: string;
	input: unknown;
	response: unknown;
	failed: boolean;
}

/** The calls of the transcript's last turn (after its last prompt), in order, with their results. */
function lastTurnCalls(transcriptPath: string): ToolCall[] {
	let text: string;
	try {
		// A regular file only: a FIFO would block the open and a device never end (regularFile.ts).
		const { fd, stat } = openRegularFile(transcriptPath);
		try {
			const size = stat.size;
			const start = Math.max(0, size - tailBytes);
			const buffer = Buffer.alloc(size - start);
			fs.readSync(fd, buffer, 0, buffer.length, start);
			text = buffer.toString('utf8');
		} finally {
			fs.closeSync(fd);
		}
	} catch {
		return [];
	}
	let calls: ToolCall[] = [];
	for (const line of text.split('\n')) {
		let entry: { type?: unknown; isSidechain?: unknown; message?: { content?: unknown }; toolUseResult?: unknown };
		try {
			entry = JSON.parse(line) as typeof entry;
		} catch {
			continue;
		}
		const content = entry.message?.content;
		if (entry.isSidechain === true) {
			continue;
		}
		if (entry.type === 'user' && typeof content === 'string') {
			calls = []; // A prompt: a new turn starts.
			continue;
		}
		if (!Array.isArray(content)) {
			continue;
		}
		for (const block of content as {
			type?: unknown;
			id?: unknown;
			name?: unknown;
			input?: unknown;
			tool_use_id?: unknown;
			is_error?: unknown;
			content?: unknown;
		}[]) {
			if (entry.type === 'assistant' && block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
				calls.push({ id: block.id, name: block.name, input: block.input ?? {}, response: undefined, failed: false });
			} else if (entry.type === 'user' && block.type === 'tool_result') {
				const call = calls.find((c) => c.id === block.tool_use_id);
				if (call) {
					call.response = entry.toolUseResult ?? block.content;
					call.failed = block.is_error === true;
				}
			} else if (entry.type === 'user' && block.type === 'text' && calls.every((c) => c.response !== undefined)) {
				calls = []; // A prompt given as blocks: a new turn.
			}
		}
	}
	return calls.filter((c) => isCapturedTool(c.name) && c.response !== undefined);
}

/**
 * Runs a PostToolUse for each of the turn's captured calls that was never recorded. `recorded` says
 * whether an event id is in the journal; `run` runs one hook payload as the live hook would.
 */
export async function replayMissedCalls(
	stop: HookEvent,
	raw: unknown,
	recorded: (id: string) => Promise<boolean>,
	run: (event: string, payload: string, eventId: string) => Promise<unknown>,
): Promise<number> {
	if (stop.agent !== 'claude-code' || stop.kind !== 'stop' || !stop.transcriptPath) {
		return 0;
	}
	const base = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
	let replayed = 0;
	for (const call of lastTurnCalls(stop.transcriptPath)) {
		const payload = {
			session_id: base['session_id'],
			transcript_path: base['transcript_path'],
			cwd: base['cwd'],
			hook_event_name: call.failed ? 'PostToolUseFailure' : 'PostToolUse',
			tool_name: call.name,
			tool_input: call.input,
			...(call.failed ? { error: typeof call.response === 'string' ? call.response : JSON.stringify(call.response) } : { tool_response: call.response }),
			tool_use_id: call.id,
		};
		const normalised = normaliseHookPayload(payload, {});
		if (!normalised.ok) {
			continue;
		}
		const id = hookEventId(normalised.event, payload, crypto.randomUUID());
		if (await recorded(id)) {
			continue;
		}
		await run(call.failed ? 'post-tool-use-failure' : 'post-tool-use', JSON.stringify(payload), id.replace(/^hook:/, ''));
		replayed++;
	}
	return replayed;
}
