/**
 * Issue #27 (item 2): with two sessions active in two scopes, each after an ended session with a
 * handoff, the editor's Show Briefing asked for a scope and then briefed it as empty ("No session in
 * this scope", "This is the first session in this scope") while `baton briefing --session` printed
 * the session and its previous handoff. A scope's briefing is now its running session's, through the
 * backend (what the editor asks) and the CLI alike; a scope with none still gets a fresh session's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as rpc from '../../../src/protocol/rpc';
import type { BriefingDto } from '../../../src/protocol/dto';
import { tempDir } from '../helpers';
import { baton } from '../cli/cliRunner';
import { startServer } from './serverHarness';

/** A briefing without the moment it was computed, to compare two computations of it. */
function timeless(briefing: BriefingDto): Omit<BriefingDto, 'generatedAt'> {
	const { generatedAt, ...rest } = briefing;
	assert.ok(generatedAt);
	return rest;
}

function ok(cwd: string, ...args: string[]): Record<string, any> {
	const run = baton(cwd, ...args, '--json');
	assert.equal(run.code, 0, `baton ${args.join(' ')}: ${run.stderr}`);
	return run.json;
}

void describe('the briefing of a scope with a running session', () => {
	void it('is that session’s, from the backend and from the CLI, and names it', async (t) => {
		const workspace = tempDir(t);
		ok(workspace, 'init');
		for (let i = 1; i <= 7; i++) {
			ok(workspace, 'task', 'add', '--title', `Task ${i}`);
		}
		const first = ok(workspace, 'session', 'start', '--name', 'T7 groundwork', '--scope', 'task:T7')['session'].id as string;
		ok(workspace, 'session', 'end', '--id', first, '--note', 'Parser handles the T7 cases', '--next-action', 'Wire the T7 parser in');
		const t7 = ok(workspace, 'session', 'start', '--name', 'T7 wiring', '--scope', 'task:T7')['session'].id as string;
		const before = ok(workspace, 'session', 'start', '--name', 'Global sweep')['session'].id as string;
		ok(workspace, 'session', 'end', '--id', before, '--note', 'Swept the global lint errors');
		const global = ok(workspace, 'session', 'start', '--name', 'Global follow-up')['session'].id as string;
		// An ended session alone in its scope: that scope's briefing is still a new session's.
		const lone = ok(workspace, 'session', 'start', '--name', 'T3 spike', '--scope', 'task:T3')['session'].id as string;
		ok(workspace, 'session', 'end', '--id', lone, '--note', 'Spiked T3');

		// The CLI without a session refuses with two active, as before, and names the way out.
		const refused = baton(workspace, 'briefing');
		assert.notEqual(refused.code, 0);
		assert.match(refused.stderr, /2 sessions are active; say which one to brief: baton briefing --session ID \(or --scope S\)/);

		const { connection } = startServer(t, workspace);
		const expected = [
			{ scope: 'task:T7', session: t7, previous: first, note: 'Parser handles the T7 cases', heading: 'Briefing for session T7 wiring' },
			{ scope: 'global', session: global, previous: before, note: 'Swept the global lint errors', heading: 'Briefing for session Global follow-up' },
		];
		for (const want of expected) {
			const fromCli = ok(workspace, 'briefing', '--session', want.session)['briefing'] as BriefingDto;
			assert.equal(fromCli.lastSession?.handoff?.note, want.note, `the CLI briefs ${want.scope}'s session with its handoff`);
			const { briefing } = await connection.sendRequest(rpc.briefingGet, { scope: want.scope });
			assert.equal(briefing.sessionId, want.session, `the editor's ${want.scope} briefing is its running session's`);
			assert.equal(briefing.lastSession?.id, want.previous);
			assert.deepEqual(timeless(briefing), timeless(fromCli), `the editor's ${want.scope} briefing is the CLI's`);
			const byScope = baton(workspace, 'briefing', '--scope', want.scope);
			assert.equal(byScope.code, 0, byScope.stderr);
			assert.ok(byScope.stdout.startsWith(`${want.heading} (${want.session})`), byScope.stdout);
			assert.match(byScope.stdout, new RegExp(`note: ${want.note}`));
			assert.deepEqual(timeless(ok(workspace, 'briefing', '--scope', want.scope)['briefing'] as BriefingDto), timeless(fromCli));
		}

		const { briefing: fresh } = await connection.sendRequest(rpc.briefingGet, { scope: 'task:T3' });
		assert.equal(fresh.sessionId, null, 'no session runs in task:T3');
		assert.equal(fresh.lastSession?.id, lone, 'a new session there picks up the ended one');
		const freshCli = baton(workspace, 'briefing', '--scope', 'task:T3');
		assert.ok(freshCli.stdout.startsWith('Briefing for a new session in scope task:T3'), freshCli.stdout);
	});
});
