import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { snapshotFiles, tempDir } from '../helpers';
import { beadsIssues, cleoDbData, cleoSessionsData, writeCleoDb, writeJson, writeJsonl } from '../engine/interop/interopFixtures';
import { baton, cliPath } from './cliRunner';

const zero = { sessions: 0, tasks: 0, decisions: 0, handoffs: 0, settings: 0 };

void describe('baton import / export (the bundled CLI)', () => {
	before(() => {
		assert.ok(fs.existsSync(cliPath), `${cliPath} is missing: run \`npm run build\` first (npm test does)`);
		// These compare every file under .baton before and after: in process, so no daemon adds its own.
		process.env['BATON_NO_DAEMON'] = '1';
	});
	after(() => {
		delete process.env['BATON_NO_DAEMON'];
	});

	void it('imports each format with a dry run first, prints the documented JSON, and adds nothing the second time', async (t) => {
		const root = tempDir(t);
		assert.equal(baton(root, 'init').code, 0);
		const sources = tempDir(t);
		writeJson(path.join(sources, '.cleo', 'sessions.json'), cleoSessionsData());
		await writeCleoDb(path.join(sources, '.cleo', 'tasks.db'), cleoDbData());
		writeJsonl(path.join(sources, '.beads', 'issues.jsonl'), beadsIssues());

		const dataDir = path.join(root, '.baton');
		const before = snapshotFiles(dataDir);
		// Relative paths resolve against the directory the command runs in.
		const dry = baton(sources, 'import', 'cleo-db', '.cleo/tasks.db', '--dry-run', '--json', '--workspace', root);
		assert.equal(dry.code, 0, dry.stderr);
		assert.deepEqual(Object.keys(dry.json).sort(), ['added', 'dryRun', 'errors', 'path', 'source', 'unchanged', 'warnings']);
		assert.deepEqual(dry.json, {
			dryRun: true,
			source: 'cleo-db',
			path: path.join(sources, '.cleo', 'tasks.db'),
			added: { ...zero, sessions: 3, tasks: 5, decisions: 1, handoffs: 2 },
			unchanged: zero,
			errors: [],
			warnings: [],
		});
		assert.deepEqual(snapshotFiles(dataDir), before, 'a dry run writes nothing');

		for (const [format, file] of [
			['cleo-db', '.cleo/tasks.db'],
			['cleo-sessions', '.cleo/sessions.json'],
			['beads', '.beads'],
		] as const) {
			const run = baton(sources, 'import', format, file, '--json', '--workspace', root);
			assert.equal(run.code, 0, `${format}: ${run.stdout}${run.stderr}`);
			assert.deepEqual(run.json['errors'], []);
			assert.equal(run.json['dryRun'], false);
		}
		const tasks = baton(root, 'task', 'list', '--json').json['tasks'] as { id: string }[];
		assert.equal(tasks.length, 10, '5 CLEO tasks (ids kept) + 5 Beads issues (new ids)');
		const sessions = baton(root, 'session', 'list', '--json').json['sessions'] as { id: string; status: string }[];
		assert.equal(sessions.length, 9);
		assert.ok(
			sessions.some((s) => s.id === 'session-1733000000-e5e5e5' && s.status === 'closed'),
			'legacy ids stay valid',
		);

		const settled = snapshotFiles(dataDir);
		const again = baton(sources, 'import', 'cleo-sessions', '.cleo/sessions.json', '--json', '--workspace', root);
		assert.equal(again.code, 0);
		assert.deepEqual(again.json['added'], zero);
		assert.deepEqual(again.json['unchanged'], { ...zero, sessions: 6, handoffs: 2, settings: 1 });
		assert.deepEqual(snapshotFiles(dataDir), settled, 'a repeated import writes nothing');

		const text = baton(sources, 'import', 'beads', '.beads/issues.jsonl', '--dry-run', '--workspace', root);
		assert.equal(text.code, 0);
		assert.match(text.stdout, /^Dry run: would add nothing from .*issues\.jsonl \(beads\); already there: 5 tasks\.\n$/);
	});

	void it('exits 1 with every bad record listed and nothing written; 2 on bad usage', (t) => {
		const root = tempDir(t);
		baton(root, 'init');
		const data = cleoSessionsData();
		data['sessions'][1].status = 'paused';
		data['sessionHistory'][0].startedAt = 'last tuesday';
		const file = writeJson(path.join(tempDir(t), 'sessions.json'), data);
		const before = snapshotFiles(path.join(root, '.baton'));
		const bad = baton(root, 'import', 'cleo-sessions', file, '--json');
		assert.equal(bad.code, 1);
		assert.deepEqual(bad.json['errors'], [
			{
				record: 'sessions[1] (session_20251229_090000_a1a1a1)',
				field: 'status',
				message: 'expected one of active, suspended, ended, archived, closed (got "paused")',
			},
			{ record: 'sessionHistory[0] (session_20251201_080000_d4d4d4)', field: 'startedAt', message: 'not a timestamp (got "last tuesday")' },
		]);
		assert.deepEqual(snapshotFiles(path.join(root, '.baton')), before);
		const human = baton(root, 'import', 'cleo-sessions', file);
		assert.equal(human.code, 1);
		assert.match(
			human.stdout,
			/refused: 2 problem\(s\); nothing was written\.\n {2}error {4}sessions\[1\] \(session_20251229_090000_a1a1a1\): status: expected one of/,
		);

		assert.equal(baton(root, 'import', 'jira', file, '--json').code, 2);
		assert.equal(baton(root, 'import', 'beads', '--json').code, 2);
		assert.equal(baton(root, 'export', '--out', tempDir(t), '--json').code, 2);
		assert.equal(baton(root, 'export', '--session', 'x', '--chain', 'y', '--out', tempDir(t), '--json').code, 2);
		assert.equal(baton(root, 'export', '--chain', 'y', '--markdown', '--json').code, 2);
	});

	void it('exports a chain to a folder that imports into another workspace unchanged, refuses to overwrite, and prints markdown views', (t) => {
		const root = tempDir(t);
		baton(root, 'init');
		const one = baton(root, 'session', 'start', '--name', 'part 1', '--json').json['session'].id as string;
		baton(root, 'decision', 'record', '--text', 'Use cents', '--json');
		baton(root, 'session', 'end', '--note', 'did part 1', '--next-action', 'do part 2');
		const two = baton(root, 'session', 'start', '--name', 'part 2', '--json').json['session'].id as string;
		const out = path.join(tempDir(t), 'chain-export');
		const exported = baton(root, 'export', '--chain', two, '--out', out, '--json');
		assert.equal(exported.code, 0, exported.stderr);
		assert.deepEqual(exported.json, { out, files: ['index.json', '01-part-1.json', '02-part-2.json'] });

		const other = tempDir(t);
		baton(other, 'init');
		const imported = baton(other, 'import', 'json-sessions', out, '--json');
		assert.deepEqual(imported.json['added'], { ...zero, sessions: 2, decisions: 1, handoffs: 1 });
		for (const id of [one, two]) {
			assert.deepEqual(baton(other, 'session', 'show', id, '--json').json, baton(root, 'session', 'show', id, '--json').json);
		}

		fs.writeFileSync(path.join(out, 'mine.txt'), 'keep me');
		const refused = baton(root, 'export', '--session', one, '--out', out, '--json');
		assert.equal(refused.code, 1);
		assert.match(refused.json['error'].message, /never overwrites/);
		assert.equal(fs.readFileSync(path.join(out, 'mine.txt'), 'utf8'), 'keep me');

		const md = baton(root, 'export', '--session', one, '--markdown');
		assert.equal(md.code, 0, md.stderr);
		assert.match(md.stdout, /^# Handoff: part 1\n/);
		assert.match(md.stdout, /## Note\n\ndid part 1\n/);
		const brief = baton(root, 'export', '--session', two, '--markdown', '--briefing', '--json');
		assert.equal(brief.json['kind'], 'briefing');
		assert.match(brief.json['markdown'], /- \*\*Next action:\*\* do part 2/);
	});
});
