/**
 * Which events become notifications, on which channels, saying what: real sessions and real
 * checkpoints (git workspace) through the engine's services, read back from the outbox.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveConfig } from '../../../../src/engine/config';
import { routeFor } from '../../../../src/engine/notifications/notificationRouting';
import type { NotificationMessage } from '../../../../src/engine/notifications/notificationMessage';
import type { NotificationOutboxRow } from '../../../../src/engine/storage/model';
import { actor } from '../../helpers';
import { makeWorkspace, write } from '../checkpoints/gitFixtures';
import { notifyEngine, outboxRows, type Notifications } from './notifyFixtures';

const three: Notifications = { channels: ['editor', 'slack', 'webhook'] };

function byEvent(rows: NotificationOutboxRow[]): Record<string, string[]> {
	const out: Record<string, string[]> = {};
	for (const row of rows) (out[`${row.event}/${row.status}`] ??= []).push(row.channel);
	for (const list of Object.values(out)) list.sort();
	return out;
}

async function checkpointEngine(t: Parameters<typeof notifyEngine>[0], notifications: Notifications) {
	const opened = await notifyEngine(t, notifications);
	opened.engine.checkpoints.faults.searchPath = '';
	makeWorkspace(opened.root);
	return opened;
}

void describe('notification rules and routing', () => {
	void it('routes by priority: info nowhere, notice to the editor, warning and critical everywhere enabled; overrides win', () => {
		const config = resolveConfig({ notifications: three }, 'test').notifications;
		assert.deepEqual(routeFor(config, 'info'), []);
		assert.deepEqual(routeFor(config, 'notice'), ['editor']);
		assert.deepEqual(routeFor(config, 'warning'), ['editor', 'slack', 'webhook']);
		assert.deepEqual(routeFor(config, 'critical'), ['editor', 'slack', 'webhook']);
		const custom = resolveConfig(
			{ notifications: { ...three, routing: { info: ['slack'], warning: ['webhook', 'email'], critical: ['slack', 'slack'] } } },
			'test',
		).notifications;
		assert.deepEqual(routeFor(custom, 'info'), ['slack']);
		assert.deepEqual(routeFor(custom, 'warning'), ['webhook'], 'a route names only enabled channels');
		assert.deepEqual(routeFor(custom, 'critical'), ['slack']);
		assert.deepEqual(routeFor(resolveConfig({}, 'test').notifications, 'critical'), ['editor'], 'by default only the editor is enabled');
	});

	void it('turns a session’s life into the notifications a person needs, with facts and the exact commands', async (t) => {
		const { engine, root, clock } = await checkpointEngine(t, three);
		const { session } = await engine.sessions.start({ name: 'checkout flow', actor });
		assert.deepEqual(byEvent(await outboxRows(engine)), {}, 'info goes nowhere by default');

		clock.advance(25 * 60_000);
		write(root, 'src/app.ts', 'export const app = 2;\n');
		write(root, 'src/new.ts', 'export const added = 1;\n');
		const failed = await engine.checkpoints.create({ trigger: 'error', message: 'tests fail', sessionId: session.id, costUsd: 1.25, actor });
		let rows = await outboxRows(engine);
		assert.deepEqual(byEvent(rows), { 'session.error/pending': ['editor', 'slack', 'webhook'] });
		const message = rows[0]!.message as NotificationMessage;
		assert.equal(message.priority, 'warning');
		assert.deepEqual(message.session, { id: session.id, name: 'checkout flow', costUsd: 1.25, durationMs: 25 * 60_000 });
		assert.deepEqual(message.filesChanged, {
			added: failed.fileStats.added,
			modified: failed.fileStats.modified,
			deleted: failed.fileStats.deleted,
			checkpoints: 1,
		});
		assert.ok(message.filesChanged!.added + message.filesChanged!.modified > 0);
		assert.equal(message.checkpoint?.id, failed.id);
		assert.deepEqual(
			message.actions.map((a) => [a.cli, a.editor]),
			[
				[`baton checkpoint diff ${failed.id}`, 'Baton: Compare Checkpoints'],
				[`baton checkpoint approve ${failed.id}`, 'Baton: Approve Checkpoint'],
				[`baton checkpoint reject ${failed.id}`, 'Baton: Reject Checkpoint'],
			],
		);

		await engine.checkpoints.approve(failed.id, { actor: 'vscode:lead', reason: 'flaky test' });
		write(root, 'src/app.ts', 'export const app = 3;\n');
		const manual = await engine.checkpoints.create({ trigger: 'complete', message: 'try a cache', sessionId: session.id, actor });
		await engine.checkpoints.reject(manual.id, { actor: 'vscode:lead', reason: 'wrong approach' });
		rows = await outboxRows(engine);
		const events = byEvent(rows);
		assert.deepEqual(events['checkpoint.approved/pending'], ['editor'], 'notice: the editor only');
		assert.deepEqual(events['checkpoint.needs_review/pending'], ['editor', 'slack', 'webhook']);
		const rejected = rows.find((r) => r.event === 'checkpoint.rejected')!.message as NotificationMessage;
		assert.equal(
			rejected.summary,
			`lead rejected checkpoint #${manual.seq} “try a cache”: wrong approach.`,
			'named by number and label, not by id, and the person by name, not by actor',
		);
		assert.equal(rejected.title, `Checkpoint rejected: #${manual.seq} “try a cache”`);
		assert.deepEqual(
			rejected.actions.map((a) => a.label),
			['Roll Back to the Last Approved Checkpoint'],
		);
		assert.deepEqual(
			rejected.actions.map((a) => a.cli),
			[`baton checkpoint rollback ${failed.id}`],
			'back to the last approved checkpoint',
		);

		await engine.checkpoints.recordMetrics({ sessionId: session.id, costUsd: 5.5, actor });
		write(root, 'src/app.ts', 'export const app = 4;\n');
		const escalated = await engine.checkpoints.create({ trigger: 'periodic', sessionId: session.id, actor });
		assert.deepEqual(escalated.escalationReasons, ['cost $5.50 reached the $5.00 threshold']);
		rows = await outboxRows(engine);
		assert.deepEqual(byEvent(rows)['budget.exceeded/pending'], ['editor', 'slack', 'webhook']);
		const escalation = rows.filter((r) => r.event === 'escalation.triggered');
		assert.deepEqual(
			escalation.map((r) => r.priority),
			['critical', 'critical', 'critical'],
		);
		assert.match((escalation[0]!.message as NotificationMessage).summary, /needs a person: cost \$5\.50 reached the \$5\.00 threshold/);

		await engine.sessions.end({ id: session.id, note: 'handing over', nextAction: 'finish the cache', actor });
		rows = await outboxRows(engine);
		const completed = rows.filter((r) => r.event === 'session.completed');
		assert.deepEqual(
			completed.map((r) => r.channel),
			['editor'],
		);
		const done = completed[0]!.message as NotificationMessage;
		assert.match(done.summary, /Next: finish the cache/);
		assert.equal(done.filesChanged?.checkpoints, 3, 'summed over the session’s checkpoints (the complete one comes after)');
		assert.deepEqual(
			done.actions.map((a) => a.cli),
			[`baton session show ${session.id}`],
		);
	});

	void it('announces an error count that rises through its threshold once, and a budget threshold before the budget', async (t) => {
		const { engine } = await notifyEngine(t, { ...three, budget: { sessionUsd: 10, threshold: 0.5 } });
		const { session } = await engine.sessions.start({ name: 'flaky', actor });
		await engine.checkpoints.recordMetrics({ sessionId: session.id, errorCount: 2, costUsd: 4.99, actor });
		assert.deepEqual(byEvent(await outboxRows(engine)), {}, 'below every line: nothing');
		await engine.checkpoints.recordMetrics({ sessionId: session.id, errorCount: 3, costUsd: 5, actor });
		await engine.checkpoints.recordMetrics({ sessionId: session.id, errorCount: 7, costUsd: 6, actor });
		assert.deepEqual(byEvent(await outboxRows(engine)), {
			'session.error/pending': ['editor', 'slack', 'webhook'],
			'budget.threshold_reached/pending': ['editor', 'slack', 'webhook'],
		});
		await engine.checkpoints.recordMetrics({ sessionId: session.id, costUsd: 10, actor });
		assert.deepEqual(byEvent(await outboxRows(engine))['budget.exceeded/pending'], ['editor', 'slack', 'webhook']);
	});

	void it('takes priorities and routes from the configuration, and queues nothing when turned off', async (t) => {
		const tuned = await notifyEngine(t, { ...three, priorities: { 'session.started': 'warning' }, routing: { notice: ['slack'] } });
		const { session } = await tuned.engine.sessions.start({ name: 'tuned', actor });
		await tuned.engine.sessions.end({ id: session.id, actor });
		assert.deepEqual(byEvent(await outboxRows(tuned.engine)), {
			'session.started/pending': ['editor', 'slack', 'webhook'],
			'session.completed/pending': ['slack'],
		});
		// A routed notification's message is read in full before its rows are written (built only when routed).
		const started = (await outboxRows(tuned.engine)).filter((r) => r.event === 'session.started').map((r) => r.message as NotificationMessage);
		assert.deepEqual(
			started.map((m) => [m.title, m.session?.id, m.session?.name, m.filesChanged]),
			Array.from({ length: 3 }, () => ['Session started: tuned', session.id, 'tuned', null]),
		);
		const off = await notifyEngine(t, { ...three, enabled: false });
		await off.engine.sessions.start({ name: 'quiet', actor });
		await off.engine.checkpoints.recordMetrics({ sessionId: (await off.engine.briefings.active())[0]!.id, costUsd: 50, actor });
		assert.deepEqual(await outboxRows(off.engine), []);
	});

	void it('refuses a secret in the configuration, naming the key and where secrets go', () => {
		assert.throws(
			() => resolveConfig({ notifications: { smtp: { host: 'mail', password: 'hunter2' } } }, '.baton/config.json'),
			/\.baton\/config\.json: notifications\.smtp\.password: secrets never go in configuration or settings; store smtp\.password with “Baton: Store Secret…” in VS Code, or set BATON_SMTP_PASSWORD for the CLI/,
		);
		assert.throws(
			() => resolveConfig({ trackers: { enabled: ['github'], github: { token: 'ghp_x' } } }, '.baton/config.json'),
			/trackers\.github\.token: secrets never go in configuration or settings; store github\.token .*BATON_GITHUB_TOKEN/,
		);
		assert.throws(
			() => resolveConfig({ notifications: { slack: { webhookUrl: 'https://hooks.slack.com/services/x' } } }, 'settings'),
			/notifications\.slack\.webhookUrl: .*BATON_SLACK_WEBHOOK_URL/,
		);
		assert.throws(() => resolveConfig({ notifications: { ntfy: { topic: 'a', token: 'tk_x' } } }, 'settings'), /notifications\.ntfy\.token/);
		assert.throws(() => resolveConfig({ notifications: { channels: ['pager'] } }, 'settings'), /notifications\.channels\.0/);
	});
});
