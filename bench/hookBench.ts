/**
 * Agent benchmarks (issue 5):
 * - `baton hook` as a whole process answering a SessionStart (briefing diet) and a Claude Stop (touch
 *   plus transcript excerpts), against `node -e ''` (the floor any Node hook pays), alternating
 *   A B A B; target ≤ 300 ms;
 * - transcript parsing of a generated Claude Code transcript (150 MB): `baton transcripts sync` as a
 *   whole process, the archive's path in process (chunk splitter, JSON.parse of the lines it needs,
 *   excerpts, redaction, archive write) and the bare splitter + JSON.parse of every line, against
 *   `wc -l` reading the same file; target ≥ 150 MB/s.
 * The CLI is the bundle with the agent commands wired in (test/unit/cli/agentCli.ts), or
 * `BATON_TEST_CLI` (e.g. dist/cli.js once main.ts registers them).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { claudeProjectDir } from '../src/engine/transcripts/claudeProjects';
import { readJsonlFrom } from '../src/engine/transcripts/jsonlReader';
import { TranscriptArchive } from '../src/engine/transcripts/transcriptArchive';
import { silentLogger } from '../src/engine/ports';
import { agentCli } from '../test/unit/cli/agentCli';
import { generateLargeTranscript, TranscriptWriter } from '../test/unit/engine/transcripts/transcriptWriter';
import { median, percentile, type BenchRow } from './stats';

export async function benchHooks(quick: boolean): Promise<BenchRow[]> {
	const cli = await agentCli();
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-hooks-'));
	try {
		return [...hookProcessRows(cli, dir, quick ? 7 : 31), ...(await parseRows(cli, dir, quick ? 24 : 150, quick ? 3 : 5))];
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

function timed(command: string, args: string[], cwd: string, input: string, env: NodeJS.ProcessEnv): number {
	const started = performance.now();
	const result = spawnSync(command, args, { cwd, input, env, encoding: 'utf8' });
	const ms = performance.now() - started;
	if (result.status !== 0) {
		throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr}`);
	}
	return ms;
}

function hookProcessRows(cli: string, dir: string, runs: number): BenchRow[] {
	const root = path.join(dir, 'project');
	const claudeHome = path.join(dir, 'claude');
	fs.mkdirSync(root);
	const env = { ...process.env, BATON_CLAUDE_HOME: claudeHome, BATON_ACTOR: 'bench' };
	const baton = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { cwd: root, env, encoding: 'utf8' });
	baton('init');
	// A workspace with history: tasks with dependencies, a chain of ended sessions with handoffs.
	for (let i = 1; i <= 40; i++) {
		baton('task', 'add', '--title', `Task ${i} of the benchmark backlog`, ...(i > 1 && i % 3 === 0 ? ['--depends-on', `T${i - 1}`] : []));
	}
	for (let i = 0; i < 5; i++) {
		baton('session', 'start', '--name', `earlier ${i}`);
		baton('decision', 'record', '--text', `decision ${i}`);
		baton('session', 'end', '--note', `handoff ${i}`, '--next-action', 'carry on');
	}
	const agentId = '6f1c2a9e-3b7d-4c21-9e8a-5d4f0b7a1c33';
	const transcript = path.join(claudeProjectDir(claudeHome, root), `${agentId}.jsonl`);
	const writer = new TranscriptWriter(agentId, root);
	writer.user('benchmark request');
	writer.assistant([{ text: 'working on it' }, { tool: 'Edit', input: { file_path: path.join(root, 'a.ts'), old_string: 'a', new_string: 'b' } }], {
		input_tokens: 100,
		output_tokens: 20,
	});
	let flushed = writer.flush(transcript);
	const payload = (event: string, extra: Record<string, unknown> = {}) =>
		JSON.stringify({ session_id: agentId, transcript_path: transcript, cwd: root, permission_mode: 'default', hook_event_name: event, ...extra });
	const start = payload('SessionStart', { source: 'startup', model: 'claude-sonnet-4-5' });
	const output = spawnSync(process.execPath, [cli, 'hook', 'session-start'], { cwd: root, env, input: start, encoding: 'utf8' });
	if (!/additionalContext/.test(output.stdout)) {
		throw new Error(`the hook did not answer a briefing: ${output.stdout}${output.stderr}`);
	}
	const rows: BenchRow[] = [];
	for (const [name, event, input] of [
		['SessionStart (briefing diet)', 'session-start', start],
		['Stop (touch + transcript excerpts)', 'stop', payload('Stop', { stop_hook_active: false })],
	] as const) {
		const ours: number[] = [];
		const base: number[] = [];
		for (let i = 0; i < runs; i++) {
			if (event === 'stop') {
				// Every turn adds to the transcript: the Stop parses the new tail.
				writer.assistant([{ text: `turn ${i}` }], { input_tokens: 50, output_tokens: 10 });
				flushed = writer.flush(transcript, flushed);
			}
			ours.push(timed(process.execPath, [cli, 'hook', event], root, input, env));
			base.push(timed(process.execPath, ['-e', ''], root, '', env));
		}
		rows.push({
			name: `baton hook: ${name}, whole process`,
			ours: median(ours),
			oursP99: percentile(ours, 99),
			baseline: median(base),
			baselineName: "node -e ''",
			ratio: median(ours.map((v, i) => v / (base[i] as number))),
			target: '≤ 300 ms',
		});
	}
	return rows;
}

async function parseRows(cli: string, dir: string, megabytes: number, runs: number): Promise<BenchRow[]> {
	const root = path.join(dir, 'parse-ws');
	const claudeHome = path.join(dir, 'parse-claude');
	fs.mkdirSync(root, { recursive: true });
	const env = { ...process.env, BATON_CLAUDE_HOME: claudeHome, BATON_ACTOR: 'bench' };
	const agentId = '0c3e9a51-7d2b-4f8e-b6a4-19e5c7d0f2a3';
	spawnSync(process.execPath, [cli, 'init'], { cwd: root, env });
	const started = spawnSync(process.execPath, [cli, 'session', 'start', '--name', 'parse bench', '--agent', 'claude-code', '--agent-id', agentId, '--json'], {
		cwd: root,
		env,
		encoding: 'utf8',
	});
	const sessionId = (JSON.parse(started.stdout) as { session: { id: string } }).session.id;
	const file = path.join(claudeProjectDir(claudeHome, root), `${agentId}.jsonl`);
	fs.mkdirSync(path.dirname(file), { recursive: true });
	const generatedAt = performance.now();
	const generated = generateLargeTranscript(file, megabytes, root);
	process.stderr.write(
		`  transcript: ${(generated.bytes / 2 ** 20).toFixed(0)} MB, ${generated.records} records (${Math.round(performance.now() - generatedAt)} ms to generate)\n`,
	);
	// Settle the page cache first: a just-written file is still being flushed to disk, and that
	// write-back would be timed as parsing. Then one untimed run warms the cache.
	const fd = fs.openSync(file, 'r+');
	fs.fsyncSync(fd);
	fs.closeSync(fd);
	timed('wc', ['-l', file], root, '', process.env);
	const mb = generated.bytes / 2 ** 20;
	const link = async (_agent: string, id: string) => (id === agentId ? sessionId : null);
	const processMs: number[] = [];
	const archiveMs: number[] = [];
	const parseMs: number[] = [];
	const wcMs: number[] = [];
	const transcripts = path.join(root, '.baton', 'transcripts');
	for (let i = 0; i < runs; i++) {
		fs.rmSync(transcripts, { recursive: true, force: true });
		processMs.push(timed(process.execPath, [cli, 'transcripts', 'sync'], root, '', env));
		fs.rmSync(transcripts, { recursive: true, force: true });
		const archive = new TranscriptArchive({ workspaceRoot: root, claudeHome, log: silentLogger });
		let t = performance.now();
		const report = await archive.sync({ link });
		archiveMs.push(performance.now() - t);
		if (report.parsedBytes !== generated.bytes) {
			throw new Error(`the archive parsed ${report.parsedBytes} of ${generated.bytes} bytes`);
		}
		t = performance.now();
		let records = 0;
		readJsonlFrom(file, 0, () => records++);
		parseMs.push(performance.now() - t);
		wcMs.push(timed('wc', ['-l', file], root, '', process.env));
	}
	const row = (name: string, values: number[]): BenchRow => ({
		name: `${name}, ${mb.toFixed(0)} MB transcript: ${(mb / (median(values) / 1000)).toFixed(0)} MB/s`,
		ours: median(values),
		oursP99: percentile(values, 99),
		baseline: median(wcMs),
		baselineName: 'wc -l (same file)',
		ratio: median(values) / median(wcMs),
		target: '≥ 150 MB/s',
	});
	return [
		row('`baton transcripts sync`, whole process (split, parse, excerpts, redaction, archive)', processMs),
		row('transcript archive sync, in process', archiveMs),
		row('chunk splitter + JSON.parse of every line', parseMs),
	];
}
