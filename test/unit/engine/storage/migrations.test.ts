import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../../helpers';

const root = path.resolve(__dirname, '../../../..');

void describe('migrations', () => {
	void it('has a migration for every change of the drizzle schema', (t) => {
		const out = path.join(tempDir(t), 'drizzle');
		fs.cpSync(path.join(root, 'drizzle'), out, { recursive: true });
		const result = spawnSync(
			process.execPath,
			[
				path.join(root, 'node_modules/drizzle-kit/bin.cjs'),
				'generate',
				'--dialect',
				'sqlite',
				'--schema',
				'src/engine/storage/schema.ts',
				'--out',
				path.relative(root, out),
			],
			{
				cwd: root,
				encoding: 'utf8',
			},
		);
		// drizzle-kit exits 0 even when it fails, and prefixes `--out` with './' (so it must be relative).
		assert.equal(result.status, 0, result.stderr + result.stdout);
		assert.match(result.stdout + result.stderr, /No schema changes/, result.stderr + result.stdout);
		const before = fs.readdirSync(path.join(root, 'drizzle')).filter((f) => f.endsWith('.sql'));
		const after = fs.readdirSync(out).filter((f) => f.endsWith('.sql'));
		assert.deepEqual(after, before, 'schema.ts changed without `npm run db:generate`');
	});

	void it('embeds exactly what drizzle-kit generated', () => {
		const result = spawnSync(process.execPath, [path.join(root, 'scripts/embedMigrations.mjs'), '--check'], { cwd: root, encoding: 'utf8' });
		assert.equal(result.status, 0, result.stderr);
	});
});
