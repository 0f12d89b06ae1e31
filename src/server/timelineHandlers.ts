/**
 * The replay timeline over the protocol (src/protocol/timelineRpc.ts): the Replay view reads a
 * session's axis and one step at a time, opens files at a step's trees, and reverts a step.
 */
import type { MessageConnection } from 'vscode-jsonrpc/node';
import type { TranscriptArchive } from '../engine/transcripts/transcriptArchive';
import { BatonError } from '../engine/errors';
import type { Engine } from '../engine/engine';
import type { Logger } from '../engine/ports';
import { stepTranscript } from '../engine/timeline/stepTranscript';
import type { TimelineService } from '../engine/timeline/timelineService';
import * as rpc from '../protocol/timelineRpc';
import type { EngineHost } from './engineHost';
import { localUser, requestRegistrar } from './handlers';

export function registerTimelineHandlers(connection: MessageConnection, host: EngineHost, log: Logger): void {
	const on = requestRegistrar(connection, host);
	const service = async (): Promise<{ engine: Engine; timeline: TimelineService }> => {
		const engine = await host.get();
		return { engine, timeline: engine.timeline };
	};
	on(rpc.timelineGet, async ({ sessionId }) => {
		const { engine, timeline } = await service();
		const result = await timeline.timeline(sessionId ?? null);
		const session = await engine.briefings.get(result.session).catch(() => null);
		return { session: result.session, sessionName: session?.name ?? null, entries: result.entries, you: localUser() };
	});
	on(rpc.timelineStep, async ({ id }) => {
		const { engine, timeline } = await service();
		const step = await timeline.step(id);
		const entries = (await timeline.timeline(step.sessionId)).entries;
		const prompt = entries.find((e) => e.type === 'prompt' && e.turn === step.turn);
		let archive: TranscriptArchive | null = null;
		try {
			archive = engine.transcripts({ log });
		} catch (error) {
			log.warn(`transcript archive unavailable: ${(error as Error).message}`);
		}
		return {
			step,
			filesNow: await timeline.filesNow(step),
			transcript: stepTranscript(archive, step.sessionId, step, prompt?.type === 'prompt' ? prompt.text : null),
		};
	});
	on(rpc.timelineFile, async ({ tree, path }) => {
		const { timeline } = await service();
		const bytes = await timeline.fileAt(tree, path);
		if (!bytes) {
			return { text: null, binary: false };
		}
		// A NUL byte in the first 8 KB is git's own test for binary content.
		const binary = bytes.subarray(0, 8192).includes(0);
		return { text: binary ? null : bytes.toString('utf8'), binary };
	});
	on(rpc.timelineRevert, async ({ id, dryRun }) => {
		if (host.readOnly) {
			throw new BatonError('invalidInput', 'this workspace is not trusted: Baton changes no files in it');
		}
		const { timeline } = await service();
		return timeline.revert(id, { dryRun: dryRun ?? false, actor: 'editor' });
	});
}
