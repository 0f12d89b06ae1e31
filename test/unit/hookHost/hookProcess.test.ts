/**
 * `baton hook` as agents run it: the bundled CLI as a process, recorded payloads of every event of
 * the three dialects on stdin.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it, type TestContext } from 'node:test';
import { eq } from 'drizzle-orm';
import { Engine } from '../../../src/engine/engine';
import { silentLogger } from '../../../src/engine/ports';
import { sessionAliases } from '../../../src/engine/storage/schema';
import { tempDir } from '../helpers';
import { agentCli, fixtureNames, hookFixture, hookLogLines, runBaton, type Dialect, type Run } from '../cli/agentCli';
import { TranscriptWriter } from '../engine/transcripts/transcriptWriter';

let cli = '';
before(async () => {
	cli = await agentCli();
});

interface Workspace {
	root: string;
	claudeHome: string;
	baton(args: string[], input?: string): Run;
	hook(dialect: Dialect, name: string, overrides?: Record<string, unknown>, event?: string): Run;
	transcript(agentSessionId: string): string;
	index(): any;
}

function workspace(t: TestContext): Workspace {
	const base = tempDir(t, 'baton-hooks-');
	const root = path.join(base, 'project');
	const claudeHome = path.join(base, 'claude');
	fs.mkdirSync(root);
	const baton = (args: string[], input?: string): Run =>
		runBaton(cli, root, args, { ...(input !== undefined ? { input } : {}), env: { BATON_CLAUDE_HOME: claudeHome } });
	assert.equal(baton(['init']).code, 0);
	return {
		root,
		claudeHome,
		baton,
		hook: (dialect, name, overrides = {}, event) =>
			baton(['hook', ...(event ? [event] : [])], JSON.stringify(hookFixture(dialect, name, { root, claudeHome }, overrides))),
		transcript: (id) => path.join(claudeHome, 'projects', root.replace(/[^A-Za-z0-9]/g, '-'), `${id}.jsonl`),
		index: () => JSON.parse(fs.readFileSync(path.join(root, '.baton', 'transcripts', 'index.json'), 'utf8')),
	};
}

function sessions(w: Workspace): any[] {
	const list = w.baton(['session', 'list', '--json']);
	assert.equal(list.code, 0, list.stderr);
	return list.json?.['sessions'] as any[];
}

async function aliasesOf(root: string, sessionId: string): Promise<string[]> {
	const engine = await Engine.open({ workspaceRoot: root, log: silentLogger });
	try {
		return await engine.store.read((db) =>
			db
				.select()
				.from(sessionAliases)
				.where(eq(sessionAliases.sessionId, sessionId))
				.all()
				.map((a) => `${a.agent}:${a.alias}`)
				.sort(),
		);
	} finally {
		engine.close();
	}
}

/** Runs a hook and checks the contract: exit 0, nothing on stderr, stdout empty or one JSON line. */
function quiet(run: Run, what: string): Record<string, any> | undefined {
	assert.equal(run.code, 0, `${what}: exit ${run.code} ${run.stderr}`);
	assert.equal(run.stderr, '', `${what}: stderr`);
	if (run.stdout === '') {
		return undefined;
	}
	assert.match(run.stdout, /^\{.*\}\n$/, `${what}: one JSON line`);
	return JSON.parse(run.stdout) as Record<string, any>;
}

const order: Record<Dialect, string[]> = {
	claude: [
		'session-start-startup',
		'user-prompt-submit',
		'pre-tool-use',
		'pre-tool-use-bash',
		'post-tool-use',
		'post-tool-use-read',
		'stop',
		'subagent-stop',
		'notification',
		'pre-compact',
		'session-start-compact',
		'session-end-clear',
		'session-start-clear',
		'session-start-resume',
		'session-end',
	],
	copilot: ['session-start', 'user-prompt-submit', 'pre-tool-use', 'post-tool-use', 'subagent-start', 'subagent-stop', 'pre-compact', 'stop'],
	cline: ['task-start', 'user-prompt-submit', 'pre-tool-use', 'post-tool-use', 'pre-compact', 'task-cancel', 'task-resume', 'task-complete'],
};

const answers: Record<string, 'context' | 'cline-context'> = {
	'claude/session-start-startup': 'context',
	'claude/session-start-compact': 'context',
	'claude/session-start-clear': 'context',
	'claude/session-start-resume': 'context',
	'copilot/session-start': 'context',
	'cline/task-start': 'cline-context',
	'cline/task-resume': 'cline-context',
};

void describe('baton hook (the bundled CLI, payload on stdin)', () => {
	for (const dialect of ['claude', 'copilot', 'cline'] as const) {
		void it(`answers every recorded ${dialect} payload, and they all land on one durable session`, async (t) => {
			const w = workspace(t);
			assert.deepEqual([...order[dialect]].sort(), fixtureNames(dialect), 'the sequence covers every fixture');
			for (const name of order[dialect]) {
				const out = quiet(w.hook(dialect, name), `${dialect}/${name}`);
				const answer = answers[`${dialect}/${name}`];
				if (answer === 'context') {
					assert.equal(out?.['hookSpecificOutput']?.hookEventName, 'SessionStart', name);
					assert.match(out?.['hookSpecificOutput']?.additionalContext, /^Baton briefing for durable session ses_/, name);
				} else if (answer === 'cline-context') {
					assert.equal(out?.['cancel'], false, name);
					assert.match(out?.['contextModification'], /^Baton briefing for durable session ses_/, name);
				} else if (dialect === 'cline') {
					// Cline wants its JSON answer from every hook, even one with nothing to say.
					assert.deepEqual(out, { cancel: false }, `${dialect}/${name} carries on`);
				} else {
					assert.equal(out, undefined, `${dialect}/${name} prints nothing`);
				}
			}
			const all = sessions(w);
			assert.equal(all.length, 1, `one durable session: ${all.map((s) => s.name).join(', ')}`);
			const [session] = all;
			assert.equal(session.status, 'ended', 'the session end of the dialect ended it');
			assert.equal(session.agent, dialect === 'claude' ? 'claude-code' : dialect);
			const log = hookLogLines(w.root).join('\n');
			assert.match(log, / → ended ses_/);
			if (dialect !== 'cline') {
				assert.match(log, dialect === 'claude' ? /claude-code Notification \S+ → signalled ses_/ : /ignored unknown event SubagentStart/);
			}
			const handoff = w.baton(['session', 'show', session.id, '--json']).json?.['handoff'];
			assert.match(
				handoff.note,
				dialect === 'claude'
					? /^Claude Code session ended \(prompt_input_exit\)/
					: dialect === 'copilot'
						? /^Copilot session ended \(stop\)/
						: /^Cline session ended \(complete\)/,
			);
			// A session's files touched live in its sidecar, not in index.json (transcripts/sessionFiles.ts).
			const files = JSON.parse(fs.readFileSync(path.join(w.root, '.baton', 'transcripts', '_sessions', `${session.id}.json`), 'utf8')).archive
				.filesTouched;
			assert.deepEqual(
				files,
				{ claude: ['src/auth/rotation.ts'], copilot: ['test/login.test.ts', 'test/helpers/wait.ts'], cline: ['src/api/orders.ts'] }[dialect],
				'edit tools recorded their files, workspace-relative; reads recorded nothing',
			);
			if (dialect === 'claude') {
				assert.deepEqual(await aliasesOf(w.root, session.id), [
					'claude-code:0b9e77d1-8c3a-4f5e-a2d6-71c4e9b3f802',
					'claude-code:6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33',
					'claude-code:a4d2c8f0-19be-4e6a-8f3c-2b7e5d9a0c14',
				]);
				assert.match(log, /SessionEnd 6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33 → kept ses_\S+ \(conversation switch \(clear\)\)/);
			}
			if (dialect === 'cline') {
				assert.match(log, /TaskCancel .* → suspended/);
				assert.match(log, /TaskResume .* → continued/);
			}
			if (dialect === 'copilot') {
				// Another prompt in the same chat after its Stop: the work goes on in the same session.
				quiet(w.hook('copilot', 'user-prompt-submit', { timestamp: '2026-03-01T09:30:00.000Z' }), 'prompt after stop');
				const [again] = sessions(w);
				assert.deepEqual([again.id, again.status, again.resumeCount], [session.id, 'active', 1]);
				quiet(w.hook('copilot', 'stop', { timestamp: '2026-03-01T09:31:00.000Z' }), 'second stop');
				assert.equal(sessions(w)[0].status, 'ended');
				assert.match(
					w.baton(['session', 'show', session.id, '--json']).json?.['handoff'].note,
					/^Copilot session ended \(stop\)/,
					'the first handoff stays (write-once)',
				);
			}
		});
	}

	void it('briefs a Claude session from the previous handoff, never ends it on Stop, and hands over what the transcript shows', (t) => {
		const w = workspace(t);
		assert.equal(w.baton(['task', 'add', '--title', 'Refresh-token rotation', '--priority', 'high']).code, 0);
		w.baton(['session', 'start', '--name', 'earlier work']);
		w.baton(['session', 'end', '--note', 'JWT signing done', '--next-action', 'rotate refresh tokens']);
		const id = '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33';
		const start = quiet(w.hook('claude', 'session-start-startup'), 'start');
		const context = start?.['hookSpecificOutput'].additionalContext as string;
		assert.match(context, /Note: JWT signing done/);
		assert.match(context, /Next action: rotate refresh tokens/);
		assert.match(context, /T1 Refresh-token rotation \[high\]/);
		assert.ok(context.length <= 4_000);
		const [session] = sessions(w).filter((s) => s.status === 'active');
		assert.equal(session.previousSessionId !== null, true, 'chained to the earlier session of its scope');

		const transcript = new TranscriptWriter(id, w.root);
		transcript.snapshot().user('Please add refresh-token rotation; the staging key is sk-ant-api03-SECRETSECRETSECRET0123456789');
		const [edit] = transcript.assistant(
			[
				{ text: 'I will edit the token module.' },
				{ tool: 'Edit', input: { file_path: path.join(w.root, 'src/auth/tokens.ts'), old_string: 'a', new_string: 'b' } },
			],
			{
				input_tokens: 1200,
				output_tokens: 300,
			},
		);
		transcript.toolResult(edit as string, 'ok');
		transcript.assistant([{ text: 'Rotation is in place.' }], { input_tokens: 1500, output_tokens: 80 });
		transcript.flush(w.transcript(id));
		for (let i = 0; i < 5; i++) {
			assert.equal(quiet(w.hook('claude', 'stop'), 'stop'), undefined);
		}
		const afterStops = sessions(w).find((s) => s.id === session.id);
		assert.equal(afterStops.status, 'active', 'Stop fires every turn: it never ends the session');
		assert.ok(afterStops.lastActivity >= session.lastActivity);
		const index = w.index();
		const entry = index.transcripts[`claude-code:${id}`];
		assert.equal(entry.sessionId, session.id, 'the transcript is linked through the alias');
		assert.equal(entry.userRequests, 1);
		assert.deepEqual(entry.tokens['claude-sonnet-4-5-20250929'], { input: 2700, output: 380, cacheRead: 0, cacheCreation: 0 }, 'each message counted once');
		const archive = fs.readFileSync(path.join(w.root, '.baton', 'transcripts', entry.archivePath), 'utf8');
		assert.doesNotMatch(archive, /SECRETSECRET/);
		assert.match(archive, /REDACTED:anthropic-key/);

		quiet(w.hook('claude', 'pre-compact'), 'pre-compact');
		assert.match(w.index().sessions[session.id].notes[0].text, /^Before auto compaction\. Last request: "Please add refresh-token rotation/);
		quiet(w.hook('claude', 'session-end'), 'end');
		const shown = w.baton(['session', 'show', session.id, '--json']).json;
		assert.equal(shown?.['session'].status, 'ended');
		const note = shown?.['handoff'].note as string;
		assert.match(
			note,
			/^Claude Code session ended \(prompt_input_exit\)\. Last request: "Please add refresh-token rotation; the staging key is \[REDACTED:anthropic-key\]"/,
		);
		assert.match(note, /Files changed \(1\): src\/auth\/tokens\.ts/);
		assert.match(note, /Agent's last words: "Rotation is in place\."/);
		assert.match(note, /Activity: 1 request, 1 tool call, 3k tokens \(≈ \$0\.01\)/);
	});

	void it('keeps one durable session through resume, clear and compact, whichever way the id is found', async (t) => {
		const w = workspace(t);
		const first = '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33';
		quiet(w.hook('claude', 'session-start-startup'), 'startup');
		const [session] = sessions(w);
		new TranscriptWriter(first, w.root).user('first conversation').flush(w.transcript(first));
		// Another Claude session becomes the most recently active one (a second window, another scope).
		assert.equal(w.baton(['task', 'add', '--title', 'Epic', '--type', 'epic']).code, 0);
		const other = w.baton(['session', 'start', '--name', 'other window', '--scope', 'epic:T1', '--agent', 'claude-code', '--agent-id', 'other-1', '--json'])
			.json?.['session'];
		// Resume under a new id whose transcript starts with the earlier conversation's records: found through the transcript.
		const resumed = '0b9e77d1-8c3a-4f5e-a2d6-71c4e9b3f802';
		const carried = new TranscriptWriter(first, w.root).user('first conversation');
		carried.flush(w.transcript(resumed));
		new TranscriptWriter(resumed, w.root, Date.parse('2026-03-01T10:00:00.000Z')).user('and now, resumed').flush(w.transcript(resumed));
		quiet(w.hook('claude', 'session-start-resume'), 'resume');
		// A clear whose payload names the id it replaces.
		const cleared = 'a4d2c8f0-19be-4e6a-8f3c-2b7e5d9a0c14';
		quiet(w.hook('claude', 'session-start-clear', { previous_session_id: resumed }), 'clear');
		// A compaction keeps Claude's id: found through the alias.
		const compact = quiet(w.hook('claude', 'session-start-compact', { session_id: cleared, transcript_path: w.transcript(cleared) }), 'compact');
		assert.match(
			compact?.['hookSpecificOutput'].additionalContext,
			/This durable session so far:\n- Last request: "and now, resumed"\n- Activity: 2 requests\n/,
			'the records the resumed transcript carried over are counted once',
		);
		const all = sessions(w);
		assert.equal(all.length, 2, 'no new session: the chain is intact');
		assert.deepEqual(await aliasesOf(w.root, session.id), [`claude-code:${resumed}`, `claude-code:${first}`, `claude-code:${cleared}`].sort());
		assert.deepEqual(await aliasesOf(w.root, other.id), ['claude-code:other-1'], 'the more recent session got nothing');
		const log = hookLogLines(w.root).join('\n');
		assert.match(log, new RegExp(`${resumed} → aliased ${session.id} \\(transcript\\)`));
		assert.match(log, new RegExp(`${cleared} → aliased ${session.id} \\(previous\\)`));
		assert.match(log, new RegExp(`compact ${cleared} → continued ${session.id} \\(alias\\)|SessionStart ${cleared} → continued ${session.id} \\(alias\\)`));
		// Without any evidence, a clear joins the agent's most recently active session (the process continues in it).
		quiet(w.hook('claude', 'session-start-clear', { session_id: 'fresh-after-clear', transcript_path: w.transcript('fresh-after-clear') }), 'bare clear');
		assert.ok((await aliasesOf(w.root, session.id)).includes('claude-code:fresh-after-clear'));
		assert.match(hookLogLines(w.root).at(-1) as string, new RegExp(`fresh-after-clear → aliased ${session.id} \\(recent\\)`));
		assert.equal(sessions(w).length, 2);
	});

	void it('ignores a bootstrap transcript that holds only a file-history snapshot', (t) => {
		const w = workspace(t);
		const id = '0b9e77d1-8c3a-4f5e-a2d6-71c4e9b3f802';
		new TranscriptWriter(id, w.root).snapshot().flush(w.transcript(id));
		for (const name of ['session-start-resume', 'session-start-startup']) {
			assert.equal(quiet(w.hook('claude', name, { session_id: id, transcript_path: w.transcript(id) }), name), undefined);
		}
		assert.equal(quiet(w.hook('claude', 'stop', { session_id: id, transcript_path: w.transcript(id) }), 'stop'), undefined);
		assert.deepEqual(sessions(w), [], 'no session for a bootstrap id');
		assert.equal(hookLogLines(w.root).filter((l) => /→ ignored \(bootstrap transcript/.test(l)).length, 3);
		// A missing transcript is a brand-new session, not a bootstrap one.
		quiet(w.hook('claude', 'session-start-startup', { transcript_path: w.transcript('not-written-yet') }), 'new');
		assert.equal(sessions(w).length, 1);
	});

	void it('exits 0 with nothing on stdout for malformed and unknown payloads, and logs why', (t) => {
		const w = workspace(t);
		const inputs: [string[], string][] = [
			[['hook'], ''],
			[['hook', 'stop'], 'not json at all'],
			[['hook'], '[1,2,3]'],
			[['hook'], JSON.stringify({ hook_event_name: 'Stop', cwd: w.root })],
			[['hook', 'stop'], JSON.stringify({ session_id: 42, cwd: w.root })],
			[['hook'], JSON.stringify({ session_id: 'x', cwd: w.root })],
			[['hook'], JSON.stringify(hookFixture('claude', 'notification', { root: w.root, claudeHome: w.claudeHome }, { hook_event_name: 'TeammateIdle' }))],
			[['hook', 'stop', '--some-future-option', 'x'], JSON.stringify({ session_id: 42, cwd: w.root })],
		];
		for (const [args, input] of inputs) {
			const run = w.baton(args, input);
			assert.equal(run.code, 0, `${args.join(' ')} ${input}`);
			assert.equal(run.stdout, '', `${args.join(' ')} ${input}: nothing on stdout`);
			assert.equal(run.stderr, '');
		}
		const log = hookLogLines(w.root);
		assert.equal(log.length, inputs.length, log.join('\n'));
		assert.match(log[0] as string, /malformed hook payload \(0 bytes\): no payload on stdin/);
		assert.match(log[1] as string, /malformed hook payload \(15 bytes, event argument stop\): stdin is not JSON/);
		assert.match(log[2] as string, /not a JSON object/);
		assert.match(log[3] as string, /no session id/);
		assert.match(log[4] as string, /session_id: Invalid input/);
		assert.match(log[5] as string, /no event name/);
		assert.match(log[6] as string, /WARN.*ignored unknown event TeammateIdle/i);
		assert.ok(
			log.every((l) => !l.includes('not json at all')),
			'payload contents never reach the log',
		);
		assert.deepEqual(sessions(w), []);
		assert.match(w.baton(['hook', '--help']).stdout, /^usage: baton hook \[EVENT\]/);
		// Outside a Baton workspace: nothing, and nothing written anywhere.
		const elsewhere = tempDir(t, 'baton-none-');
		const run = runBaton(cli, elsewhere, ['hook', 'session-start'], {
			input: JSON.stringify({ session_id: 'a', hook_event_name: 'SessionStart', cwd: elsewhere }),
		});
		assert.deepEqual([run.code, run.stdout, run.stderr], [0, '', '']);
		assert.deepEqual(fs.readdirSync(elsewhere), []);
	});

	void it('asks before edits while an escalated checkpoint of the session awaits approval', (t) => {
		const w = workspace(t);
		quiet(w.hook('claude', 'session-start-startup'), 'start');
		// Cline works in a scope of its own (one active session per scope: it would join Claude's otherwise).
		assert.equal(w.baton(['task', 'add', '--title', 'Orders API', '--type', 'epic']).code, 0);
		assert.equal(w.baton(['session', 'start', '--name', 'cline', '--scope', 'epic:T1', '--agent', 'cline', '--agent-id', '1740819600123']).code, 0);
		quiet(w.hook('cline', 'task-start'), 'cline start');
		const [claude, cline] = ['claude-code', 'cline'].map((agent) => sessions(w).find((s) => s.agent === agent));
		assert.equal(quiet(w.hook('claude', 'pre-tool-use'), 'no checkpoint yet'), undefined);
		fs.writeFileSync(path.join(w.root, 'a.txt'), 'work\n');
		const created = w.baton(['checkpoint', 'create', '--session', claude.id, '--cost', '9', '--json']);
		if (created.code === 2) {
			t.skip('this build has no checkpoint commands');
			return;
		}
		assert.equal(created.code, 0, created.stdout + created.stderr);
		const checkpoint = created.json?.['checkpoint'];
		assert.equal(checkpoint.approvalStatus, 'pending');
		// Each call is a new tool call (its own tool_use_id): a repeated id is one call run from two hook files.
		const ask = quiet(w.hook('claude', 'pre-tool-use', { tool_use_id: 'toolu_pending_1' }), 'edit while pending');
		assert.equal(ask?.['hookSpecificOutput'].hookEventName, 'PreToolUse');
		assert.equal(ask?.['hookSpecificOutput'].permissionDecision, 'ask');
		assert.match(ask?.['hookSpecificOutput'].permissionDecisionReason, new RegExp(`checkpoint ${checkpoint.id} .*cost \\$9\\.00`));
		assert.equal(quiet(w.hook('claude', 'pre-tool-use-bash'), 'bash while pending')?.['hookSpecificOutput'].permissionDecision, 'ask');
		assert.equal(quiet(w.hook('claude', 'pre-tool-use', { tool_name: 'Read', tool_input: { file_path: 'x' } }), 'read while pending'), undefined);
		assert.deepEqual(quiet(w.hook('cline', 'pre-tool-use'), 'another session'), { cancel: false }, 'only the session whose checkpoint waits');
		const clineCheckpoint = w.baton(['checkpoint', 'create', '--session', cline.id, '--errors', '5', '--json']).json?.['checkpoint'];
		const blocked = quiet(w.hook('cline', 'pre-tool-use', { timestamp: '1772355700000' }), 'cline while pending');
		assert.equal(blocked?.['cancel'], true);
		assert.match(blocked?.['errorMessage'], new RegExp(clineCheckpoint.id));
		assert.equal(w.baton(['checkpoint', 'approve', checkpoint.id]).code, 0);
		assert.equal(quiet(w.hook('claude', 'pre-tool-use', { tool_use_id: 'toolu_pending_2' }), 'approved'), undefined);
		// Checkpoints are in use now: a compaction takes its `compact` checkpoint.
		quiet(w.hook('claude', 'pre-compact'), 'pre-compact');
		const triggers = (w.baton(['checkpoint', 'list', '--session', claude.id, '--json']).json?.['checkpoints'] as any[]).map((c) => c.trigger);
		assert.ok(triggers.includes('compact'), triggers.join(','));
	});
});
