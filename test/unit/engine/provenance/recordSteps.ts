/**
 * Produces turn-capture records exactly as the capture writes them: before and after each scripted
 * edit, the workspace tree is written into Baton's real shadow store by git (`add -A` with a private
 * index, then `write-tree`), and the step is appended as a real `timeline.step` shared event; the
 * turn's prompt as `timeline.prompt`. A change found between two steps (a person's edit) becomes a
 * step of its own with actor `human`, as the capture does. Tests about attributing agent edits drive
 * the real capture through hook payloads instead (hookAgent.ts); this stays for the few that need steps
 * of an exact shape written at exact points by their own engine (each says why).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { ShadowRepo } from '../../../../src/engine/shadow/shadowRepo';
import { stepFiles } from '../../../../src/engine/timeline/treeCapture';
import type { Engine } from '../../../../src/engine/engine';
import { machineIdentity } from '../../../../src/engine/shared/machineIdentity';
import { appendSharedEvent } from '../../../../src/engine/shared/sharedEvents';
import { batonDir } from '../../../../src/engine/workspace';
import { actor, openTestEngine, tempDir } from '../../helpers';
import { ScriptedRepo } from './scriptedRepo';

export interface RecordedStep {
	session: string;
	step: number;
	turn: string;
	actor: 'agent' | 'human';
	treeBefore: string;
	treeAfter: string;
	files: { path: string; change: 'added' | 'modified' | 'deleted'; additions: number; deletions: number; blobBefore?: string; blobAfter?: string }[];
}

export class StepRecorder {
	private readonly shadow: ShadowRepo;
	private readonly index: string;
	private lastTree: string | undefined;
	private readonly nextStep = new Map<string, number>();
	private readonly prompted = new Set<string>();

	constructor(
		private readonly engine: Engine,
		private readonly root: string,
		/** The script's clock (ms): steps are stamped with it, as commits are. */
		private readonly now: () => number,
		/** Write steps as records made before blob ids were recorded (their files are read as `tree:path`). */
		private readonly olderRecords = false,
	) {
		this.shadow = new ShadowRepo(root, batonDir(root));
		this.index = path.join(this.shadow.gitDir, 'capture-test.index');
	}

	/** The workspace's tree in the shadow store, through a private index. */
	async tree(): Promise<string> {
		return this.shadow.withLock(async () => {
			await this.shadow.ensureInit([]);
			const env = { GIT_INDEX_FILE: this.index };
			await this.shadow.git(['add', '-A'], { env });
			return this.shadow.gitText(['write-tree'], { env });
		});
	}

	/** One agent tool call: `edit` runs between the before and after trees. */
	async agentStep(
		session: { id: string; agent: string; model?: string },
		turn: string,
		prompt: string,
		tool: string,
		edit: () => void,
	): Promise<RecordedStep> {
		if (!this.prompted.has(`${session.id}:${turn}`)) {
			this.prompted.add(`${session.id}:${turn}`);
			await this.append(session.id, `agent:${session.agent}`, 'timeline.prompt', { turn, text: prompt, at: new Date(this.now()).toISOString() });
		}
		const before = await this.tree();
		if (this.lastTree !== undefined && before !== this.lastTree) {
			await this.record(session.id, 'human', turn, 'human edit', this.lastTree, before);
		}
		edit();
		const after = await this.tree();
		this.lastTree = after;
		return this.record(session.id, 'agent', turn, tool, before, after, session.agent, session.model);
	}

	private async record(
		session: string,
		actor: 'agent' | 'human',
		turn: string,
		tool: string,
		treeBefore: string,
		treeAfter: string,
		agent?: string,
		model?: string,
	): Promise<RecordedStep> {
		const step = (this.nextStep.get(session) ?? 0) + 1;
		this.nextStep.set(session, step);
		const files = await this.changedFiles(treeBefore, treeAfter);
		await this.append(session, actor === 'agent' ? `agent:${agent ?? 'agent'}` : 'human', 'timeline.step', {
			step,
			turn,
			toolUseId: `toolu_${session}_${step}`,
			actor,
			tool,
			summary: `${tool} ${files.map((f) => f.path).join(', ')}`,
			startedAt: new Date(this.now()).toISOString(),
			treeBefore,
			treeAfter,
			files,
			captured: true,
			...(model ? { model } : {}),
		});
		return { session, step, turn, actor, treeBefore, treeAfter, files };
	}

	/** The capture's own file list (blob ids included), or without blob ids as records written before they were recorded. */
	private async changedFiles(before: string, after: string): Promise<RecordedStep['files']> {
		const { files } = await stepFiles(this.shadow, before, after);
		return this.olderRecords ? files.map(({ path: file, change, additions, deletions }) => ({ path: file, change, additions, deletions })) : files;
	}

	private async append(session: string, actor: string, kind: string, body: Record<string, unknown>): Promise<void> {
		const machine = machineIdentity(this.root);
		const at = this.now();
		await this.engine.store.write((db) => appendSharedEvent(db, machine, at, { kind, subject: session, sessionId: session, actor, body }));
	}
}

/**
 * The start every provenance test shares: a git repository whose first commit holds a person's
 * `src/app.ts`, Baton's engine on it, a step recorder on the repository's clock and one session.
 */
export async function provenanceWorld(t: TestContext, prefix: string, session: { name: string; agent: string }) {
	const root = tempDir(t, prefix);
	const repo = new ScriptedRepo(root);
	repo.git(['init', '-q', '-b', 'main']);
	fs.writeFileSync(path.join(root, '.gitignore'), '.baton/\n');
	repo.addFunction('src/app.ts', 'start', 1, { origin: 'human' });
	repo.commit('init');
	const { engine } = await openTestEngine(t, { root });
	const recorder = new StepRecorder(engine, root, () => repo.ms);
	const started = (await engine.sessions.start({ name: session.name, agent: session.agent, actor })).session;
	return { root, repo, engine, recorder, session: started };
}
