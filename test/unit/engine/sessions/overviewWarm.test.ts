import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Engine } from '../../../../src/engine/engine';
import { actor, MemoryLogger, openTestEngine } from '../../helpers';

void describe('the session tree served warm', () => {
	void it('answers from memory until sessions or task titles change, here or in another process', async (t) => {
		const { engine, root } = await openTestEngine(t);
		const epic = await engine.tasks.add({ title: 'Storage epic', type: 'epic', actor });
		await engine.tasks.add({ title: 'work', parentId: epic.id, actor });
		const first = await engine.sessions.start({ name: 'one', scope: `epic:${epic.id}`, actor });
		const a = await engine.briefings.overview();
		assert.equal(await engine.briefings.overview(), a, 'unchanged data: the same answer, not a rebuild');
		assert.deepEqual(
			a.map((c) => c.label),
			[`Epic ${epic.id} · Storage epic`],
		);

		await engine.sessions.end({ id: first.session.id, actor });
		const b = await engine.briefings.overview();
		assert.notEqual(b, a);
		assert.equal(b[0]?.sessions[0]?.status, 'ended');

		await engine.tasks.update({ id: epic.id, title: 'Renamed epic', actor });
		const c = await engine.briefings.overview();
		assert.deepEqual(
			c.map((x) => x.label),
			[`Epic ${epic.id} · Renamed epic`],
		);

		// A second engine on the same workspace writes through the journal, as the CLI does.
		const other = await Engine.open({ workspaceRoot: root, log: new MemoryLogger(), git: { read: async () => null } });
		t.after(() => other.close());
		await other.sessions.start({ name: 'two', scope: 'global', actor });
		const d = await engine.briefings.overview();
		assert.deepEqual(d.map((x) => x.scopeKey).sort(), ['epic:' + epic.id, 'global'].sort());
		assert.deepEqual(
			d.find((x) => x.scopeKey === 'global')?.sessions.map((s) => s.name),
			['two'],
		);
	});
});
