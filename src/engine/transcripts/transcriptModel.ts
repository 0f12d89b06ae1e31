/**
 * The model an agent is running, from the end of its transcript, for a step whose hook payload does
 * not say (Claude Code's tool hooks name no model; its transcript's assistant lines do, as
 * `message.model`; Codex's rollout says it in `turn_context.payload.model`). Only the file's last
 * 256 KiB is read, newest line first: the model of the latest turn, which a `/model` switch changes.
 */
import fs from 'node:fs';

const tailBytes = 256 * 1024;

/** A model name as agents write them: no spaces or controls, at most 200 characters. */
const modelName = /^[A-Za-z0-9][\w.:/@+-]{0,199}$/;

export function modelFromTranscript(file: string | null): string | null {
	if (!file) {
		return null;
	}
	let text: string;
	try {
		// Non-blocking: a FIFO named as the transcript must not hold the hook (it is refused below, not read).
		const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
		try {
			const stat = fs.fstatSync(fd);
			if (!stat.isFile()) {
				return null;
			}
			const length = Math.min(stat.size, tailBytes);
			const buffer = Buffer.alloc(length);
			fs.readSync(fd, buffer, 0, length, stat.size - length);
			text = buffer.toString('utf8');
		} finally {
			fs.closeSync(fd);
		}
	} catch {
		return null;
	}
	const lines = text.split('\n');
	for (let i = lines.length - 1; i >= 0; i--) {
		const line = lines[i] as string;
		if (!line.includes('"model"')) {
			continue;
		}
		let parsed: unknown;
		try {
			parsed = JSON.parse(line);
		} catch {
			// The first line of the tail is usually cut; a line being written may be too.
			continue;
		}
		const found = modelIn(parsed);
		if (found) {
			return found;
		}
	}
	return null;
}

function modelIn(value: unknown): string | null {
	if (!value || typeof value !== 'object') {
		return null;
	}
	const v = value as Record<string, unknown>;
	// Claude Code `message.model`, Codex `payload.model`, Copilot CLI `data.model`, Gemini CLI `model`.
	for (const holder of [v['message'], v['payload'], v['data'], v]) {
		const model = holder && typeof holder === 'object' ? (holder as Record<string, unknown>)['model'] : undefined;
		// `<synthetic>` and the like are not a model that wrote anything.
		if (typeof model === 'string' && modelName.test(model)) {
			return model;
		}
	}
	return null;
}
