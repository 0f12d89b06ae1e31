/**
 * The webview → host contract: a webview is an untrusted page, so the host accepts exactly the
 * messages `webviewToHost` describes and nothing else. The preview fixture must also match the wire
 * shapes, or the screenshots would prove things about data the backend never sends.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { environmentCategories } from '../../../src/engine/environment/environmentDiff';
import { briefingSchema, handoffDataSchema } from '../../../src/engine/storage/jsonShapes';
import { checkpointSchema, decisionSchema, issueLinkSchema, sessionSchema } from '../../../src/engine/storage/model';
import type { ComparisonDto, FileChangeDto } from '../../../src/protocol/checkpointDto';
import type { ForkNodeDto, SessionDetailsDto } from '../../../src/protocol/dto';
import { webviewToHost } from '../../../src/protocol/webview';
import { replayToHost } from '../../../src/protocol/replayMessages';

const sessionId = 'ses_20250311093000_0a1b2c';
const checkpointId = 'cp_20250312144600_b7a402';

void describe('webview → host messages', () => {
	void it('accepts every valid message', () => {
		const valid = [
			{ type: 'ready' },
			{ type: 'refresh' },
			{ type: 'openSession', sessionId },
			{ type: 'openBriefing', sessionId },
			{ type: 'focusTask', taskId: 'T12' },
			{ type: 'startSession', scope: 'epicPhase:T1:core' },
			{ type: 'transition', action: 'end', sessionId },
			{ type: 'transition', action: 'suspend', sessionId },
			{ type: 'transition', action: 'resume', sessionId },
			{ type: 'openFileDiff', path: 'src/payments/retry/backoff.ts' },
			{ type: 'openFileDiff', path: 'docs/a file with spaces & ünïcode.md' },
			{ type: 'checkpointAction', action: 'approve', checkpointId },
			{ type: 'checkpointAction', action: 'reject', checkpointId },
			{ type: 'checkpointAction', action: 'rollback', checkpointId },
			{ type: 'linkIssue', sessionId },
		];
		for (const message of valid) {
			const parsed = webviewToHost.safeParse(message);
			assert.ok(parsed.success, `${JSON.stringify(message)}: ${parsed.success ? '' : parsed.error.message}`);
			assert.deepEqual(parsed.data, message);
		}
	});

	void it('accepts ids and scopes right up to their limits', () => {
		assert.ok(webviewToHost.safeParse({ type: 'openSession', sessionId: 's'.repeat(100) }).success);
		assert.ok(webviewToHost.safeParse({ type: 'startSession', scope: `custom:${'T1,'.repeat(64)}T2`.slice(0, 200) }).success);
		assert.ok(webviewToHost.safeParse({ type: 'openFileDiff', path: `${'d/'.repeat(2047)}f`.slice(0, 4096) }).success);
		assert.ok(webviewToHost.safeParse({ type: 'checkpointAction', action: 'approve', checkpointId: 'c'.repeat(100) }).success);
	});

	void it('rejects malformed messages', () => {
		const malformed: unknown[] = [
			null,
			undefined,
			'ready',
			42,
			[],
			[{ type: 'ready' }],
			{},
			{ type: 'READY' },
			{ type: 'runCommand', command: 'workbench.action.terminal.new' },
			{ type: 'openSession' },
			{ type: 'openSession', sessionId: '' },
			{ type: 'openSession', sessionId: 7 },
			{ type: 'openSession', sessionId: null },
			{ type: 'openBriefing', id: sessionId },
			{ type: 'focusTask', taskId: '' },
			{ type: 'focusTask', taskId: ['T1'] },
			{ type: 'startSession' },
			{ type: 'startSession', scope: '' },
			{ type: 'transition', action: 'delete', sessionId },
			{ type: 'transition', action: 'end' },
			{ type: 'transition', sessionId },
			{ type: ['ready'] },
			{ type: 'openFileDiff' },
			{ type: 'openFileDiff', path: '' },
			{ type: 'openFileDiff', path: null },
			{ type: 'openFileDiff', path: ['src/a.ts'] },
			{ type: 'openFileDiff', paths: ['src/a.ts'] },
			{ type: 'openFileDiff', path: { toString: 'src/a.ts' } },
			{ type: 'checkpointAction', checkpointId },
			{ type: 'checkpointAction', action: 'approve' },
			{ type: 'checkpointAction', action: 'approve', checkpointId: '' },
			{ type: 'checkpointAction', action: 'approve', checkpointId: 12 },
			{ type: 'checkpointAction', action: 'delete', checkpointId },
			{ type: 'checkpointAction', action: 'APPROVE', checkpointId },
			{ type: 'checkpointAction', action: 'approve', id: checkpointId },
			{ type: 'checkpointAction', action: ['approve', 'reject'], checkpointId },
			{ type: 'linkIssue' },
			{ type: 'linkIssue', sessionId: '' },
			{ type: 'linkIssue', ref: '#42' },
		];
		for (const message of malformed) {
			assert.equal(webviewToHost.safeParse(message).success, false, `accepted ${JSON.stringify(message)}`);
		}
	});

	void it('rejects oversized fields', () => {
		const long = 'x'.repeat(101);
		for (const message of [
			{ type: 'openSession', sessionId: long },
			{ type: 'openBriefing', sessionId: long },
			{ type: 'focusTask', taskId: long },
			{ type: 'transition', action: 'resume', sessionId: long },
			{ type: 'startSession', scope: 's'.repeat(201) },
			{ type: 'openSession', sessionId: 'x'.repeat(1_000_000) },
			{ type: 'openFileDiff', path: 'p'.repeat(4097) },
			{ type: 'openFileDiff', path: 'p'.repeat(1_000_000) },
			{ type: 'checkpointAction', action: 'rollback', checkpointId: long },
			{ type: 'linkIssue', sessionId: long },
			{ type: 'checkpointAction', action: 'approve', checkpointId: 'c'.repeat(1_000_000) },
		]) {
			assert.equal(webviewToHost.safeParse(message).success, false, `accepted a ${JSON.stringify(message).length}-character message`);
		}
	});

	void it('drops fields it does not know, so nothing extra reaches a handler', () => {
		const parsed = webviewToHost.safeParse({ type: 'focusTask', taskId: 'T3', sessionId: sessionId, command: 'rm -rf' });
		assert.ok(parsed.success);
		assert.deepEqual(parsed.data, { type: 'focusTask', taskId: 'T3' });
		const action = webviewToHost.safeParse({ type: 'checkpointAction', action: 'rollback', checkpointId, force: true, from: 'cp_other' });
		assert.ok(action.success);
		assert.deepEqual(action.data, { type: 'checkpointAction', action: 'rollback', checkpointId });
		const diff = webviewToHost.safeParse({ type: 'openFileDiff', path: 'src/a.ts', from: 'cp_other', to: 'cp_another' });
		assert.ok(diff.success);
		assert.deepEqual(diff.data, { type: 'openFileDiff', path: 'src/a.ts' });
	});
});

/**
 * The wire shapes as schemas, to hold the fixture to them: stored records use the engine's own schemas
 * (the wire's types are those records); composites the wire adds are spelled here, and each is typed
 * against its protocol type, so a field added there fails to compile until the schema has it too.
 */
const sessionDto = sessionSchema.strict();
const checkpointDto = checkpointSchema.omit({ environment: true }).strict();
const fileChangeDto: z.ZodType<FileChangeDto> = z
	.object({
		path: z.string(),
		change: z.enum(['added', 'modified', 'deleted']),
		additions: z.number().nullable(),
		deletions: z.number().nullable(),
		binary: z.boolean(),
		oldMode: z.string().nullable(),
		newMode: z.string().nullable(),
		oldSha: z.string().nullable(),
		newSha: z.string().nullable(),
	})
	.strict();
const forkNodeDto: z.ZodType<ForkNodeDto> = z.lazy(() => z.object({ session: sessionDto, children: z.array(forkNodeDto) }).strict());
const sessionDetailsDto: z.ZodType<SessionDetailsDto> = z
	.object({
		session: sessionDto,
		handoff: handoffDataSchema.strict().nullable(),
		handoffProblem: z.string().nullable(),
		chain: z.array(sessionDto),
		forkTree: forkNodeDto,
		decisions: z.array(decisionSchema.strict()),
		linkedIssues: z.array(issueLinkSchema.omit({ createdAt: true, updatedAt: true }).strict()),
	})
	.strict();
const briefingDto = briefingSchema.strict();
const entry = z.object({ key: z.string(), value: z.string() }).strict();
const categoryDiff = z
	.object({ added: z.array(entry), removed: z.array(entry), changed: z.array(z.object({ key: z.string(), from: z.string(), to: z.string() }).strict()) })
	.strict();
const approvalSummary = z
	.object({ status: checkpointSchema.shape.approvalStatus, user: z.string().nullable(), at: z.string().nullable(), reason: z.string().nullable() })
	.strict();
const comparisonDto: z.ZodType<ComparisonDto> = z
	.object({
		from: checkpointDto.nullable(),
		to: checkpointDto.nullable(),
		files: z.array(fileChangeDto),
		environment: z
			.object({
				agents: categoryDiff,
				vscode: categoryDiff,
				extensions: categoryDiff,
				mcpServers: categoryDiff,
				runtimes: categoryDiff,
				packages: categoryDiff,
				git: categoryDiff,
				changed: z.boolean(),
				note: z.string().nullable(),
				notCompared: z.array(z.object({ category: z.enum(environmentCategories), key: z.string().nullable(), reason: z.string() }).strict()),
			})
			.strict(),
		approval: z.object({ from: approvalSummary.nullable(), to: approvalSummary.nullable() }).strict(),
		sessions: z.array(z.object({ id: z.string(), name: z.string() }).strict()),
		you: z.string().nullable(),
	})
	.strict();

void describe('the webview preview fixture', () => {
	const fixture = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../fixtures/webviewData.json'), 'utf8')) as Record<
		string,
		{ [key: string]: unknown }
	>;

	void it('matches the wire shapes the host sends', () => {
		for (const key of ['briefing', 'briefingEmpty'] as const) {
			const message = fixture[key] ?? {};
			assert.equal(message['type'], 'briefing');
			briefingDto.parse(message['briefing']);
			if (message['session'] !== null) {
				sessionDto.parse(message['session']);
			}
		}
		assert.equal(fixture['details']?.['type'], 'details');
		sessionDetailsDto.parse(fixture['details']?.['details']);
		const graph = fixture['graph'] ?? {};
		assert.equal(graph['type'], 'graph');
		const sessions = sessionDto.array().parse(graph['sessions']);
		assert.ok(
			sessions.some((s) => s.id === graph['focusId']),
			'the focus is one of the sessions',
		);
		for (const key of ['compare', 'compareWorkingTree'] as const) {
			assert.equal(fixture[key]?.['type'], 'compare');
			const environment = (fixture[key]?.['comparison'] as { environment: Record<string, unknown> }).environment;
			assert.deepEqual(
				Object.keys(environment)
					.filter((k) => k !== 'changed' && k !== 'note' && k !== 'notCompared')
					.sort(),
				[...environmentCategories].sort(),
				'every environment category',
			);
			const comparison = comparisonDto.parse(fixture[key]?.['comparison']);
			assert.ok(comparison.from, 'both fixtures compare from a checkpoint');
			assert.deepEqual(comparison.approval.from, {
				status: comparison.from.approvalStatus,
				user: comparison.from.approvalUser,
				at: comparison.from.approvalAt,
				reason: comparison.from.approvalReason,
			});
			assert.equal(comparison.approval.to?.status, comparison.to?.approvalStatus);
			for (const f of comparison.files) {
				assert.equal(f.binary, f.additions === null, `${f.path}: binary files, and only they, have no line counts`);
				assert.equal(f.oldMode === null, f.change === 'added', `${f.path}: old mode only when the file existed`);
				assert.equal(f.newMode === null, f.change === 'deleted', `${f.path}: new mode only when the file exists`);
			}
			assert.deepEqual(
				comparison.files.map((f) => f.path),
				comparison.files.map((f) => f.path).sort(),
				'files come sorted by path, as the engine sends them',
			);
		}
	});

	void it('covers what the views must show', () => {
		const sessions = sessionDto.array().parse(fixture['graph']?.['sessions']);
		const statuses = new Set(sessions.map((s) => s.status));
		for (const status of ['active', 'suspended', 'ended', 'orphaned'] as const) {
			assert.ok(statuses.has(status), `a ${status} session`);
		}
		const byId = new Map(sessions.map((s) => [s.id, s]));
		const forks = sessions.filter((s) => s.parentSessionId !== null);
		assert.ok(forks.filter((s) => s.parentSessionId === forks[0]?.parentSessionId).length >= 2 || forks.length >= 2, 'an orchestrator with workers');
		assert.ok(sessions.filter((s) => s.previousSessionId && byId.has(s.previousSessionId)).length >= 2, 'a chain of at least three');
		const details = sessionDetailsDto.parse(fixture['details']?.['details']);
		assert.ok(new Set(details.linkedIssues.map((l) => l.tracker)).size >= 3, 'issues from several trackers');
		assert.ok(details.linkedIssues.some((l) => l.url === null) && details.linkedIssues.some((l) => l.title === null), 'a link not synced yet');
		const briefing = briefingDto.parse(fixture['briefing']?.['briefing']);
		assert.ok(
			briefing.suggestions.some((s) => s.stale),
			'a stale suggestion',
		);
		assert.ok(briefing.nextTasks.length > 0 && briefing.openBugs.length > 0 && briefing.blockedTasks.length > 0 && briefing.activeEpics.length > 0);

		const compare = comparisonDto.parse(fixture['compare']?.['comparison']);
		assert.ok(compare.to && compare.from, 'two checkpoints');
		assert.equal(compare.from.sessionId, compare.to.sessionId, 'of one session');
		const kinds = new Set(compare.files.map((f) => f.change));
		assert.ok(kinds.has('added') && kinds.has('modified') && kinds.has('deleted'), 'added, modified and deleted files');
		assert.ok(
			compare.files.some((f) => f.binary),
			'a binary file',
		);
		assert.ok(
			compare.files.some((f) => f.oldMode && f.newMode && f.oldMode !== f.newMode),
			'a mode change',
		);
		assert.ok(
			compare.files.some((f) => f.newMode === '120000'),
			'a symlink',
		);
		assert.ok(
			compare.to.fileStats.skipped.some((s) => s.reason.includes('limit')),
			'a skipped oversized file',
		);
		for (const category of ['runtimes', 'packages', 'mcpServers', 'agents'] as const) {
			const diff = compare.environment[category];
			assert.ok(diff.added.length + diff.removed.length + diff.changed.length > 0, `environment changes in ${category}`);
		}
		assert.ok(compare.environment.changed && compare.environment.note === null);
		assert.ok(
			[compare.from, compare.to].some((cp) => cp.approvalStatus === 'pending' && cp.escalationReasons.length > 0),
			'a pending side with an escalation reason',
		);

		const workingTree = comparisonDto.parse(fixture['compareWorkingTree']?.['comparison']);
		assert.equal(workingTree.to, null, 'a comparison with the working tree');
		assert.ok(workingTree.from);
		assert.equal(workingTree.approval.to, null);
		assert.ok(workingTree.from.fileStats.degraded && workingTree.from.fileStats.degradedReason, 'a degraded snapshot');
		assert.ok(workingTree.from.fileStats.skippedTotal > workingTree.from.fileStats.skipped.length, 'more skipped files than listed');
		assert.ok(workingTree.environment.note, 'a side without an environment snapshot');
	});
});

void describe('Replay page → host messages', () => {
	const id = 'evt_20250312144600_b7a402_000001';
	void it('accepts exactly what the Replay page sends', () => {
		for (const message of [
			{ type: 'ready' },
			{ type: 'select', id },
			{ type: 'openDiff', id },
			{ type: 'openDiff', id, path: 'src/app.ts' },
			{ type: 'revert', id },
			{ type: 'painted', ms: 12.5, entries: 5000, rows: 30, fromCommandMs: 180 },
		]) {
			assert.deepEqual(replayToHost.parse(message), message);
		}
		assert.deepEqual(
			replayToHost.parse({ type: 'painted', ms: 1, entries: 0 }),
			{ type: 'painted', ms: 1, entries: 0, rows: 0 },
			'an older page without rows',
		);
	});

	void it('refuses anything else: another id, a path of nothing, a time that is not one, an unknown type', () => {
		for (const message of [
			null,
			'ready',
			{ type: 'select', id: 'ses_20250311093000_0a1b2c' },
			{ type: 'select', id: `${id}/../x` },
			{ type: 'revert' },
			{ type: 'openDiff', id, path: '' },
			{ type: 'painted', ms: -1, entries: 1 },
			{ type: 'painted', ms: Number.NaN, entries: 1 },
			{ type: 'painted', ms: 1, entries: 1.5 },
			{ type: 'runCommand', command: 'workbench.action.terminal.new' },
		]) {
			assert.equal(replayToHost.safeParse(message).success, false, JSON.stringify(message));
		}
	});
});
