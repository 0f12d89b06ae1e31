/**
 * `baton session list` answers a page, not a team's whole history (#28 item 2): 100 sessions unless
 * --limit says otherwise, `next` (JSON) and a "more" line (text) naming the --after that continues,
 * pages that neither repeat nor skip a session, and a clear error for an --after that names none.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Engine } from '../../../src/engine/engine';
import { actor, FakeClock, MemoryLogger, tempDir } from '../helpers';
import { baton } from './cliRunner';

async function workspaceWith(t: Parameters<typeof tempDir>[0], count: number): Promise<string> {
	const root = tempDir(t, 'baton-list-pages-');
	const clock = new FakeClock();
	const engine = await Engine.open({ workspaceRoot: root, log: new MemoryLogger(), clock, create: true });
	try {
		for (let i = 0; i < count; i++) {
			const { session } = await engine.sessions.start({ name: `session ${i}`, actor });
			await engine.sessions.end({ id: session.id, actor });
			// Every third pair starts in the same millisecond: the id orders them.
			if (i % 3 !== 0) clock.advance(1000);
		}
	} finally {
		engine.close();
	}
	return root;
}

void describe('session list pages', () => {
	void it('answers 100 sessions by default and names the page after them', async (t) => {
		const root = await workspaceWith(t, 105);
		const first = baton(root, 'session', 'list', '--json');
		assert.equal(first.code, 0, first.stderr);
		const sessions = first.json['sessions'] as { id: string; name: string }[];
		assert.equal(sessions.length, 100);
		assert.equal(sessions[0]?.name, 'session 104', 'newest first');
		assert.equal(first.json['next'], sessions[99]?.id);
		const rest = baton(root, 'session', 'list', '--json', '--after', first.json['next'] as string);
		// Sessions 0 and 1 started in the same millisecond: their ids order them.
		assert.deepEqual((rest.json['sessions'] as { name: string }[]).map((s) => s.name).sort(), [
			'session 0',
			'session 1',
			'session 2',
			'session 3',
			'session 4',
		]);
		assert.equal(rest.json['next'], null, 'the last page names none');
		const text = baton(root, 'session', 'list');
		assert.match(text.stdout, new RegExp(`\\n… more: baton session list --after ${first.json['next'] as string}\\n?$`));
	});

	void it('walks every session once, page by page, with --limit and --after', async (t) => {
		const root = await workspaceWith(t, 11);
		const all = (baton(root, 'session', 'list', '--json').json['sessions'] as { id: string }[]).map((s) => s.id);
		assert.equal(all.length, 11);
		const walked: string[] = [];
		let after: string | null = null;
		do {
			const page = baton(root, 'session', 'list', '--json', '--limit', '3', ...(after ? ['--after', after] : []));
			assert.equal(page.code, 0, page.stderr);
			walked.push(...(page.json['sessions'] as { id: string }[]).map((s) => s.id));
			after = page.json['next'] as string | null;
		} while (after);
		assert.deepEqual(walked, all);
		const more = baton(root, 'session', 'list', '--limit', '3', '--status', 'ended');
		assert.match(more.stdout, /\n… more: baton session list --status ended --limit 3 --after ses_\S+\n?$/);
	});

	void it('refuses an --after that names no session, and a --limit that is no count', async (t) => {
		const root = await workspaceWith(t, 2);
		const missing = baton(root, 'session', 'list', '--after', 'ses_20260101000000_abcdef');
		assert.notEqual(missing.code, 0);
		assert.match(missing.stderr, /session ses_20260101000000_abcdef does not exist/);
		const zero = baton(root, 'session', 'list', '--limit', '0');
		assert.equal(zero.code, 2);
		assert.match(zero.stderr, /--limit must be a positive whole number/);
	});
});
