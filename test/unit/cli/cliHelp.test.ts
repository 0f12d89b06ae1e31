import assert from 'node:assert/strict';
import fs from 'node:fs';
import { before, describe, it } from 'node:test';
import { tempDir } from '../helpers';
import { baton, cliPath } from './cliRunner';

void describe('baton explains itself (the bundled CLI)', () => {
	before(() => assert.ok(fs.existsSync(cliPath), `${cliPath} is missing: run \`npm run build\` first (npm test does)`));

	void it('prints a group’s usage for the group name and for --help at every level', (t) => {
		const root = tempDir(t);
		const bare = baton(root, 'checkpoint');
		assert.equal(bare.code, 2);
		assert.doesNotMatch(bare.stdout + bare.stderr, /unknown command/);
		for (const line of ['baton checkpoint create', 'baton checkpoint rollback ID', 'baton checkpoint policy']) {
			assert.ok(bare.stdout.includes(line), `${line} in the group usage`);
		}
		const help = baton(root, 'checkpoint', '--help');
		assert.equal(help.code, 0);
		assert.equal(help.stdout, bare.stdout);
		assert.match(baton(root, 'session', '-h').stdout, /baton session show \[ID\]/);
		assert.match(baton(root, 'checkpoint', 'create', '--help').stdout, /^usage: baton checkpoint create /);
		const wrong = baton(root, 'checkpoint', 'bogus');
		assert.equal(wrong.code, 2);
		assert.match(wrong.stderr, /unknown command "checkpoint bogus"\nusage: baton checkpoint <command>/);
	});

	void it('names an unknown flag with the command’s usage, never the parser’s text, and lists every scope form', (t) => {
		const root = tempDir(t);
		const run = baton(root, 'session', 'start', '--bogus');
		assert.equal(run.code, 2);
		assert.equal(
			run.stderr,
			'baton: session start does not take the option --bogus\nusage: baton session start --name N [--scope global|epic:ID|task:ID|subtree:ID|taskGroup:ID|epicPhase:ID:PHASE|custom:ID[,ID…]] [--agent A] [--agent-id ID] [--parent ID] [--task ID]\n',
		);
		assert.doesNotMatch(run.stderr, /To specify a positional|Unknown option/);
		const json = baton(root, 'session', 'start', '--bogus', '--json');
		assert.deepEqual(JSON.parse(json.stdout), {
			error: {
				code: 'usage',
				message:
					'session start does not take the option --bogus\nusage: baton session start --name N [--scope global|epic:ID|task:ID|subtree:ID|taskGroup:ID|epicPhase:ID:PHASE|custom:ID[,ID…]] [--agent A] [--agent-id ID] [--parent ID] [--task ID]',
			},
		});
		assert.match(
			baton(root, 'session', 'list', '--help').stdout,
			/--scope global\|epic:ID\|task:ID\|subtree:ID\|taskGroup:ID\|epicPhase:ID:PHASE\|custom:ID\[,ID…\]\]/,
		);
	});

	void it('shows the active session without an id, and lists the sessions when it must ask which one', (t) => {
		const root = tempDir(t);
		baton(root, 'init');
		assert.match(baton(root, 'session', 'show').stderr, /no active session to show/);
		const one = JSON.parse(baton(root, 'session', 'start', '--name', 'first', '--json').stdout).session as { id: string };
		const shown = baton(root, 'session', 'show', '--json');
		assert.equal(shown.code, 0, shown.stderr);
		assert.equal(JSON.parse(shown.stdout).session.id, one.id);
		const brief = baton(root, 'briefing');
		assert.equal(brief.code, 0, brief.stderr);
		assert.match(brief.stdout, new RegExp(`^Briefing for session first \\(${one.id}\\)`));

		const task = JSON.parse(baton(root, 'task', 'add', '--title', 'Auth', '--json').stdout).task as { id: string };
		const two = JSON.parse(baton(root, 'session', 'start', '--name', 'second', '--scope', `task:${task.id}`, '--agent', 'claude', '--json').stdout)
			.session as { id: string };
		const listing = `active sessions:\n  ${two.id}  second  (scope task:${task.id}, agent claude)\n  ${one.id}  first  (scope global)`;
		for (const args of [['session', 'show'], ['briefing'], ['session', 'end']]) {
			const run = baton(root, ...args);
			assert.equal(run.code, 1, args.join(' '));
			assert.match(run.stderr, /2 sessions are active; say which one/);
			assert.ok(run.stderr.includes(listing), `${args.join(' ')} lists both:\n${run.stderr}`);
		}
		assert.doesNotMatch(baton(root, 'briefing').stdout, /Briefing for a new session/, 'never a silent fresh-session briefing');
	});
});
