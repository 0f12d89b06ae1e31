/**
 * `provenance/blame` for the editor. It runs git (read-only) and may record attributions of new
 * commits, so an untrusted workspace is refused, like every other git-running request. One
 * provenance service per engine keeps its "nothing to say about this commit" memory warm.
 */
import type { MessageConnection } from 'vscode-jsonrpc/node';
import { BatonError } from '../engine/errors';
import { blameFile } from '../engine/provenance/blameReader';
import type { BlameDto } from '../protocol/provenanceRpc';
import { provenanceBlame } from '../protocol/provenanceRpc';
import type { EngineHost } from './engineHost';
import { requestRegistrar } from './handlers';

export function registerProvenanceHandlers(connection: MessageConnection, host: EngineHost): void {
	const on = requestRegistrar(connection, host);
	on(provenanceBlame, async (params): Promise<BlameDto> => {
		if (host.readOnly) {
			throw new BatonError('invalidInput', 'this workspace is not trusted: Baton runs no git here, so it shows no blame');
		}
		const engine = await host.get();
		const blame = await blameFile(engine.provenance, params.file);
		return { file: blame.file, lines: blame.lines.map(({ text: _text, ...line }) => line) };
	});
}
