/**
 * The words around a step: the prompt that started its turn, and — when the session's transcript is
 * archived (Claude Code) — the archived excerpts just before and after its tool call, found by the
 * step's tool-use id.
 */
import type { TranscriptArchive } from '../transcripts/transcriptArchive';
import type { Excerpt } from '../transcripts/transcriptExcerpts';
import type { TimelineStep, TranscriptLine } from './timelineShapes';

const before = 4;
const after = 2;

export function stepTranscript(archive: TranscriptArchive | null, sessionId: string, step: TimelineStep, prompt: string | null): TranscriptLine[] {
	// A person's edit between the agent's calls was asked for by no prompt and said nothing in any
	// transcript: the turn's prompt beside it would read as if the agent had been told to make it.
	if (step.actor === 'human') {
		return [];
	}
	const lines: TranscriptLine[] = prompt ? [{ role: 'user', text: prompt, current: false }] : [];
	if (!archive || !step.toolUseId) {
		return lines;
	}
	for (const info of archive.list({ sessionId })) {
		const excerpts = archive.read(info.id)?.excerpts ?? [];
		const index = excerpts.findIndex((e) => e.type === 'tool' && e.id === step.toolUseId);
		if (index < 0) {
			continue;
		}
		const window = excerpts.slice(Math.max(0, index - before), index + after + 1);
		const around = window.map((e) => lineOf(e, e === excerpts[index])).filter((l): l is TranscriptLine => l !== null);
		// The prompt is already first when the window starts with it.
		return around[0]?.role === 'user' && around[0].text === prompt ? around : [...lines, ...around];
	}
	return lines;
}

function lineOf(excerpt: Excerpt, current: boolean): TranscriptLine | null {
	switch (excerpt.type) {
		case 'user':
			return { role: 'user', text: excerpt.text, current };
		case 'assistant':
			return { role: 'assistant', text: excerpt.text, current };
		case 'tool':
			return {
				role: 'tool',
				text: `${excerpt.name}${excerpt.detail ? ` ${excerpt.detail}` : ''}${excerpt.files.length ? ` (${excerpt.files.join(', ')})` : ''}`,
				current,
			};
		case 'error':
			return { role: 'error', text: excerpt.text, current };
		default:
			return null;
	}
}
