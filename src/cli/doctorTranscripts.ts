/**
 * `baton doctor`'s transcript lines (issue 26, "never lose one"): whether `.baton/transcripts/index.json`
 * reads and holds every transcript the archive's own headers describe, with the fix to run when not;
 * and what `baton doctor --reindex` rebuilt.
 */
import { agentLabel, parseAgentName } from '../engine/agentKinds';
import type { ReindexReport } from '../engine/agentHistory/historyShapes';
import { silentLogger } from '../engine/ports';
import { Engine } from '../engine/engine';

interface DoctorCheck {
	name: string;
	ok: boolean;
	detail: string;
}

export const reindexFix = 'Run `baton doctor --reindex` to rebuild the transcript index from the archive and the agents’ files; nothing is deleted.';

/** The transcript index's check: read without setting a damaged index aside, so that the fix can still see it. */
export function transcriptIndexCheck(workspaceRoot: string): DoctorCheck {
	const health = Engine.transcriptArchive(workspaceRoot, { log: silentLogger }).indexHealth();
	if (health.index === 'damaged') {
		return { name: 'transcripts', ok: false, detail: 'index.json is damaged (it does not read as a transcript index)' };
	}
	if (health.missing > 0) {
		return {
			name: 'transcripts',
			ok: false,
			detail: `the archive holds ${health.missing} transcript(s) ${health.index === 'missing' ? 'and index.json is missing' : 'that index.json lacks'}`,
		};
	}
	return {
		name: 'transcripts',
		ok: true,
		detail: `index.json ${health.index === 'missing' ? 'not made yet (nothing archived)' : 'holds every archived transcript'}${health.problems ? `; ${health.problems} archive file(s) need a look (\`baton doctor --reindex\` lists them)` : ''}`,
	};
}

export function reindexText(r: ReindexReport): string[] {
	const lines = [
		`Transcript index ${r.changed ? 'rebuilt' : 'already up to date: nothing changed'} (index.json was ${r.previousIndex === 'ok' ? 'readable' : r.previousIndex}): ${r.transcripts} transcript(s) of ${r.sessions} session(s); ${r.fromHeader} from their headers, ${r.fromIndex} from the old index, ${r.recovered} rebuilt from excerpts; ${r.headersWritten} header(s) written, ${r.parsedBytes} byte(s) of agents’ files read.`,
	];
	for (const [agent, c] of Object.entries(r.agents)) {
		const label = parseAgentName(agent) ? agentLabel(parseAgentName(agent) as NonNullable<ReturnType<typeof parseAgentName>>) : agent;
		lines.push(
			`  ${label.padEnd(12)} ${c.transcripts} transcript(s): ${c.archived} archived, ${c.sourceMissing} whose agent’s file is gone, ${c.unlinked} not linked to a session`,
		);
	}
	for (const p of r.problems) lines.push(`  ${p.level === 'error' ? 'not read' : 'note'}  ${p.path}: ${p.reason}`);
	for (const s of r.skipped) lines.push(`  skipped  ${s.path}: ${s.reason}`);
	return lines;
}
