import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Engine } from '../../../src/engine/engine';
import { MemoryLogger, noGit, tempDir } from '../helpers';
import { baton } from './cliRunner';

void describe('baton doctor --repair after the snapshot is deleted', () => {
	void it('rebuilds from the previous snapshot and both journals: task list shows 45 of 45', async (t) => {
		const root = tempDir(t);
		// 45 tasks with two compactions between them, so baton.db.prev and baton.db.journal.prev exist.
		const engine = await Engine.open({ workspaceRoot: root, log: new MemoryLogger(), create: true, git: noGit });
		for (let i = 1; i <= 45; i++) {
			await engine.tasks.add({ title: `task ${i}`, actor: 'test:cli' });
			if (i === 20 || i === 35) {
				await engine.store.compact();
			}
		}
		engine.close();
		const dir = path.join(root, '.baton');
		assert.ok(fs.existsSync(path.join(dir, 'baton.db.prev')) && fs.existsSync(path.join(dir, 'baton.db.journal.prev')));
		fs.rmSync(path.join(dir, 'baton.db'));

		// Opening refuses (and leaves the files as they are for the repair), then the repair loses nothing.
		const refused = baton(root, 'task', 'list', '--json');
		assert.equal(refused.code, 1);
		assert.equal(refused.json['error'].code, 'corruptDatabase');
		const repair = baton(root, 'doctor', '--repair', '--json');
		assert.equal(repair.code, 0, repair.stdout);
		assert.equal(repair.json['repair'].base, 'previous snapshot');
		assert.deepEqual(repair.json['repair'].losses, []);
		assert.equal(repair.json['repair'].droppedRecords, 0);
		const list = baton(root, 'task', 'list', '--json');
		assert.equal(list.code, 0, list.stdout);
		assert.equal((list.json['tasks'] as unknown[]).length, 45);
		assert.equal(baton(root, 'doctor', '--json').json['ok'], true);
	});
});
