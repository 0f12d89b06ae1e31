/**
 * Seeds a demo workspace: a small shop project (a real git repository) with a task graph and a
 * realistic history of agent sessions — a chain with handoffs, a suspended session, an orphaned
 * one and an orchestrator with workers — spread over the last few days; then a Claude Code session
 * through the real hooks whose transcript Baton archived before Claude's own copy went away.
 *   node --import tsx scripts/seedDemo.ts <dir> [--force]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/engine/engine';
import type { Clock } from '../src/engine/ports';
import { stderrLogger } from '../src/cli/stderrLogger';
import { createGitStateReader } from '../src/engine/sessions/gitState';
import { seedArchivedTranscript } from './seedTranscript';

class SteppingClock implements Clock {
	constructor(public ms: number) {}
	now(): number {
		return this.ms;
	}
	advance(minutes: number): void {
		this.ms += minutes * 60_000;
	}
}

const files: Record<string, string> = {
	'README.md': '# acme-shop\n\nA small storefront used to try Baton.\n',
	'package.json': '{\n  "name": "acme-shop",\n  "version": "0.3.0",\n  "private": true,\n  "scripts": { "test": "node --test" }\n}\n',
	'src/cart.js': 'export function total(items) {\n  return items.reduce((sum, i) => sum + i.price * i.qty, 0);\n}\n',
	'src/payment.js': 'export async function charge(card, amount) {\n  // TODO: idempotency key\n  return { ok: true, amount };\n}\n',
	'src/search.js': 'export function search(products, q) {\n  return products.filter((p) => p.name.includes(q));\n}\n',
};

function git(cwd: string, args: string[]): void {
	execFileSync('git', args, {
		cwd,
		stdio: 'ignore',
		env: {
			...process.env,
			GIT_CONFIG_GLOBAL: '/dev/null',
			GIT_AUTHOR_NAME: 'Demo',
			GIT_AUTHOR_EMAIL: 'demo@example.invalid',
			GIT_COMMITTER_NAME: 'Demo',
			GIT_COMMITTER_EMAIL: 'demo@example.invalid',
		},
	});
}

const person = 'cli:demo';
const claude = 'agent:claude-code';
const copilot = 'agent:copilot';

export async function seedDemo(dir: string): Promise<void> {
	writeProject(dir);
	const clock = new SteppingClock(Date.now() - 4 * 86_400_000);
	const engine = await Engine.open({
		workspaceRoot: dir,
		log: stderrLogger,
		clock,
		create: true,
		git: createGitStateReader(dir),
		config: { maxConcurrentSessions: 10 },
	});
	// This team's sessions run for days (the history below spans four): escalate on duration only
	// after a week, so opening the demo does not start with a modal about the search session's age.
	fs.writeFileSync(path.join(dir, '.baton', 'config.json'), `${JSON.stringify({ checkpoints: { escalation: { duration: '7d' } } }, null, 2)}\n`);
	try {
		await seedTasks(engine);
		await seedCheckoutChain(engine, clock);
		await seedSearchSession(engine, clock);
		await seedOrchestrator(engine, clock);
		await seedOrphan(engine, clock);
	} finally {
		engine.close();
	}
	seedClaudeSession(dir);
}

/** The shop's files committed in a fresh git repository, plus one uncommitted change to payment.js. */
function writeProject(dir: string): void {
	fs.mkdirSync(dir, { recursive: true });
	for (const [name, text] of Object.entries(files)) {
		fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
		fs.writeFileSync(path.join(dir, name), text);
	}
	git(dir, ['init', '-q', '-b', 'main']);
	git(dir, ['add', '.']);
	git(dir, ['commit', '-qm', 'Initial storefront']);
	fs.appendFileSync(path.join(dir, 'src/payment.js'), '\nexport function refund() {}\n');
}

/** The task graph: two epics (checkout T1, search T2) with their children, and three loose tasks (T12–T14). */
async function seedTasks(engine: Engine): Promise<void> {
	const task = (title: string, extra: Parameters<typeof engine.tasks.add>[0] extends infer I ? Partial<I> : never = {}) =>
		engine.tasks.add({ title, actor: person, ...extra });
	await task('Checkout flow', { type: 'epic', priority: 'high' }); // T1
	await task('Search', { type: 'epic' }); // T2
	await task('Cart totals with tax', { parentId: 'T1' }); // T3
	await task('Payment form', { parentId: 'T1', priority: 'high' }); // T4
	await task('Stripe webhook handler', { parentId: 'T1', priority: 'high', dependsOn: ['T4'] }); // T5
	await task('Order confirmation email', { parentId: 'T1', dependsOn: ['T5'] }); // T6
	await task('Double charge when the payment is retried', { parentId: 'T1', type: 'bug', priority: 'critical' }); // T7
	await task('Index products', { parentId: 'T2' }); // T8
	await task('Search query API', { parentId: 'T2', dependsOn: ['T8'] }); // T9
	await task('Autocomplete UI', { parentId: 'T2', dependsOn: ['T9'], priority: 'low' }); // T10
	await task('Search ignores accents', { parentId: 'T2', type: 'bug' }); // T11
	await task('Upgrade to Node 22', { priority: 'low' }); // T12
	await task('Write the 0.4 changelog'); // T13
	await task('Audit dependencies for 0.4'); // T14
}

/** The checkout chain: three agent sessions, each picking up the previous handoff. */
async function seedCheckoutChain(engine: Engine, clock: SteppingClock): Promise<void> {
	await seedCartSession(engine, clock);
	await seedPaymentSession(engine, clock);
	await seedWebhookSession(engine, clock);
}

/** Claude Code does cart totals and tax (T3) and records why prices are integer cents. */
async function seedCartSession(engine: Engine, clock: SteppingClock): Promise<void> {
	clock.advance(30);
	const s = await engine.sessions.start({
		name: 'Checkout: cart and tax',
		scope: 'epic:T1',
		agent: 'claude-code',
		agentIdentifier: 'b7c1e3a0-1f',
		actor: claude,
	});
	await engine.tasks.focus({ id: 'T3', actor: claude });
	clock.advance(40);
	await engine.sessions.recordDecision({ text: 'Keep prices in integer cents', rationale: 'Floating point rounding broke the tax tests', actor: claude });
	clock.advance(35);
	await engine.tasks.update({ id: 'T3', status: 'done', actor: claude });
	await engine.sessions.end({
		id: s.session.id,
		note: 'Cart totals and tax are done and tested.',
		nextAction: 'Build the payment form (T4).',
		actor: claude,
	});
}

/** Copilot picks up the handoff, builds the payment form (T4) and ends with a blocker. */
async function seedPaymentSession(engine: Engine, clock: SteppingClock): Promise<void> {
	clock.advance(20 * 60);
	const s = await engine.sessions.start({
		name: 'Checkout: payment form',
		scope: 'epic:T1',
		agent: 'copilot',
		agentIdentifier: 'copilot-7731',
		actor: copilot,
	});
	await engine.tasks.focus({ id: 'T4', actor: copilot });
	clock.advance(55);
	await engine.sessions.recordDecision({
		text: 'Use Stripe Elements for card input',
		rationale: 'Keeps card data out of our servers (PCI scope)',
		actor: copilot,
	});
	await engine.tasks.update({ id: 'T4', status: 'done', actor: copilot });
	clock.advance(25);
	await engine.sessions.end({
		id: s.session.id,
		note: 'Payment form submits to Stripe; no webhook yet.',
		nextAction: 'Write the webhook handler (T5) with an idempotency key.',
		blockers: ['Need the Stripe webhook signing secret for staging'],
		actor: copilot,
	});
}

/** Claude Code writes the webhook handler (T5), is resumed under a second alias, and records memory. */
async function seedWebhookSession(engine: Engine, clock: SteppingClock): Promise<void> {
	clock.advance(18 * 60);
	const s = await engine.sessions.start({
		name: 'Checkout: webhooks',
		scope: 'epic:T1',
		agent: 'claude-code',
		agentIdentifier: 'e91d0c55-a2',
		actor: claude,
	});
	await engine.tasks.focus({ id: 'T5', actor: claude });
	clock.advance(15);
	await engine.sessions.addAlias({ sessionId: s.session.id, agent: 'claude-code', alias: 'e91d0c55-a3', actor: claude }); // resumed after /compact
	clock.advance(50);
	await engine.sessions.recordDecision({ text: 'Idempotency key = order id + attempt', rationale: 'Retries must not double charge (T7)', actor: claude });
	// What the agent learned the hard way, recorded through MCP's record_memory (decisions and blockers become facts by themselves).
	await engine.memory.record({
		kind: 'gotcha',
		text: 'Stripe test mode rejects charges under 50 cents: use 100 or more in payment fixtures',
		sourceSessionId: s.session.id,
		actor: claude,
	});
	await engine.memory.record({ kind: 'knowledge', text: 'The tests need no network: `npm test` runs them against recorded Stripe responses', actor: person });
	await engine.sessions.end({
		id: s.session.id,
		note: 'Webhook handler verifies signatures; retry path still charges twice in one case.',
		nextAction: 'Reproduce T7 with a retried payment, then finish T5.',
		actor: claude,
	});
}

/** Search: started, then suspended for the checkout work. */
async function seedSearchSession(engine: Engine, clock: SteppingClock): Promise<void> {
	clock.advance(3 * 60);
	const s = await engine.sessions.start({
		name: 'Search: product index',
		scope: 'epic:T2',
		agent: 'cline',
		agentIdentifier: 'task-1732',
		actor: 'agent:cline',
	});
	await engine.tasks.focus({ id: 'T8', actor: 'agent:cline' });
	clock.advance(45);
	await engine.sessions.suspend({ id: s.session.id, actor: person });
}

/** An orchestrator fanning out two workers, each closing its task. */
async function seedOrchestrator(engine: Engine, clock: SteppingClock): Promise<void> {
	clock.advance(60);
	const orchestrator = await engine.sessions.start({ name: 'Release 0.4 orchestration', scope: 'global', agent: 'claude-code', actor: claude });
	for (const [taskId, name] of [
		['T13', 'Worker: changelog'],
		['T14', 'Worker: dependency audit'],
	] as const) {
		clock.advance(5);
		const worker = await engine.sessions.start({
			name,
			scope: `task:${taskId}`,
			parentSessionId: orchestrator.session.id,
			agent: 'claude-code',
			actor: claude,
		});
		clock.advance(20);
		await engine.tasks.update({ id: taskId, status: 'done', actor: claude });
		await engine.sessions.end({ id: worker.session.id, note: `${name.slice(8)} ready for review.`, actor: claude });
	}
	clock.advance(10);
	await engine.sessions.end({ id: orchestrator.session.id, note: 'Release notes and audit done; Node upgrade (T12) left for later.', actor: claude });
}

/** A session an agent abandoned: no activity for two days, so gc orphaned it. */
async function seedOrphan(engine: Engine, clock: SteppingClock): Promise<void> {
	clock.advance(60);
	await engine.sessions.start({ name: 'Spike: Node 22 upgrade', scope: 'task:T12', agent: 'copilot', actor: copilot });
	clock.advance(2 * 24 * 60);
	await engine.sessions.gc({ actor: 'baton:gc' });
}

/**
 * Claude Code at work through its real hooks: a session in the global chain, its transcript
 * archived in .baton/transcripts/, and Claude's own copy gone (as after its 30-day cleanup).
 */
function seedClaudeSession(dir: string): void {
	const cli = path.resolve(__dirname, '../dist/cli.js');
	if (!fs.existsSync(cli)) {
		process.stderr.write('dist/cli.js is missing (run npm run build): the demo has no archived transcript\n');
		return;
	}
	const claudeHome = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-demo-claude-'));
	try {
		seedArchivedTranscript({ root: dir, cli, claudeHome, end: true });
	} finally {
		fs.rmSync(claudeHome, { recursive: true, force: true });
	}
}

if (require.main === module) {
	const [dir, flag] = process.argv.slice(2);
	if (!dir) {
		process.stderr.write('usage: seedDemo.ts <dir> [--force]\n');
		process.exit(2);
	}
	if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) {
		if (flag !== '--force') {
			process.stderr.write(`${dir} is not empty; pass --force to replace it\n`);
			process.exit(1);
		}
		fs.rmSync(dir, { recursive: true, force: true });
	}
	void seedDemo(path.resolve(dir)).then(() => process.stdout.write(`Seeded a demo workspace in ${path.resolve(dir)}\n`));
}
