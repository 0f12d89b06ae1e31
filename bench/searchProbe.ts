/**
 * Run as a fresh child process by the search bench: what a cold `baton search --no-daemon` pays.
 * `search` opens the engine and runs one search (the index loaded from `.baton/cache/` when it is
 * there and sound, built otherwise); `read` opens the engine and reads what a build reads (every
 * row of the indexed tables, every archive line through JSON.parse), the floor any cold search has.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Engine } from '../src/engine/engine';
import { silentLogger } from '../src/engine/ports';

async function main(): Promise<void> {
	const [root, mode, text] = process.argv.slice(2);
	if (!root || (mode !== 'search' && mode !== 'read')) {
		throw new Error('usage: searchProbe <workspace> search|read [text]');
	}
	const t = performance.now();
	const engine = await Engine.open({ workspaceRoot: root, log: silentLogger, git: { read: async () => null } });
	let count: number;
	if (mode === 'search') {
		count = (await engine.search.search({ text: text ?? 'nothing' })).total;
	} else {
		await engine.store.read(() => undefined);
		const rows = engine.store.sqlite.exec(
			'SELECT name FROM sessions UNION ALL SELECT handoff_json FROM handoffs UNION ALL SELECT text FROM decisions UNION ALL SELECT body_json FROM shared_events',
		);
		count = rows[0]?.values.length ?? 0;
		const dir = path.join(root, '.baton', 'transcripts');
		for (const name of fs.readdirSync(dir)) {
			if (!name.endsWith('.jsonl')) continue;
			for (const line of fs.readFileSync(path.join(dir, name), 'utf8').split('\n')) if (line) count += JSON.parse(line) ? 1 : 0;
		}
	}
	const ms = performance.now() - t;
	// Not timed: a search process saves the index it built as it lets go of it.
	engine.close();
	process.send?.({ ms, count });
}

void main().catch((error: unknown) => {
	process.stderr.write(`${String(error)}\n`);
	process.exit(1);
});
