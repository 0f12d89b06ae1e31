/**
 * Staleness on a real workspace: files changed after a fact's confirmation, told by Baton's real
 * checkpoints (a real shadow git store) when they exist and by mtimes when they do not; missing
 * files; age by the fake clock; and the marks reaching the briefing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { auditLog } from '../../../../src/engine/storage/schema';
import { actor, openTestEngine } from '../../helpers';
import { openCheckpointEngine, write } from '../checkpoints/gitFixtures';

/** Sets a file's mtime to `ms` (the tests' clock is fake; the file system's is not). */
function touchAt(root: string, rel: string, ms: number): void {
	fs.utimesSync(path.join(root, rel), new Date(ms), new Date(ms));
}

void describe('memory staleness', () => {
	void it('with checkpoints: a file whose content changed after the confirmation marks the fact; a rewrite with the same bytes does not', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		touchAt(root, 'src/app.ts', clock.now() - 60_000);
		touchAt(root, 'src/util.ts', clock.now() - 60_000);
		await engine.checkpoints.create({ actor, sessionId: null, trigger: 'manual' });
		clock.advance(60_000);
		const app = (await engine.memory.record({ kind: 'gotcha', text: 'app.ts exports a constant, not a function', files: ['src/app.ts'], actor })).entry;
		const util = (await engine.memory.record({ kind: 'knowledge', text: 'util.ts stays dependency-free', files: ['src/util.ts'], actor })).entry;
		const confirmedAt = clock.now();
		clock.advance(60_000);

		// util.ts is rewritten byte for byte (a formatter, a branch switch and back); app.ts really changes.
		fs.writeFileSync(path.join(root, 'src/util.ts'), 'export const util = 1;\n');
		touchAt(root, 'src/util.ts', confirmedAt + 30_000);
		write(root, 'src/app.ts', 'export function app() { return 2; }\n');
		touchAt(root, 'src/app.ts', confirmedAt + 30_000);
		const report = await engine.memory.refreshStaleness();
		assert.deepEqual(report, { checked: 2, marked: [app.id], cleared: [] });
		const marked = await engine.memory.get(app.id);
		assert.equal(marked.staleSince, '2026-03-01T09:02:00.000Z');
		assert.equal(marked.staleReason, 'src/app.ts changed since the fact was last confirmed');
		assert.equal((await engine.memory.get(util.id)).staleSince, null, 'same bytes as the checkpoint: not a change');

		// Another pass changes nothing and keeps the date; confirming clears the mark.
		clock.advance(60_000);
		assert.deepEqual(await engine.memory.refreshStaleness(), { checked: 2, marked: [], cleared: [] });
		assert.equal((await engine.memory.get(app.id)).staleSince, '2026-03-01T09:02:00.000Z');
		const confirmed = await engine.memory.confirm(app.id, actor);
		assert.equal(confirmed.staleSince, null);
		assert.deepEqual((await engine.memory.refreshStaleness()).marked, [], 'written before the new confirmation');

		// A change made before the confirmation is what the fact describes: not stale.
		const later = (await engine.memory.record({ kind: 'knowledge', text: 'app.ts exports app()', files: ['src/app.ts'], actor })).entry;
		assert.deepEqual((await engine.memory.refreshStaleness()).marked, []);
		assert.equal((await engine.memory.get(later.id)).staleSince, null);

		const audits = await engine.store.read((db) => db.select().from(auditLog).where(eq(auditLog.operation, 'memory.staleness')).all());
		assert.deepEqual(
			audits.map((a) => a.details),
			[{ marked: [app.id], cleared: [] }],
		);
	});

	void it('without checkpoints: the mtime decides; a missing file marks the fact; a file back in place clears it', async (t) => {
		const { engine, root, clock } = await openTestEngine(t);
		write(root, 'docs/guide.md', '# guide\n');
		write(root, 'scripts/deploy.sh', 'echo deploy\n');
		touchAt(root, 'docs/guide.md', clock.now() - 1_000);
		touchAt(root, 'scripts/deploy.sh', clock.now() - 1_000);
		const guide = (await engine.memory.record({ kind: 'knowledge', text: 'The guide documents the release steps', files: ['docs/guide.md'], actor })).entry;
		const deploy = (
			await engine.memory.record({
				kind: 'gotcha',
				text: 'deploy.sh must run from the repository root',
				files: ['scripts/deploy.sh', 'docs/guide.md'],
				actor,
			})
		).entry;
		assert.equal(engine.checkpoints.enabled, false);
		assert.deepEqual((await engine.memory.refreshStaleness()).marked, [], 'nothing written since');

		fs.appendFileSync(path.join(root, 'docs/guide.md'), 'step 4\n');
		touchAt(root, 'docs/guide.md', clock.now() + 5_000);
		fs.rmSync(path.join(root, 'scripts/deploy.sh'));
		const report = await engine.memory.refreshStaleness();
		assert.deepEqual(report.marked.sort(), [guide.id, deploy.id].sort());
		assert.equal((await engine.memory.get(guide.id)).staleReason, 'docs/guide.md changed since the fact was last confirmed');
		assert.equal((await engine.memory.get(deploy.id)).staleReason, 'scripts/deploy.sh is missing; docs/guide.md changed since the fact was last confirmed');

		write(root, 'scripts/deploy.sh', 'echo deploy\n');
		touchAt(root, 'scripts/deploy.sh', clock.now() - 1_000);
		await engine.memory.refreshStaleness();
		const deployNow = await engine.memory.get(deploy.id);
		assert.equal(deployNow.staleReason, 'docs/guide.md changed since the fact was last confirmed', 'the reason follows the workspace');
		assert.equal(deployNow.staleSince, (await engine.memory.get(guide.id)).staleSince, 'and the date stays');
		fs.writeFileSync(path.join(root, 'docs/guide.md'), '# guide\n');
		touchAt(root, 'docs/guide.md', clock.now() - 1_000);
		const cleared = await engine.memory.refreshStaleness();
		assert.deepEqual(cleared.cleared.sort(), [guide.id, deploy.id].sort());
	});

	void it('by age: a fact nobody confirmed for the configured time is stale, and the briefing shows the mark', async (t) => {
		const { engine, clock } = await openTestEngine(t, { config: { memoryStaleAfter: '30d' } });
		const old = (await engine.memory.record({ kind: 'knowledge', text: 'Exports run nightly at 02:00 UTC', actor })).entry;
		clock.advance(29 * 86_400_000);
		const fresh = (await engine.memory.record({ kind: 'knowledge', text: 'Invoices are immutable once sent', actor })).entry;
		clock.advance(86_400_000 - 1);
		assert.deepEqual((await engine.memory.refreshStaleness()).marked, [], 'one millisecond short of 30 days');
		clock.advance(1);
		const briefing = await engine.briefings.briefing({ scope: 'global' });
		const shown = briefing.memory.entries.find((e) => e.id === old.id);
		assert.equal(shown?.staleReason, 'not confirmed for 30 days');
		assert.equal(shown?.staleSince, '2026-03-31T09:00:00.000Z');
		assert.equal(briefing.memory.entries.find((e) => e.id === fresh.id)?.staleSince, null);
		assert.deepEqual(
			briefing.memory.entries.map((e) => e.id),
			[fresh.id, old.id],
			'fresh before stale',
		);
		const { engine: never } = await openTestEngine(t, { config: { memoryStaleAfter: 0 } });
		await never.memory.record({ kind: 'knowledge', text: 'x', actor });
		assert.deepEqual((await never.memory.refreshStaleness()).marked, [], '0 turns the age rule off');
	});
});
