/**
 * Search over the protocol (src/protocol/searchRpc.ts): the engine's ranked hits, and for a
 * transcript hit the line its excerpt starts at in the transcript's markdown, so the editor opens it
 * there (each transcript rendered once per search, for the hits shown only).
 */
import type { MessageConnection } from 'vscode-jsonrpc/node';
import { BatonError } from '../engine/errors';
import type { Logger } from '../engine/ports';
import type { TranscriptArchive } from '../engine/transcripts/transcriptArchive';
import { renderTranscriptMarkdown } from '../engine/transcripts/transcriptMarkdown';
import type { SearchHitDto } from '../protocol/searchRpc';
import * as rpc from '../protocol/searchRpc';
import type { EngineHost } from './engineHost';
import { requestRegistrar } from './handlers';

function withLines(hits: readonly SearchHitDto[], archive: TranscriptArchive): SearchHitDto[] {
	const lines = new Map<string, number[]>();
	return hits.map((hit) => {
		if (hit.transcriptId === undefined || hit.excerptIndex === undefined) {
			return hit;
		}
		let known = lines.get(hit.transcriptId);
		if (!known) {
			known = [];
			const found = archive.read(hit.transcriptId);
			if (found) renderTranscriptMarkdown(found.info, found.excerpts, found.notes, known);
			lines.set(hit.transcriptId, known);
		}
		const line = known[hit.excerptIndex];
		return line === undefined ? hit : { ...hit, line };
	});
}

export function registerSearchHandlers(connection: MessageConnection, host: EngineHost, log: Logger): void {
	const on = requestRegistrar(connection, host);
	on(rpc.searchSessions, async (query) => {
		if (typeof query?.text !== 'string') {
			throw new BatonError('invalidInput', 'search needs the text to look for');
		}
		const engine = await host.get();
		const result = await engine.search.search(query);
		let archive: TranscriptArchive | null = null;
		try {
			archive = engine.transcripts({ log });
		} catch (error) {
			log.warn(`transcript archive unavailable: ${(error as Error).message}`);
		}
		return { ...result, hits: archive ? withLines(result.hits, archive) : result.hits };
	});
}
