import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sanitizeName, unsafeFileReason, unsafeNameReason } from '../../../../src/engine/interop/safeNames';
import { actor, openTestEngine } from '../../helpers';

void describe('safe file names (seed 004’s rules)', () => {
	void it('accepts [A-Za-z0-9._-] names of 1–64 characters and refuses traversal, reserved and odd names', () => {
		for (const ok of ['session-1', 'a', 'A.b_c-9', 'x'.repeat(64), 'console', 'com10', 'index-2']) {
			assert.equal(unsafeNameReason(ok), null, ok);
		}
		for (const bad of [
			'',
			'.',
			'..',
			'../x',
			'a/b',
			'a\\b',
			'x'.repeat(65),
			'a..b',
			'.hidden',
			'-rf',
			'with space',
			'émoji',
			'CON',
			'nul',
			'Com1',
			'LPT9.txt',
			'aux.json',
			'index',
			'INDEX',
			'metadata',
			'conin$',
		]) {
			assert.notEqual(unsafeNameReason(bad), null, JSON.stringify(bad));
		}
		assert.equal(unsafeFileReason('01-a.json'), null);
		assert.notEqual(unsafeFileReason('index.json'), null);
		assert.notEqual(unsafeFileReason('a.txt'), null);
		assert.notEqual(unsafeFileReason('../a.json'), null);
	});

	void it('sanitises any text into a safe name', () => {
		assert.equal(sanitizeName('Checkout: part 1 / totals'), 'Checkout-part-1-totals');
		assert.equal(sanitizeName('../../etc/passwd'), 'etc-passwd');
		assert.equal(sanitizeName('CON'), 'CON-session');
		assert.equal(sanitizeName('index'), 'index-session');
		assert.equal(sanitizeName('   '), 'session');
		assert.equal(sanitizeName('Ünïcödé naïve café'), 'Unicode-naive-cafe');
		assert.equal(sanitizeName('x'.repeat(200)).length, 59);
		let seed = 7;
		const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
		for (let i = 0; i < 2000; i++) {
			const text = Array.from({ length: Math.floor(random() * 90) }, () => String.fromCharCode(Math.floor(random() * 0x2fff))).join('');
			const name = sanitizeName(text);
			assert.equal(unsafeNameReason(name), null, `${JSON.stringify(text)} → ${name}`);
		}
	});
});

void describe('markdown views of a handoff and a briefing', () => {
	void it('renders the handoff, decisions and chain position, neutralising markdown in names and notes', async (t) => {
		const { engine, clock } = await openTestEngine(t);
		await engine.tasks.add({ title: 'Cart totals', actor });
		const one = await engine.sessions.start({ name: '# Cart\n## injected heading', agent: 'claude-code', actor });
		await engine.tasks.focus({ id: 'T1', actor });
		await engine.sessions.recordDecision({ text: 'Integer cents', rationale: 'floats drift', actor });
		clock.advance(60_000);
		await engine.sessions.end({ note: 'Totals done\n# not a heading', nextAction: 'Payment form', blockers: ['- sandbox down'], actor });
		const view = await engine.exports.markdown({ sessionId: one.session.id, kind: 'handoff' });
		assert.equal(view.title, 'Handoff — # Cart\n## injected heading');
		const md = view.markdown;
		assert.match(md, /^# Handoff: \\# Cart ## injected heading\n/);
		assert.equal(md.split('\n').filter((l) => l.startsWith('# ')).length, 1, 'one top heading only');
		assert.match(md, /## Note\n\nTotals done\n\\# not a heading\n/);
		assert.match(md, /## Next action\n\nPayment form\n/);
		assert.match(md, /## Last task\n\n- `T1` Cart totals\n/);
		assert.match(md, /## Open blockers\n\n- \\- sandbox down\n/);
		assert.match(md, /## Decisions\n\n- Integer cents — floats drift \(`T1`\)\n/);
		assert.match(md, /editing it changes nothing/);

		const two = await engine.sessions.start({ name: 'part 2', actor });
		const pending = await engine.exports.markdown({ sessionId: two.session.id, kind: 'handoff' });
		assert.match(pending.markdown, /_No handoff yet: a session writes its handoff once, when it ends\._/);
		// The chain's neighbours by name (a person's), their ids beside them (a tool's).
		assert.match(pending.markdown, /- \*\*Continues:\*\* \\# Cart ## injected heading \(`ses_[^`]+`\)\n/);
		assert.match(
			(await engine.exports.markdown({ sessionId: one.session.id, kind: 'handoff' })).markdown,
			/- \*\*Continued by:\*\* part 2 \(`ses_[^`]+`\)/,
		);
		const briefing = await engine.exports.markdown({ sessionId: two.session.id, kind: 'briefing' });
		assert.equal(briefing.title, 'Briefing — part 2');
		assert.match(
			briefing.markdown,
			/## Previous session\n\n- \\# Cart ## injected heading \(`ses_[^`]+`\), ended [^\n]+\n- \*\*Note:\*\* Totals done # not a heading\n- \*\*Next action:\*\* Payment form\n- \*\*Blocker:\*\* \\- sandbox down\n/,
		);
		assert.match(briefing.markdown, /## Next tasks\n\n- `T1` Cart totals — medium\n/);
		await assert.rejects(engine.exports.markdown({ sessionId: two.session.id, kind: 'poem' as 'handoff' }), /unknown markdown view/);
	});
});
