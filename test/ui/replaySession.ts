/**
 * Records a long agent session on a real workspace for the Replay UI test and the timeline benchmark:
 * prompts, `steps` agent tool calls that each really change a file (captured through the same
 * recorder the hooks use, with real git in Baton's shadow store), a person's edit every 100 steps and
 * a checkpoint every 250. Usage: node --import tsx test/ui/replaySession.ts WORKSPACE SESSION STEPS
 * Prints `{steps, captureMs: [...]}` (ms per capture) as JSON.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { HookEvent } from '../../src/engine/hookEvent';
import { Engine } from '../../src/engine/engine';
import { silentLogger } from '../../src/engine/ports';
import { TimelineRecorder } from '../../src/engine/timeline/timelineRecorder';

export function toolEvent(root: string, kind: 'preToolUse' | 'postToolUse', name: string, input: Record<string, unknown>, id: string): HookEvent {
	return {
		agent: 'claude-code',
		agentSessionId: 'replay-fixture',
		kind,
		eventName: kind === 'preToolUse' ? 'PreToolUse' : 'PostToolUse',
		source: null,
		reason: null,
		cwd: root,
		transcriptPath: null,
		previousAgentSessionId: null,
		tool: { name, input, filesTouched: [], edit: name === 'Edit', failed: false, id },
		prompt: null,
		trigger: null,
		model: null,
		agentTranscriptPath: null,
	};
}

export async function recordSession(root: string, sessionId: string, steps: number, budgetMs = 10_000): Promise<number[]> {
	const engine = await Engine.open({ workspaceRoot: root, log: silentLogger });
	const recorder = new TimelineRecorder(engine.ctx, { budgetMs });
	const captureMs: number[] = [];
	try {
		for (let i = 1; i <= steps; i++) {
			if (i % 50 === 1) {
				await recorder.onPrompt(sessionId, `Part ${Math.ceil(i / 50)}: extend the modules with the next batch of handlers`);
			}
			if (i % 100 === 0) {
				fs.appendFileSync(path.join(root, 'README.md'), `A note the person added before step ${i}.\n`);
			}
			const file = `src/module${i % 40}.ts`;
			const bash = i % 5 === 0;
			const tool = bash ? 'Bash' : 'Edit';
			const input = bash
				? { command: `printf 'export const step${i} = ${i};\\n' >> ${file}` }
				: { file_path: path.join(root, file), old_string: '', new_string: `export const step${i} = ${i};` };
			let started = performance.now();
			await recorder.onToolUse('pre', sessionId, toolEvent(root, 'preToolUse', tool, input, `toolu_fixture_${i}`));
			captureMs.push(performance.now() - started);
			fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
			fs.appendFileSync(path.join(root, file), `export const step${i} = ${i};\n`);
			started = performance.now();
			await recorder.onToolUse('post', sessionId, toolEvent(root, 'postToolUse', tool, input, `toolu_fixture_${i}`));
			captureMs.push(performance.now() - started);
			if (i % 250 === 0) {
				await engine.checkpoints.create({ trigger: 'periodic', message: `after step ${i}`, sessionId, actor: 'test:replay' });
			}
		}
	} finally {
		engine.close();
	}
	return captureMs;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) {
	const [root, sessionId, count] = process.argv.slice(2);
	if (!root || !sessionId || !count) {
		process.stderr.write('usage: node --import tsx test/ui/replaySession.ts WORKSPACE SESSION STEPS\n');
		process.exit(2);
	}
	void recordSession(path.resolve(root), sessionId, Number(count)).then((captureMs) => {
		process.stdout.write(`${JSON.stringify({ steps: Number(count), captureMs })}\n`);
	});
}
