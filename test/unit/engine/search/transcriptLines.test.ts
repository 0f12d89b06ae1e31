/**
 * A search hit opens a transcript at its excerpt's line (renderTranscriptMarkdown's `excerptLines`):
 * every kind of excerpt, tool calls grouped into one list included, maps to the line that shows it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { claudeProjectDir } from '../../../../src/engine/transcripts/claudeProjects';
import { TranscriptArchive } from '../../../../src/engine/transcripts/transcriptArchive';
import { renderTranscriptMarkdown } from '../../../../src/engine/transcripts/transcriptMarkdown';
import { TranscriptWriter } from '../transcripts/transcriptWriter';
import { MemoryLogger, tempDir } from '../../helpers';

test('each excerpt of a transcript maps to the line that shows it', async (t) => {
	const base = tempDir(t, 'baton-transcript-lines-');
	const root = path.join(base, 'shop');
	const claudeHome = path.join(base, 'claude');
	fs.mkdirSync(path.join(root, '.baton'), { recursive: true });
	const id = '1d2e3f40-0000-4000-8000-00000000abcd';
	const w = new TranscriptWriter(id, root);
	w.user('First request\nwith a second line');
	const [read, edit] = w.assistant(
		[
			{ text: 'Reading, then editing.\n\nTwo paragraphs.' },
			{ tool: 'Read', input: { file_path: path.join(root, 'src/a.ts') } },
			{ tool: 'Edit', input: { file_path: path.join(root, 'src/a.ts'), old_string: 'a', new_string: 'b' } },
		],
		{ input_tokens: 1, output_tokens: 1 },
	);
	w.toolResult(read as string, 'ok');
	w.toolResult(edit as string, 'FAIL: the edit did not apply', true);
	w.compact('auto', 1_000);
	w.compactSummary('Summary of what came before.');
	w.user('Second request');
	w.assistant([{ text: 'Done.' }], { input_tokens: 1, output_tokens: 1 });
	w.flush(path.join(claudeProjectDir(claudeHome, root), `${id}.jsonl`));
	const archive = new TranscriptArchive({ workspaceRoot: root, claudeHome, log: new MemoryLogger() });
	await archive.sync({ link: async () => 'ses_20260301090000_abcdef' });
	const found = archive.read(id);
	assert.ok(found);
	const lines: number[] = [];
	const markdown = renderTranscriptMarkdown(found.info, found.excerpts, found.notes, lines);
	assert.equal(markdown, renderTranscriptMarkdown(found.info, found.excerpts, found.notes), 'asking for lines changes nothing');
	const shown = markdown.split('\n');
	assert.equal(lines.length, found.excerpts.length);
	const expected: Record<string, RegExp> = {
		user: /^## .* User$/,
		assistant: /^### .* Assistant$/,
		tool: /^- /,
		error: /^\*\*Error/,
		compact: /^---$/,
		summary: /^<details>/,
	};
	for (const [n, excerpt] of found.excerpts.entries()) {
		assert.match(shown[lines[n] as number] ?? '', expected[excerpt.type] as RegExp, `excerpt ${n} (${excerpt.type}) at line ${lines[n]}`);
		if (excerpt.type === 'tool') assert.ok(shown[lines[n] as number]?.includes(excerpt.name));
	}
	assert.deepEqual(
		found.excerpts.map((e) => e.type),
		['user', 'assistant', 'tool', 'tool', 'error', 'compact', 'summary', 'user', 'assistant'],
	);
});
