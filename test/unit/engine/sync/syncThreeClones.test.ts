/**
 * Blame holds on every teammate's clone after anyone's rewrites (#23): three clones of one repository
 * share through one bare remote. A's agent writes two commits, A squashes them with an interactive
 * rebase (fixup) and force-pushes; B has a local commit of its own nobody else has; C is a fresh
 * clone. On all three, blame and the hover's one-line blame answer for every line — right where it can
 * be proven, unknown where it cannot — and none fails over a commit it lacks.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { blameFile } from '../../../../src/engine/provenance/blameReader';
import { ProvenanceService } from '../../../../src/engine/provenance/provenanceService';
import { StepRecorder } from '../provenance/recordSteps';
import { actor, FakeClock, openTestEngine } from '../../helpers';
import { enabledWorld, git } from './syncWorld';

const helper = ['export function helper(): number {', '\treturn 42;', '}'];
const twice = ['export function twice(n: number): number {', '\treturn n * 2;', '}'];

test('three clones: after A squashes its agent’s commits and B commits locally, blame and hover answer every line on A, B and C', async (t) => {
	const w = await enabledWorld(t);
	const cRoot = path.join(w.dir, 'c');
	git(w.dir, ['clone', '-q', `file://${w.bare}`, cRoot]);
	fs.appendFileSync(path.join(cRoot, '.git', 'info', 'exclude'), '.baton/\n');
	const c = await openTestEngine(t, { root: cRoot, clock: new FakeClock(Date.parse('2026-03-01T09:00:01.000Z')) });
	await c.engine.sync.enable('origin');

	// A's agent writes two commits.
	const a = w.a.root;
	const file = path.join(a, 'app.ts');
	const session = (await w.a.engine.sessions.start({ name: 'helpers', agent: 'claude-code', actor })).session;
	const recorder = new StepRecorder(w.a.engine, a, () => w.a.clock.now());
	const agent = { id: session.id, agent: 'claude-code', model: 'claude-sonnet-4-5-20250929' };
	await recorder.agentStep(agent, '1', 'Add helper()', 'Edit', () => fs.appendFileSync(file, `${helper.join('\n')}\n`));
	w.a.clock.advance(60_000);
	git(a, ['commit', '-qam', 'helper'], { GIT_AUTHOR_DATE: '2026-03-01T09:01:00Z', GIT_COMMITTER_DATE: '2026-03-01T09:01:00Z' });
	await recorder.agentStep(agent, '2', 'Add twice()', 'Edit', () => fs.appendFileSync(file, `${twice.join('\n')}\n`));
	w.a.clock.advance(60_000);
	git(a, ['commit', '-qam', 'twice'], { GIT_AUTHOR_DATE: '2026-03-01T09:02:00Z', GIT_COMMITTER_DATE: '2026-03-01T09:02:00Z' });
	// Each commit is attributed on A and shared (the push attributes them first).
	await w.a.engine.sync.push();
	// A squashes the two with an interactive rebase (fixup), then force-pushes: the two originals never reach B or C.
	git(a, ['-c', 'sequence.editor=sed -i 2s/^pick/fixup/', 'rebase', '-q', '-i', 'HEAD~2'], { GIT_COMMITTER_DATE: '2026-03-01T09:03:00Z' });
	const squashed = git(a, ['rev-parse', 'HEAD']);
	git(a, ['push', '-q', '-f', 'origin', 'main']);
	w.a.clock.advance(60_000);
	await w.a.engine.sync.push();

	// B commits a change of its own, kept local.
	const b = w.b.root;
	git(b, ['pull', '-q', 'origin', 'main']);
	fs.writeFileSync(path.join(b, 'notes.ts'), 'export const note = "B only";\n');
	git(b, ['add', 'notes.ts']);
	git(b, ['commit', '-qm', 'B local'], { GIT_AUTHOR_DATE: '2026-03-01T09:04:00Z', GIT_COMMITTER_DATE: '2026-03-01T09:04:00Z' });
	await w.b.engine.sync.pull();
	git(cRoot, ['pull', '-q', 'origin', 'main']);
	await c.engine.sync.pull();

	const expected = ['export const x = 1;', ...helper, ...twice];
	for (const [name, engine] of [
		['A', w.a.engine],
		['B', w.b.engine],
		['C', c.engine],
	] as const) {
		const service = new ProvenanceService(engine.ctx);
		const lines = (await blameFile(service, 'app.ts')).lines;
		assert.deepEqual(
			lines.map((l) => l.text),
			expected,
			`${name}: the file`,
		);
		assert.equal(lines[0]?.origin, 'unknown', `${name}: the first line predates any capture`);
		for (const line of lines.slice(1)) {
			// Right where it can be proven, honestly unknown where not: never a person's, never another agent's.
			assert.ok(line.origin === 'agent' || line.origin === 'unknown', `${name}: line ${line.line} is ${line.origin}`);
			assert.equal(line.commit, squashed, `${name}: line ${line.line} is from the squashed commit`);
			if (line.origin === 'agent') {
				assert.deepEqual([line.session, line.model], [session.id, 'claude-sonnet-4-5-20250929'], `${name}: line ${line.line}`);
			}
		}
		assert.ok(
			lines.slice(1).every((l) => l.origin === 'agent'),
			`${name}: the squash keeps its agent’s lines (${lines.map((l) => l.origin).join(',')})`,
		);
		// The hover's question, one line at a time, answers as the whole file's blame.
		for (const line of lines) {
			const one = (await blameFile(new ProvenanceService(engine.ctx), 'app.ts', { line: line.line })).lines;
			assert.deepEqual(
				one.map((l) => [l.line, l.origin, l.commit]),
				[[line.line, line.origin, line.commit]],
				`${name}: hover of line ${line.line}`,
			);
		}
	}
	// B's own commit is B's alone: blamed there as a commit nobody attributed to an agent.
	const bNotes = (await blameFile(new ProvenanceService(w.b.engine.ctx), 'notes.ts')).lines;
	assert.deepEqual(
		bNotes.map((l) => l.origin === 'agent'),
		[false],
	);
});
