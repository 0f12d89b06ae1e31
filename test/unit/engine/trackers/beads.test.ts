/**
 * Beads: the `issues.jsonl` file edited in place (other lines byte-identical, atomic replace, torn
 * last line handled), and the `bd` CLI preferred when it is on PATH.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BatonError } from '../../../../src/engine/errors';
import { BeadsFileAdapter, chooseBeadsAdapter, findOnPath } from '../../../../src/engine/trackers/beadsAdapter';
import { BeadsCliAdapter } from '../../../../src/engine/trackers/beadsCli';
import { BeadsFile } from '../../../../src/engine/trackers/beadsFile';
import { tempDir } from '../../helpers';

/** A Beads export as `bd export` writes it, with the quirks a lossless editor must keep. */
function writeFixture(dir: string): { file: string; lines: string[] } {
	const lines = [
		JSON.stringify({
			id: 'proj-a1b2c3',
			title: 'Login fails',
			description: 'Ünïcode ✓',
			status: 'open',
			priority: 1,
			issue_type: 'bug',
			labels: ['auth'],
			created_at: '2026-01-01T00:00:00Z',
			updated_at: '2026-01-01T00:00:00Z',
			metadata: { x: 1 },
		}),
		// Spacing and key order no JSON.stringify would produce: it must survive an edit elsewhere.
		'{ "id" : "proj-d4e5f6",  "status":"in_progress", "title":"Refactor", "dependencies":[{"issue_id":"proj-d4e5f6","depends_on_id":"proj-a1b2c3","type":"blocks"}] }',
		'this line is not JSON (kept as it is)',
		JSON.stringify({
			id: 'proj-0a0b0c',
			title: 'Docs',
			status: 'closed',
			closed_at: '2026-01-02T00:00:00Z',
			close_reason: 'done',
			comments: [{ id: 1, issue_id: 'proj-0a0b0c', author: 'ann', text: 'ok', created_at: '2026-01-02T00:00:00Z' }],
		}),
	];
	const file = path.join(dir, '.beads', 'issues.jsonl');
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, `${lines.join('\n')}\n`);
	return { file, lines };
}

function fileAdapter(dir: string, file: string, now = '2026-03-01T09:00:00.000Z'): { adapter: BeadsFileAdapter; beads: BeadsFile } {
	const beads = new BeadsFile({ file, lockFile: path.join(dir, '.baton', 'beads.lock'), nowIso: () => now });
	return { adapter: new BeadsFileAdapter({ file: beads, prefix: 'proj', nowIso: () => now, author: 'baton' }), beads };
}

const fileLines = (file: string): string[] => fs.readFileSync(file, 'utf8').split('\n');

void describe('Beads issues.jsonl', () => {
	void it('reads issues, changes one line per edit and keeps every other line byte-identical', async (t) => {
		const dir = tempDir(t);
		const { file, lines } = writeFixture(dir);
		const { adapter, beads } = fileAdapter(dir, file);
		assert.equal(beads.dominantPrefix(), 'proj');
		assert.deepEqual(await adapter.getIssue('proj-d4e5f6'), { tracker: 'beads', id: 'proj-d4e5f6', url: null, title: 'Refactor', state: 'in_progress' });

		const closed = await adapter.updateStatus('proj-a1b2c3', 'closed');
		assert.equal(closed.state, 'closed');
		let now = fileLines(file);
		assert.deepEqual(now.slice(1), [...lines.slice(1), '']);
		const edited = JSON.parse(now[0] ?? '');
		assert.deepEqual(Object.keys(edited).slice(0, 10), [
			'id',
			'title',
			'description',
			'status',
			'priority',
			'issue_type',
			'labels',
			'created_at',
			'updated_at',
			'metadata',
		]);
		assert.equal(edited.description, 'Ünïcode ✓');
		assert.equal(edited.closed_at, '2026-03-01T09:00:00.000Z');
		assert.equal(edited.updated_at, '2026-03-01T09:00:00.000Z');

		await adapter.comment('proj-0a0b0c', 'Baton checkpoint cp_1');
		now = fileLines(file);
		assert.equal(now[1], lines[1]);
		assert.equal(now[2], lines[2]);
		const commented = JSON.parse(now[3] ?? '');
		assert.deepEqual(commented.comments[1], {
			id: 2,
			issue_id: 'proj-0a0b0c',
			author: 'baton',
			text: 'Baton checkpoint cp_1',
			created_at: '2026-03-01T09:00:00.000Z',
		});

		const reopened = await adapter.updateStatus('proj-0a0b0c', 'open');
		assert.equal(reopened.state, 'open');
		assert.equal(JSON.parse(fileLines(file)[3] ?? '').closed_at, undefined);

		const created = await adapter.createIssue({ title: 'Baton: Error in Fix login', body: 'details', type: 'bug' });
		assert.match(created.id, /^proj-[0-9a-f]{6}$/);
		now = fileLines(file);
		assert.equal(now.length, 6, 'four lines, the new one, and the final newline');
		assert.equal(now[1], lines[1]);
		assert.equal(now[2], lines[2]);
		assert.deepEqual(JSON.parse(now[4] ?? ''), {
			id: created.id,
			title: 'Baton: Error in Fix login',
			description: 'details',
			status: 'open',
			priority: 1,
			issue_type: 'bug',
			created_at: '2026-03-01T09:00:00.000Z',
			created_by: 'baton',
			updated_at: '2026-03-01T09:00:00.000Z',
		});
		assert.ok(!fs.readdirSync(path.dirname(file)).some((n) => n.includes('.tmp-')), 'no temp file left behind');
		await assert.rejects(adapter.comment('proj-nope', 'x'), (e: unknown) => BatonError.is(e, 'notFound') && /proj-nope/.test((e as Error).message));
	});

	void it('a torn last line is skipped when reading and stops edits until it is whole', async (t) => {
		const dir = tempDir(t);
		const { file, lines } = writeFixture(dir);
		const torn = '{"id":"proj-ffff01","title":"half writ';
		fs.appendFileSync(file, torn);
		const before = fs.readFileSync(file);
		const { adapter, beads } = fileAdapter(dir, file);
		assert.deepEqual(
			beads.readAll().map((r) => r.id),
			['proj-a1b2c3', 'proj-d4e5f6', 'proj-0a0b0c'],
		);
		await assert.rejects(adapter.updateStatus('proj-a1b2c3', 'closed'), /the last line \(5\) of .*issues\.jsonl is incomplete/);
		await assert.rejects(adapter.createIssue({ title: 'x', body: 'y' }), /incomplete/);
		assert.deepEqual(fs.readFileSync(file), before, 'nothing written');

		// The other writer finishes its line: edits go through, its line intact.
		fs.appendFileSync(file, 'ten"}\n');
		await adapter.updateStatus('proj-a1b2c3', 'closed');
		const now = fileLines(file);
		assert.equal(now[4], `${torn}ten"}`);
		assert.deepEqual(now.slice(1, 4), lines.slice(1));
	});

	void it('a complete last line without a newline is kept and terminated', async (t) => {
		const dir = tempDir(t);
		const file = path.join(dir, 'issues.jsonl');
		const only = '{"id":"bd-1a","title":"One","status":"open"}';
		fs.writeFileSync(file, only);
		const { adapter } = fileAdapter(dir, file);
		await adapter.createIssue({ title: 'Two', body: '' });
		const now = fileLines(file);
		assert.equal(now[0], only);
		assert.equal(now.length, 3);
	});
});

void describe('Beads through the bd CLI', () => {
	/**
	 * `bd` is not installable here (its npm package downloads a binary), so a stand-in with the same
	 * command-line contract plays it: it records its arguments and answers `--json` like bd does.
	 */
	function installBd(dir: string): { bin: string; log: string } {
		const bin = path.join(dir, 'bin');
		const log = path.join(dir, 'bd-calls.jsonl');
		fs.mkdirSync(bin, { recursive: true });
		const script = `#!${process.execPath}
const fs = require('fs');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ args, cwd: process.cwd() }) + '\\n');
const issue = (id, extra) => ({ id, title: 'Login fails', status: 'open', priority: 1, issue_type: 'bug', ...extra });
switch (args[0]) {
  case 'show': if (args[1] === 'proj-404') { process.stderr.write('Error fetching proj-404: not found\\n'); process.exit(1); } console.log(JSON.stringify([issue(args[1])])); break;
  case 'close': console.log(JSON.stringify([issue(args[1], { status: 'closed', close_reason: args[3] })])); break;
  case 'update': console.log(JSON.stringify([issue(args[1], { status: args[3] })])); break;
  case 'comments': console.log('Comment added to ' + args[2]); break;
  case 'create': console.log(JSON.stringify(issue('proj-9f8e7d', { title: args[1] }))); break;
  default: process.exit(2);
}
`;
		fs.writeFileSync(path.join(bin, 'bd'), script, { mode: 0o755 });
		return { bin, log };
	}

	void it('is found on PATH and preferred; without it the file adapter is used', async (t) => {
		const dir = tempDir(t);
		const { bin } = installBd(dir);
		assert.equal(findOnPath('bd', bin), path.join(bin, 'bd'));
		assert.equal(findOnPath('bd', path.join(dir, 'empty')), null);
		const file = () => fileAdapter(dir, path.join(dir, 'issues.jsonl')).adapter;
		assert.ok(chooseBeadsAdapter({ mode: 'auto', searchPath: bin, cwd: dir, timeoutMs: 5_000 }, file) instanceof BeadsCliAdapter);
		assert.ok(chooseBeadsAdapter({ mode: 'auto', searchPath: '', cwd: dir, timeoutMs: 5_000 }, file) instanceof BeadsFileAdapter);
		assert.ok(chooseBeadsAdapter({ mode: 'never', searchPath: bin, cwd: dir, timeoutMs: 5_000 }, file) instanceof BeadsFileAdapter);
	});

	void it('runs bd with the documented arguments, no shell, in the workspace', async (t) => {
		const dir = tempDir(t);
		const { bin, log } = installBd(dir);
		const adapter = new BeadsCliAdapter({ executable: path.join(bin, 'bd'), cwd: dir, timeoutMs: 10_000 });
		assert.equal((await adapter.getIssue('proj-a1b2c3')).title, 'Login fails');
		assert.equal((await adapter.updateStatus('proj-a1b2c3', 'closed')).state, 'closed');
		assert.equal((await adapter.updateStatus('proj-a1b2c3', 'in_progress')).state, 'in_progress');
		await adapter.comment('proj-a1b2c3', 'text with "quotes"; $(not a command)');
		assert.equal((await adapter.createIssue({ title: 'New one', body: 'b', type: 'bug', labels: ['baton'] })).id, 'proj-9f8e7d');
		const calls = fs
			.readFileSync(log, 'utf8')
			.trim()
			.split('\n')
			.map((l) => JSON.parse(l) as { args: string[]; cwd: string });
		assert.deepEqual(
			calls.map((c) => c.args),
			[
				['show', 'proj-a1b2c3', '--json'],
				['close', 'proj-a1b2c3', '--reason', 'Closed by Baton', '--json'],
				['update', 'proj-a1b2c3', '--status', 'in_progress', '--json'],
				['comments', 'add', 'proj-a1b2c3', 'text with "quotes"; $(not a command)'],
				['create', 'New one', '--description', 'b', '--type', 'bug', '--labels', 'baton', '--json'],
			],
		);
		assert.ok(calls.every((c) => fs.realpathSync(c.cwd) === fs.realpathSync(dir)));
		await assert.rejects(
			adapter.getIssue('proj-404'),
			(e: unknown) => BatonError.is(e, 'trackerFailed') && e.message === 'Beads: bd show proj-404 failed: Error fetching proj-404: not found',
		);
	});
});
