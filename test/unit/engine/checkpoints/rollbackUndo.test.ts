import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { actor } from '../../helpers';
import { exists, fingerprint, openCheckpointEngine, read, write } from './gitFixtures';

const outsideBaton = ['.baton'];

void describe('undoing a rollback', () => {
	void it('puts back exactly the state before the rollback: modified, added, deleted and untracked files', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		write(root, 'src/only-in-target.ts', 'the target has me\n');
		const target = await engine.checkpoints.create({ actor });

		clock.advance(1_000);
		write(root, 'src/app.ts', 'modified after the target\n');
		fs.rmSync(path.join(root, 'src/only-in-target.ts')); // deleted before the rollback
		write(root, 'src/agent.ts', 'added after the target\n');
		await engine.checkpoints.create({ actor, trigger: 'periodic' });
		clock.advance(1_000);
		write(root, 'mine/draft.md', 'untracked, written after the last checkpoint\n');
		write(root, 'src/app.ts', 'modified again, never checkpointed\n');

		const beforeRollback = fingerprint(root, outsideBaton);
		const rolled = await engine.checkpoints.rollback(target.id, { actor });
		assert.equal(read(root, 'src/only-in-target.ts'), 'the target has me\n', 'the rollback brought it back');
		assert.equal(exists(root, 'src/agent.ts'), false);

		clock.advance(1_000);
		const undo = await engine.checkpoints.rollback(rolled.safetyCheckpointId, { actor });
		assert.equal(exists(root, 'src/only-in-target.ts'), false, 'deleted before the rollback, so deleted again by its undo');
		assert.ok(undo.removed.includes('src/only-in-target.ts'));
		assert.deepEqual(fingerprint(root, outsideBaton), beforeRollback, 'every byte, mode and link as before the rollback');
	});

	void it('keeps a file created after the rollback at a path the rollback did not write', async (t) => {
		const { engine, root, clock } = await openCheckpointEngine(t);
		const target = await engine.checkpoints.create({ actor });
		clock.advance(1_000);
		write(root, 'src/agent.ts', 'added after the target\n');
		await engine.checkpoints.create({ actor });
		const rolled = await engine.checkpoints.rollback(target.id, { actor });
		clock.advance(1_000);
		write(root, 'mine/after-rollback.md', 'the user wrote this after the rollback\n');
		await engine.checkpoints.rollback(rolled.safetyCheckpointId, { actor });
		assert.equal(read(root, 'src/agent.ts'), 'added after the target\n');
		assert.equal(read(root, 'mine/after-rollback.md'), 'the user wrote this after the rollback\n', 'no proof it is the rollback’s: kept');
	});
});
