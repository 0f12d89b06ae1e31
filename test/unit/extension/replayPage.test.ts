import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { replayRowView } from '../../../src/ui/replayRows';
import type { TimelineDto, TimelineEntryDto } from '../../../src/protocol/timelineRpc';
import { firstScreenRows, firstScreenStart, replayPageHtml } from '../../../src/extension/replay/replayPage';
import { escapeHtml } from '../../../src/extension/webviews/escapeHtml';

function step(n: number, summary = `Edit src/module${n}.ts`): TimelineEntryDto {
	return {
		type: 'step',
		id: `evt_${n}`,
		step: n,
		turn: 1,
		toolUseId: `toolu_${n}`,
		actor: 'agent',
		tool: 'Edit',
		summary,
		startedAt: '2026-11-25T07:00:00.000Z',
		treeBefore: 'a'.repeat(40),
		treeAfter: 'b'.repeat(40),
		files: [{ path: `src/module${n}.ts`, change: 'modified', additions: 1, deletions: 0 }],
		captured: true,
	};
}

function timeline(steps: number): TimelineDto {
	const entries: TimelineEntryDto[] = [{ type: 'prompt', id: 'evt_p1', turn: 1, text: 'Add the handlers', at: '2026-11-25T07:00:00.000Z' }];
	for (let i = 1; i <= steps; i++) entries.push(step(i));
	return { session: 'ses_1', sessionName: 'Module handlers', entries, you: 'dana' };
}

const page = (t: TimelineDto, focusStep?: number) =>
	replayPageHtml({
		nonce: 'n0nce',
		cspSource: 'https://webview.test',
		scriptUri: 'https://webview.test/dist/webview/replay.js',
		commandStartedAt: 1234,
		timeline: t,
		...(focusStep !== undefined ? { focusStep } : {}),
	});

void describe('the Replay page’s first screen', () => {
	void it('holds the first screen of rows, styled, and no more: its script asks for the timeline', () => {
		const t = timeline(500);
		const html = page(t);
		const rows = html.match(/<div class="row row-[a-z]+[^"]*" role="option"/g) ?? [];
		assert.equal(rows.length, firstScreenRows);
		assert.match(html, /<style nonce="n0nce">[^<]*\.first-screen \.row \{ position: relative; height: 44px; \}/);
		assert.match(html, /<h1>Replay: Module handlers<\/h1><span class="hint">500 steps · 1 prompts/);
		assert.match(
			html,
			/<span class="label">1\. Edit<\/span><span class="text" title="Edit src\/module1\.ts">Edit src\/module1\.ts<\/span><span class="stats">1 file \+1 −0<\/span>/,
		);
		assert.match(html, /data-command-started="1234"/);
		assert.match(html, /data-entries="501"/);
		// The rest of the timeline comes after the first frame: nothing of step 31 on is in the page.
		assert.ok(!html.includes('module31.ts'), 'only the first screen is in the page');
		assert.ok(html.length < 30_000, `the page is ${html.length} characters`);
		// Only nonce'd scripts: the CSP refuses the rest.
		assert.equal((html.match(/<script(?! type="application\/json")/g) ?? []).length, (html.match(/<script nonce="n0nce">/g) ?? []).length);
	});

	void it('never lets a session’s text become markup', () => {
		const t = timeline(2);
		t.sessionName = '<img src=x onerror=alert(1)>';
		t.entries.push(step(3, '</script><script>alert(1)</script> & "quoted"'));
		const html = page(t);
		assert.ok(!html.includes('<img src=x'));
		assert.ok(!html.includes('</script><script>alert(1)'));
		assert.match(html, /&lt;\/script&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; &quot;quoted&quot;/);
		assert.equal(escapeHtml(`<a href='x'>&</a>`), '&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;');
	});

	void it('starts the first screen a few rows above a focused step, and says so when there are no steps', () => {
		const t = timeline(500);
		assert.equal(firstScreenStart(t, undefined), 0);
		assert.equal(firstScreenStart(t, 200), 197);
		assert.equal(firstScreenStart(t, 500), t.entries.length - firstScreenRows);
		assert.match(page(t, 200), /data-index="197"[^]*<span class="label">200\. Edit/);
		const empty = page({ session: 'ses_2', sessionName: null, entries: [], you: null });
		assert.match(empty, /This session has no steps yet\./);
		assert.match(empty, /<h1>Replay: ses_2<\/h1>/);
	});

	void it('describes every kind of entry', () => {
		// Checkpoints by number, as every other view names them; the id in the hover.
		assert.deepEqual(
			replayRowView({
				type: 'checkpoint',
				id: 'evt_c',
				checkpointId: 'cp_20261125070000_a1b2c3',
				seq: 4,
				trigger: 'pre-rollback',
				at: '',
				message: 'before rolling back to #2',
			}),
			{
				className: 'row row-checkpoint',
				marker: '◆',
				label: 'Checkpoint',
				text: '#4 (pre-rollback) before rolling back to #2',
				title: 'cp_20261125070000_a1b2c3',
			},
		);
		const rejected = replayRowView(
			{ type: 'approval', id: 'evt_a', checkpointId: 'cp_20261125070000_a1b2c3', seq: 4, status: 'rejected', user: 'vscode:dana', at: '', reason: null },
			'dana',
		);
		assert.equal(rejected.label, 'Rejected');
		assert.equal(rejected.text, 'Checkpoint #4 by you', 'this machine’s user is “you”, not vscode:dana');
		assert.equal(rejected.title, 'cp_20261125070000_a1b2c3 · vscode:dana');
		assert.equal(
			replayRowView({ type: 'approval', id: 'evt_a', checkpointId: 'cp_1', seq: 4, status: 'approved', user: 'vscode:sam', at: '', reason: null }, 'dana')
				.text,
			'Checkpoint #4 by sam',
		);
		const human = replayRowView({ ...step(7), actor: 'human', tool: null } as TimelineEntryDto);
		assert.equal(human.className, 'row row-step actor-human');
		assert.equal(human.label, '7. You');
		assert.equal(human.text, 'edits between agent steps');
		const missed = replayRowView({ ...step(8), captured: false, files: [] } as TimelineEntryDto);
		assert.equal(missed.stats, 'not captured');
		assert.match(missed.className, /not-captured/);
		assert.equal(replayRowView({ type: 'prompt', id: 'evt_p', turn: 2, text: 'x'.repeat(300), at: '' }).text.length, 160);
	});
});
