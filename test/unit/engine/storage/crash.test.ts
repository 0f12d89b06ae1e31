import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Engine } from '../../../../src/engine/engine';
import { encodeRecord } from '../../../../src/engine/storage/journalFormat';
import { MemoryLogger, tempDir } from '../../helpers';

const writer = path.join(__dirname, '../../fixtures/writer.ts');
const rounds = Number(process.env['BATON_CRASH_ROUNDS'] ?? 24);

/** Runs a writer and SIGKILLs it after `killAfterAcks` acknowledged writes plus a random delay. */
function runAndKill(root: string, name: string, killAfterAcks: number, compactAfter: number): Promise<string[]> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, ['--import', 'tsx', writer, root, name, '100000', '--compact-after', String(compactAfter)], {
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		const acked: string[] = [];
		let buffer = '';
		let stderr = '';
		let armed = false;
		child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
		child.stdout.on('data', (d: Buffer) => {
			buffer += d.toString();
			let nl: number;
			while ((nl = buffer.indexOf('\n')) >= 0) {
				const line = buffer.slice(0, nl);
				buffer = buffer.slice(nl + 1);
				if (line.startsWith('ack ')) {
					acked.push(line.slice(4));
				}
			}
			if (!armed && acked.length >= killAfterAcks) {
				armed = true;
				// Kill at a random moment: mid-write, mid-fsync, mid-compaction or between writes.
				setTimeout(() => child.kill('SIGKILL'), Math.random() * 40);
			}
		});
		child.on('exit', (code, signal) => {
			if (signal !== 'SIGKILL') {
				reject(new Error(`writer exited with ${code}: ${stderr}`));
			} else {
				resolve(acked);
			}
		});
	});
}

void describe('crash safety', () => {
	void it(`keeps every acknowledged write across ${rounds} SIGKILLs at random moments`, { timeout: 600_000 }, async (t) => {
		const root = tempDir(t);
		const acknowledged = new Set<string>();
		let attempted = 0;
		for (let round = 0; round < rounds; round++) {
			// Small compaction thresholds in some rounds so that kills land inside compactions too.
			const compactAfter = round % 3 === 0 ? 2_000 : round % 3 === 1 ? 20_000 : 10_000_000;
			const acked = await runAndKill(root, `r${round}`, 5 + Math.floor(Math.random() * 30), compactAfter);
			acked.forEach((a) => acknowledged.add(a));
			attempted += acked.length + 1;
			if (round % 4 === 1) {
				// A torn record on top: a crash inside write() that the kill may not have produced.
				const journal = path.join(root, '.baton', 'baton.db.journal');
				fs.appendFileSync(journal, encodeRecord({ seq: 1e9, at: 'x', stmts: [['DELETE FROM tasks', []]] }).subarray(0, 30));
			}
			const log = new MemoryLogger();
			const engine = await Engine.open({ workspaceRoot: root, log });
			try {
				const titles = new Set((await engine.tasks.list()).map((task) => task.title));
				for (const title of acknowledged) {
					assert.ok(titles.has(title), `round ${round}: acknowledged write ${title} is missing`);
				}
				// At most the one write in flight per round can exist without its acknowledgement.
				assert.ok(titles.size <= acknowledged.size + round + 1, `round ${round}: ${titles.size} rows for ${acknowledged.size} acks`);
				if (round % 4 === 1) {
					assert.ok(
						log.warnings().some((w) => w.includes('torn last record')),
						`round ${round}: torn record reported`,
					);
				}
				for (const title of titles) {
					acknowledged.add(title); // a write that landed unacknowledged is now acknowledged state
				}
			} finally {
				engine.close();
			}
		}
		assert.ok(attempted > rounds * 5);
	});
});
