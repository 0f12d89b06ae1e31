/**
 * Turn capture end to end: recorded hook payloads of Claude Code, Copilot (VS Code and the CLI's
 * documented examples) and Cline piped into the bundled `baton hook` as processes, around real file
 * changes in a real workspace (edits, a shell command, an MCP tool, a person's edit), then read back
 * with `baton timeline --json` and undone with `baton timeline revert`.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it, type TestContext } from 'node:test';
import { tempDir } from '../../helpers';
import { agentCli, hookFixture, repoRoot, runBaton, type Dialect, type Run } from '../../cli/agentCli';

let cli = '';
before(async () => {
	cli = await agentCli();
});

interface Workspace {
	root: string;
	baton(args: string[], input?: string): Run;
	hook(dialect: Dialect, name: string, overrides?: Record<string, unknown>, event?: string): void;
	raw(payload: unknown, args: string[]): void;
	write(file: string, text: string): void;
	read(file: string): string;
	timeline(): { session: string; steps: any[]; prompts: any[] };
}

function workspace(t: TestContext): Workspace {
	const base = tempDir(t, 'baton-timeline-');
	const root = path.join(base, 'project');
	const claudeHome = path.join(base, 'claude');
	fs.mkdirSync(root);
	const baton = (args: string[], input?: string): Run =>
		runBaton(cli, root, args, { ...(input !== undefined ? { input } : {}), env: { BATON_CLAUDE_HOME: claudeHome } });
	assert.equal(baton(['init']).code, 0);
	const hookRun = (args: string[], input: string): void => {
		const run = baton(['hook', ...args], input);
		assert.equal(run.code, 0, run.stderr);
		assert.equal(run.stderr, '', 'a hook writes nothing on stderr');
	};
	return {
		root,
		baton,
		hook: (dialect, name, overrides = {}, event) =>
			hookRun(event ? [event] : [], JSON.stringify(hookFixture(dialect, name, { root, claudeHome }, overrides))),
		raw: (payload, args) => hookRun(args, JSON.stringify(payload)),
		write: (file, text) => {
			fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
			fs.writeFileSync(path.join(root, file), text);
		},
		read: (file) => fs.readFileSync(path.join(root, file), 'utf8'),
		timeline: () => {
			const run = baton(['timeline', '--json']);
			assert.equal(run.code, 0, run.stdout + run.stderr);
			return run.json as { session: string; steps: any[]; prompts: any[] };
		},
	};
}

const files = (step: any): string[] => step.files.map((f: any) => `${f.change} ${f.path} +${f.additions} -${f.deletions}`);

void describe('timeline capture from real hook payloads', () => {
	void it('Claude Code: an edit, a shell command that edits two files and deletes one, an MCP tool and a person between turns', (t) => {
		const w = workspace(t);
		w.write('src/auth/tokens.ts', 'export const issuer = "baton";\nconst ttl = 3600;\nexport { ttl };\n');
		w.write('src/auth/session.ts', 'export const cookie = "sid";\n');
		w.write('src/auth/legacy.ts', 'export const old = true;\n');
		w.write('README.md', 'Auth service\n');
		w.hook('claude', 'session-start-startup');
		w.hook('claude', 'user-prompt-submit');

		// The Edit tool: PreToolUse, the edit itself, PostToolUse with the same tool_use_id.
		w.hook('claude', 'pre-tool-use');
		w.write('src/auth/tokens.ts', w.read('src/auth/tokens.ts').replace('const ttl = 3600;', 'const ttl = 900;'));
		const editInput = hookFixture('claude', 'pre-tool-use', { root: w.root, claudeHome: '' })['tool_input'];
		w.hook('claude', 'post-tool-use', { tool_name: 'Edit', tool_input: editInput, tool_use_id: 'toolu_01HkT8vYwQ3mZ2bN4cR7sX9p' });

		// Bash: one command edits two files and deletes one; it really runs in the workspace.
		const command = "sed -i 's/sid/__Host-sid/' src/auth/session.ts && printf 'export const rotate = 1;\\n' >> src/auth/tokens.ts && rm src/auth/legacy.ts";
		w.hook('claude', 'pre-tool-use-bash', { tool_input: { command, description: 'rotate' } });
		execFileSync('sh', ['-c', command], { cwd: w.root });
		w.hook('claude', 'pre-tool-use-bash', {
			hook_event_name: 'PostToolUse',
			tool_input: { command, description: 'rotate' },
			tool_response: { stdout: '', stderr: '' },
		});

		// A person edits the README between two turns.
		w.write('README.md', 'Auth service\n\nTokens rotate every 15 minutes.\n');
		w.hook('claude', 'user-prompt-submit', { prompt: 'Now write the changelog through the filesystem server' });

		// An MCP tool that writes a file.
		const mcp = {
			tool_name: 'mcp__filesystem__write_file',
			tool_input: { path: 'CHANGELOG.md', content: '## 2.0\n- token rotation\n' },
			tool_use_id: 'toolu_01MCPwrite',
		};
		w.hook('claude', 'pre-tool-use', mcp);
		w.write('CHANGELOG.md', '## 2.0\n- token rotation\n');
		w.hook('claude', 'pre-tool-use', { ...mcp, hook_event_name: 'PostToolUse', tool_response: 'ok' });

		const timeline = w.timeline();
		assert.deepEqual(
			timeline.prompts.map((p) => [p.turn, p.text]),
			[
				[1, 'Add refresh-token rotation to the auth service'],
				[2, 'Now write the changelog through the filesystem server'],
			],
		);
		const steps = timeline.steps;
		assert.deepEqual(
			steps.map((s) => [s.step, s.turn, s.actor, s.tool, s.captured]),
			[
				[1, 1, 'agent', 'Edit', true],
				[2, 1, 'agent', 'Bash', true],
				[3, 2, 'human', null, true],
				[4, 2, 'agent', 'mcp__filesystem__write_file', true],
			],
		);
		assert.deepEqual(files(steps[0]), ['modified src/auth/tokens.ts +1 -1']);
		assert.equal(steps[0].toolUseId, 'toolu_01HkT8vYwQ3mZ2bN4cR7sX9p');
		assert.equal(steps[0].summary, 'src/auth/tokens.ts', 'the payload named an absolute path; the record names none');
		assert.ok(!JSON.stringify(timeline).includes(w.root), 'no absolute path of this machine in the records');
		assert.deepEqual(files(steps[1]), ['deleted src/auth/legacy.ts +0 -1', 'modified src/auth/session.ts +1 -1', 'modified src/auth/tokens.ts +1 -0']);
		assert.equal(steps[1].summary, command);
		assert.equal(steps[1].toolUseId, 'toolu_01Jq2pLk8sVb5nT1mW6xR3cD');
		assert.deepEqual(files(steps[2]), ['modified README.md +2 -0']);
		assert.deepEqual(files(steps[3]), ['added CHANGELOG.md +2 -0']);
		// Each step's trees chain: the person's step starts where the agent's last one ended.
		assert.equal(steps[1].treeBefore, steps[0].treeAfter);
		assert.equal(steps[2].treeBefore, steps[1].treeAfter);
		assert.equal(steps[3].treeBefore, steps[2].treeAfter);

		// The trees are kept by a ref of the session in Baton's store (not the user's repository).
		const gitDir = path.join(w.root, '.baton', 'shadow.git');
		const refs = execFileSync('git', ['--git-dir', gitDir, 'for-each-ref', '--format=%(refname)', 'refs/baton/timeline/'], { encoding: 'utf8' }).trim();
		assert.equal(refs, `refs/baton/timeline/${timeline.session}`);
		// Whole trees only at keyframes (here the session's first capture); every step's blobs are kept
		// in the session's own pack, marked with a `.keep` naming the session, once maintenance ran.
		const keyframes = () =>
			execFileSync('git', ['--git-dir', gitDir, 'log', '--first-parent', '--format=%T', refs], { encoding: 'utf8' }).trim().split('\n');
		assert.deepEqual(keyframes(), [steps[0].treeBefore], 'the one keyframe is the session start');
		assert.equal((w.baton(['timeline', 'prune', '--pack', '--json']).json as any).packed, true);
		assert.deepEqual(keyframes(), [steps[0].treeBefore], 'maintenance adds no tree');
		const packDir = path.join(gitDir, 'objects', 'pack');
		const keeps = fs
			.readdirSync(packDir)
			.filter((f) => f.endsWith('.keep') && fs.readFileSync(path.join(packDir, f), 'utf8').startsWith(`baton timeline ${timeline.session}\n`));
		assert.equal(keeps.length, 1, 'one kept pack for the session');
		const reachable = new Set(
			execFileSync('git', ['show-index'], { input: fs.readFileSync(path.join(packDir, keeps[0]!.replace(/\.keep$/, '.idx'))), encoding: 'utf8' })
				.split('\n')
				.map((l) => l.split(' ')[1]),
		);
		for (const step of steps) {
			for (const f of step.files) {
				assert.equal(typeof (f.change === 'deleted' ? f.blobBefore : f.blobAfter), 'string', `step ${step.step} ${f.path} names its blob`);
				if (f.change !== 'deleted') {
					assert.ok(reachable.has(f.blobAfter), `blob of ${f.path} after step ${step.step} is kept`);
				}
			}
		}
		assert.ok(!fs.existsSync(path.join(w.root, '.git')), 'no repository of the user was created');
		const doctor = w.baton(['doctor', '--json']).json as any;
		assert.equal(doctor.storage.timelines, 1, 'baton doctor reports the store and its timelines');
		assert.ok(doctor.storage.bytes > 0);
		assert.match(w.baton(['doctor']).stdout, /^info {2}storage {4}shadow store [\d.]+ (KB|MB|bytes) \(0 checkpoint\(s\), 1 session timeline\(s\)/m);

		// show: the step's files and where they stand now.
		const show = w.baton(['timeline', 'show', '2', '--diff', '--json']).json as any;
		assert.deepEqual(show.filesNow, [
			{ path: 'src/auth/legacy.ts', now: 'unchanged' },
			{ path: 'src/auth/session.ts', now: 'unchanged' },
			{ path: 'src/auth/tokens.ts', now: 'unchanged' },
		]);
		assert.match(show.diff, /^-export const cookie = "sid";$/m);
		assert.match(show.diff, /^\+export const cookie = "__Host-sid";$/m);
	});

	void it('Copilot in VS Code and the Copilot CLI examples: edits and a terminal command', (t) => {
		const w = workspace(t);
		w.write('test/login.test.ts', 'it("logs in", async () => {\n\tawait sleep(100);\n});\n');
		w.hook('copilot', 'session-start');
		w.hook('copilot', 'user-prompt-submit');
		w.hook('copilot', 'pre-tool-use');
		w.write('test/login.test.ts', w.read('test/login.test.ts').replace('await sleep(100);', 'await waitFor(() => loggedIn());'));
		w.write('test/helpers/wait.ts', 'export async function waitFor() {}\n');
		w.hook('copilot', 'post-tool-use', { tool_use_id: 'call_Qm9sZ2luVGVzdA' });
		const steps = w.timeline().steps;
		assert.deepEqual(
			steps.map((s) => [s.step, s.turn, s.actor, s.tool, s.toolUseId]),
			[[1, 1, 'agent', 'replace_string_in_file', 'call_Qm9sZ2luVGVzdA']],
		);
		assert.deepEqual(files(steps[0]), ['added test/helpers/wait.ts +1 -0', 'modified test/login.test.ts +1 -1']);

		// Copilot CLI: the documented payloads, byte for byte but for cwd (no session id, no event name).
		const cliDir = path.join(repoRoot, 'test/fixtures/real/copilot/cli');
		const real = (name: string) => ({ ...JSON.parse(fs.readFileSync(path.join(cliDir, `${name}.json`), 'utf8')), cwd: w.root });
		const other = workspace(t);
		other.write('dist/app.js', 'console.log(1);\n');
		other.write('dist/app.css', 'body {}\n');
		other.raw(real('sessionStart'), ['sessionStart', '--agent', 'copilot']);
		other.raw({ ...real('userPromptSubmitted'), cwd: other.root }, ['userPromptSubmitted', '--agent', 'copilot']);
		other.raw({ ...real('preToolUse'), cwd: other.root }, ['preToolUse', '--agent', 'copilot']);
		fs.rmSync(path.join(other.root, 'dist'), { recursive: true });
		other.raw({ ...real('postToolUse'), cwd: other.root }, ['postToolUse', '--agent', 'copilot']);
		const cliSteps = other.timeline().steps;
		assert.deepEqual(
			cliSteps.map((s) => [s.step, s.actor, s.tool, s.summary, s.captured]),
			[[1, 'agent', 'bash', 'rm -rf dist', true]],
		);
		// dist/ is build output, left out of every snapshot (checkpoint excludes): the step lists nothing.
		assert.deepEqual(files(cliSteps[0]), []);
		assert.equal(cliSteps[0].treeBefore, cliSteps[0].treeAfter);
	});

	void it('Cline: a file write and execute_command, paired without tool-use ids', (t) => {
		const w = workspace(t);
		w.write('src/api/orders.ts', 'export const pageSize = 20;\n');
		w.hook('cline', 'task-start');
		w.hook('cline', 'user-prompt-submit');
		w.hook('cline', 'pre-tool-use');
		w.write('src/api/orders.ts', 'export const pageSize = 50;\n');
		w.hook('cline', 'post-tool-use', {
			postToolUse: { toolName: 'write_to_file', parameters: { path: 'src/api/orders.ts', content: 'export const pageSize = 50;\n' }, success: true },
		});
		const run = { toolName: 'execute_command', parameters: { command: 'mkdir -p docs && echo cursor > docs/paging.md', requires_approval: false } };
		w.hook('cline', 'pre-tool-use', { preToolUse: run });
		execFileSync('sh', ['-c', 'mkdir -p docs && echo cursor > docs/paging.md'], { cwd: w.root });
		w.hook('cline', 'post-tool-use', { postToolUse: { ...run, result: '', success: true } });
		const steps = w.timeline().steps;
		assert.deepEqual(
			steps.map((s) => [s.step, s.turn, s.actor, s.tool, s.toolUseId, s.captured]),
			[
				[1, 1, 'agent', 'write_to_file', null, true],
				[2, 1, 'agent', 'execute_command', null, true],
			],
		);
		assert.deepEqual(files(steps[0]), ['modified src/api/orders.ts +1 -1']);
		assert.deepEqual(files(steps[1]), ['added docs/paging.md +1 -0']);
		assert.equal(steps[1].summary, 'mkdir -p docs && echo cursor > docs/paging.md');
	});
});
