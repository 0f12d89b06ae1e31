import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers';
import { baton } from './cliRunner';

void describe('a session scoped to one task (the bundled CLI)', () => {
	void it('works on that task: task:T2 makes T2 the current task unless another is named', (t) => {
		const root = tempDir(t);
		baton(root, 'init');
		baton(root, 'task', 'add', '--title', 'Payments', '--type', 'epic');
		baton(root, 'task', 'add', '--title', 'Retry webhooks', '--parent', 'T1');
		const started = baton(root, 'session', 'start', '--name', 'webhooks', '--scope', 'task:T2', '--json');
		assert.equal(started.code, 0, started.stderr);
		assert.equal(started.json['session'].currentTask, 'T2');
		assert.equal(started.json['briefing'].currentTask?.id, 'T2', 'the briefing leads with it');
		const shown = baton(root, 'session', 'show', started.json['session'].id, '--json');
		assert.equal(shown.code, 0, shown.stderr);
		assert.equal(shown.json['session'].currentTask, 'T2');
		// A wider scope names no task of its own.
		baton(root, 'session', 'end', '--note', 'done');
		const epic = baton(root, 'session', 'start', '--name', 'epic', '--scope', 'epic:T1', '--json');
		assert.equal(epic.json['session'].currentTask, null);
	});
});
