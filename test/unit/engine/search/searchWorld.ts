/**
 * A workspace with something of every kind search reads: a Claude Code session with a prompt, a step,
 * a decision, a memory fact, a handoff and an archived transcript, and a later Copilot session.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import type { Engine } from '../../../../src/engine/engine';
import { machineIdentity } from '../../../../src/engine/shared/machineIdentity';
import { appendSharedEvent } from '../../../../src/engine/shared/sharedEvents';
import { claudeProjectDir } from '../../../../src/engine/transcripts/claudeProjects';
import { TranscriptArchive } from '../../../../src/engine/transcripts/transcriptArchive';
import { TranscriptWriter } from '../transcripts/transcriptWriter';
import { actor, openTestEngine, tempDir, type FakeClock } from '../../helpers';

export const agentId = '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33';

export async function prompt(engine: Engine, root: string, clock: FakeClock, sessionId: string, turn: number, text: string): Promise<string> {
	return engine.store.write(
		(db) =>
			appendSharedEvent(db, machineIdentity(root), clock.now(), {
				kind: 'timeline.prompt',
				subject: sessionId,
				sessionId,
				actor: 'human',
				body: { turn, text, at: new Date(clock.now()).toISOString() },
			}).id,
	);
}

export async function step(engine: Engine, root: string, clock: FakeClock, sessionId: string, n: number, summary: string, files: string[]): Promise<string> {
	const body = {
		step: n,
		turn: 1,
		toolUseId: `toolu_${n}`,
		actor: 'agent',
		tool: 'Edit',
		summary,
		startedAt: new Date(clock.now()).toISOString(),
		treeBefore: null,
		treeAfter: null,
		files: files.map((p) => ({ path: p, change: 'modified', additions: 1, deletions: 0 })),
		captured: false,
		agent: 'claude-code',
	};
	return engine.store.write(
		(db) =>
			appendSharedEvent(db, machineIdentity(root), clock.now(), {
				kind: 'timeline.step',
				subject: sessionId,
				sessionId,
				actor: 'agent:claude-code',
				body,
			}).id,
	);
}

export async function world(t: TestContext) {
	const base = tempDir(t, 'baton-search-');
	const root = path.join(base, 'shop');
	fs.mkdirSync(root);
	const { engine, clock } = await openTestEngine(t, { root });
	const { session: billing } = await engine.sessions.start({ name: 'Fix the invoice rounding', agent: 'claude-code', agentIdentifier: agentId, actor });
	clock.advance(60_000);
	await prompt(engine, root, clock, billing.id, 1, 'The invoice total is off by a cent when VAT applies; fix the rounding in billing.ts');
	await step(engine, root, clock, billing.id, 1, 'Edit src/billing.ts', ['src/billing.ts']);
	await engine.sessions.recordDecision({
		text: 'Round half to even at the invoice total only',
		rationale: 'banker’s rounding matches the ledger',
		sessionId: billing.id,
		actor,
	});
	await engine.memory.record({ kind: 'gotcha', text: 'The ledger export truncates amounts instead of rounding', files: ['src/ledger.ts'], actor });
	clock.advance(60_000);
	await engine.sessions.end({
		id: billing.id,
		note: 'Rounding fixed; the refund path still uses floats',
		nextAction: 'Move refunds to integer cents',
		actor,
	});
	clock.advance(86_400_000);
	const { session: docs } = await engine.sessions.start({ name: 'Write the onboarding guide', agent: 'copilot', actor });
	await prompt(engine, root, clock, docs.id, 1, 'Write a getting-started page for new contributors');
	// Claude's transcript of the billing session, archived as a hook would.
	const claudeHome = path.join(base, 'claude');
	const file = path.join(claudeProjectDir(claudeHome, root), `${agentId}.jsonl`);
	fs.mkdirSync(path.dirname(file), { recursive: true });
	const w = new TranscriptWriter(agentId, root);
	w.user('Why does the invoice total differ from the ledger?');
	w.assistant([{ text: 'The ledger truncates while the invoice rounds: a subtotal of 10.005 shows both ways.' }], { input_tokens: 10, output_tokens: 5 });
	const flushed = w.flush(file);
	const archive = new TranscriptArchive({ workspaceRoot: root, claudeHome, log: { info() {}, warn() {}, error() {} } });
	await archive.sync({ link: async (_agent, id) => (id === agentId ? billing.id : null) });
	return { engine, clock, root, billing, docs, archive, file, w, flushed };
}
