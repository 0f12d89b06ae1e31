/**
 * Protocol method → engine call. Thin on purpose: rules live in the engine, and so do the shapes of
 * its records, which the handlers return as they are (the protocol names them, docs/architecture.md §2).
 */
import os from 'node:os';
import { ResponseError, type MessageConnection, type RequestType } from 'vscode-jsonrpc/node';
import { BatonError } from '../engine/errors';
import type { Engine } from '../engine/engine';
import type { Comparison } from '../engine/checkpoints/checkpointShapes';
import type { Checkpoint } from '../engine/storage/model';
import type { CheckpointDto, ComparisonDto } from '../protocol/checkpointDto';
import * as rpc from '../protocol/rpc';
import type { EngineHost } from './engineHost';
import { registerTreeHandlers, treeRootAnswer } from './sessionTree';

/** The one shape the wire changes: lists and comparisons carry no environment snapshot (it can hold thousands of package versions). */
const toCheckpointDto = ({ environment: _environment, ...checkpoint }: Checkpoint): CheckpointDto => checkpoint;

/** This machine's user, as person's actors record it (`vscode:<user>`). */
export const localUser = (): string => process.env['USER'] || process.env['USERNAME'] || accountName();

/** The account's name where the environment does not say it (the CLI records `cli:<it>`, so both read "you"). */
function accountName(): string {
	try {
		return os.userInfo().username || 'user';
	} catch {
		return 'user';
	}
}

/** A comparison for the wire: its checkpoints without their environment snapshots (it carries their diff), with its sessions' names. */
async function toComparisonDto(engine: Engine, c: Comparison): Promise<ComparisonDto> {
	const sessions: ComparisonDto['sessions'] = [];
	for (const id of new Set([c.from?.sessionId, c.to?.sessionId])) {
		const session = id ? await engine.briefings.get(id).catch(() => undefined) : undefined;
		if (session) sessions.push({ id: session.id, name: session.name });
	}
	return { ...c, from: c.from ? toCheckpointDto(c.from) : null, to: c.to ? toCheckpointDto(c.to) : null, sessions, you: localUser() };
}

/** A list's checkpoints for the wire, each of this machine's with the teammates' opinions about it (one read). */
async function withOpinions(engine: Engine, list: readonly Checkpoint[]): Promise<CheckpointDto[]> {
	const opinions = await engine.sync.opinionsFor(list.map((c) => c.id));
	return list.map((c) => {
		const dto = toCheckpointDto(c);
		const mine = opinions.get(c.id);
		return mine ? { ...dto, opinions: mine } : dto;
	});
}
export const actor = (): string => `vscode:${localUser()}`;

export function registerHandlers(connection: MessageConnection, host: EngineHost, workspaceRoot: string): void {
	const on = requestRegistrar(connection, host);
	const status = statusReader(host, workspaceRoot);
	on(rpc.workspaceStatus, status);
	on(rpc.workspaceInit, async () => {
		await host.write(async () => undefined, true);
		return status();
	});
	registerTreeHandlers(on, host);
	registerSessionReads(on, host);
	registerSessionWrites(on, host);
	registerTaskHandlers(on, host);
}

type Registrar = ReturnType<typeof requestRegistrar>;

/** Runs a read against the workspace's engine. */
function reader(host: EngineHost) {
	return async <R>(fn: (engine: Engine) => Promise<R>): Promise<R> => fn(await host.get());
}

/** The workspace's status (an uninitialised one answers zeros); the first read of an initialised one warms the session tree. */
function statusReader(host: EngineHost, workspaceRoot: string): () => Promise<rpc.WorkspaceStatus> {
	let prewarmed = false;
	return async (): Promise<rpc.WorkspaceStatus> => {
		if (!host.initialized) {
			return {
				initialized: false,
				workspaceRoot,
				sequence: 0,
				active: [],
				counts: { active: 0, suspended: 0, ended: 0, orphaned: 0, archived: 0, closed: 0 },
				config: { orphanAfterMs: 0, autoEndAfterMs: 0, maxConcurrentSessions: 0 },
				pendingCheckpoints: [],
			};
		}
		const engine = await host.get();
		if (!prewarmed) {
			// The editor's first status read is followed by the tree's first request: build the session
			// tree's first level now (kept per engine until sessions or tasks change) so that request finds it warm.
			prewarmed = true;
			setImmediate(() => void treeRootAnswer(engine).catch(() => undefined));
		}
		return {
			initialized: true,
			workspaceRoot,
			sequence: engine.store.sequence,
			active: await engine.briefings.active(),
			counts: await engine.briefings.counts(),
			config: {
				orphanAfterMs: engine.config.orphanAfter,
				autoEndAfterMs: engine.config.autoEndAfter,
				maxConcurrentSessions: engine.config.maxConcurrentSessions,
			},
			pendingCheckpoints: await withOpinions(engine, await engine.checkpoints.pending()),
		};
	};
}

/** Sessions, their details and briefings, as the engine reads them. */
function registerSessionReads(on: Registrar, host: EngineHost): void {
	const read = reader(host);
	on(rpc.sessionOverview, () => read(async (engine) => ({ chains: await engine.briefings.overview() })));
	on(rpc.sessionList, (params) =>
		read(async (engine) => ({
			sessions: await engine.briefings.list({
				...(params.status ? { status: params.status } : {}),
				...(params.scope ? { scope: params.scope } : {}),
				...(params.limit ? { limit: params.limit } : {}),
			}),
		})),
	);
	on(rpc.sessionDetails, (params) =>
		read(async (engine) => {
			const details = await engine.briefings.details(params.id);
			return {
				session: details.session,
				handoff: details.handoff.kind === 'valid' ? details.handoff.data : null,
				handoffProblem: details.handoff.kind === 'malformed' ? details.handoff.problem : null,
				chain: details.chain,
				forkTree: details.forkTree,
				decisions: details.decisions,
				linkedIssues: await engine.trackers.list({ sessionId: params.id }),
			};
		}),
	);
	on(rpc.sessionForkTree, (params) => read(async (engine) => ({ tree: await engine.briefings.forkTree(params.id) })));
	on(rpc.sessionSummary, (params) => read((engine) => engine.memory.sessionSummary(params.id)));
	on(rpc.briefingGet, (params) =>
		read(async (engine) => ({
			briefing: await engine.briefings.briefing({
				...(params.sessionId ? { sessionId: params.sessionId } : {}),
				...(params.scope ? { scope: params.scope } : {}),
			}),
		})),
	);
}

/** Session changes (and issue links and decisions, which belong to a session), each as the editor's user. */
function registerSessionWrites(on: Registrar, host: EngineHost): void {
	on(rpc.issueLink, (params) => host.write((engine) => engine.trackers.link({ ref: params.ref, sessionId: params.sessionId, actor: actor() })));
	on(rpc.sessionStart, (params) =>
		host.write((engine) =>
			engine.sessions.start({
				name: params.name,
				scope: params.scope ?? 'global',
				agent: params.agent ?? null,
				currentTask: params.currentTask ?? null,
				parentSessionId: params.parentSessionId ?? null,
				actor: actor(),
			}),
		),
	);
	on(rpc.sessionEnd, (params) =>
		host.write((engine) =>
			engine.sessions.end({
				...(params.id ? { id: params.id } : {}),
				...(params.note ? { note: params.note } : {}),
				...(params.nextAction ? { nextAction: params.nextAction } : {}),
				blockers: params.blockers ?? [],
				actor: actor(),
			}),
		),
	);
	on(rpc.sessionSuspend, (params) => host.write(async (engine) => ({ session: await engine.sessions.suspend({ id: params.id, actor: actor() }) })));
	on(rpc.sessionRename, (params) =>
		host.write(async (engine) => ({ session: await engine.sessions.rename({ id: params.id, name: params.name, actor: actor() }) })),
	);
	on(rpc.sessionResume, (params) => host.write(async (engine) => ({ session: await engine.sessions.resume({ id: params.id, actor: actor() }) })));
	on(rpc.sessionSwitch, (params) =>
		host.write((engine) => engine.sessions.switch({ id: params.id, ...(params.from ? { from: params.from } : {}), actor: actor() })),
	);
	on(rpc.sessionGc, (params) =>
		host.write((engine) =>
			engine.sessions.gc({
				...(params.orphanAfterMs !== undefined ? { orphanAfterMs: params.orphanAfterMs } : {}),
				...(params.endAfterMs !== undefined ? { endAfterMs: params.endAfterMs } : {}),
				actor: actor(),
			}),
		),
	);
	on(rpc.decisionRecord, (params) =>
		host.write(async (engine) => ({
			decision: await engine.sessions.recordDecision({
				text: params.text,
				...(params.rationale ? { rationale: params.rationale } : {}),
				...(params.kind ? { kind: params.kind } : {}),
				...(params.sessionId ? { sessionId: params.sessionId } : {}),
				actor: actor(),
			}),
		})),
	);
}

/** The task list and its changes. */
function registerTaskHandlers(on: Registrar, host: EngineHost): void {
	const read = reader(host);
	on(rpc.taskList, () => read(async (engine) => ({ tasks: await engine.tasks.list() })));
	on(rpc.taskAdd, (params) =>
		host.write(async (engine) => ({
			task: await engine.tasks.add({
				title: params.title,
				...(params.type ? { type: params.type } : {}),
				...(params.priority ? { priority: params.priority } : {}),
				...(params.parentId ? { parentId: params.parentId } : {}),
				dependsOn: params.dependsOn ?? [],
				actor: actor(),
			}),
		})),
	);
	on(rpc.taskFocus, (params) =>
		host.write((engine) => engine.tasks.focus({ id: params.id, ...(params.sessionId ? { sessionId: params.sessionId } : {}), actor: actor() })),
	);
}

export function registerCheckpointHandlers(connection: MessageConnection, host: EngineHost): void {
	const on = requestRegistrar(connection, host);
	const onProgress = (p: { phase: string; done: number; total: number }) => void connection.sendNotification(rpc.checkpointProgress, { ...p, message: null });
	on(rpc.checkpointList, async (params) => ({
		checkpoints: await (async (engine) =>
			withOpinions(
				engine,
				await engine.checkpoints.list({
					...(params.sessionId ? { sessionId: params.sessionId } : {}),
					...(params.status ? { status: params.status } : {}),
					limit: params.limit ?? 500,
				}),
			))(await host.get()),
	}));
	on(rpc.checkpointCreate, (params) =>
		host.write(async (engine) => ({
			checkpoint: toCheckpointDto(
				await engine.checkpoints.create({
					trigger: params.trigger ?? 'manual',
					message: params.message ?? null,
					tags: params.tags ?? [],
					...(params.sessionId ? { sessionId: params.sessionId } : {}),
					actor: actor(),
					onProgress,
				}),
			),
		})),
	);
	on(rpc.checkpointApprove, (params) =>
		host.write(async (engine) => ({
			checkpoint: toCheckpointDto(await engine.checkpoints.approve(params.id, { actor: actor(), reason: params.reason ?? null })),
		})),
	);
	on(rpc.checkpointReject, (params) =>
		host.write(async (engine) => ({
			checkpoint: toCheckpointDto(await engine.checkpoints.reject(params.id, { actor: actor(), reason: params.reason ?? null })),
		})),
	);
	on(rpc.checkpointTag, (params) =>
		host.write(async (engine) => ({ checkpoint: toCheckpointDto(await engine.checkpoints.tag(params.id, params.tag, actor())) })),
	);
	on(rpc.checkpointDiff, async (params) => {
		const engine = await host.get();
		return toComparisonDto(engine, await engine.checkpoints.diff(params.from, params.to ?? null));
	});
	on(rpc.checkpointChanges, async (params) => {
		const engine = await host.get();
		return toComparisonDto(engine, await engine.checkpoints.changes(params.id));
	});
	on(rpc.checkpointFile, async (params) => {
		const bytes = await (await host.get()).checkpoints.fileAt(params.id, params.path);
		if (!bytes) {
			return { text: null, binary: false };
		}
		// A NUL byte in the first 8 KB is git's own test for binary content.
		const binary = bytes.subarray(0, 8192).includes(0);
		return { text: binary ? null : bytes.toString('utf8'), binary };
	});
	on(rpc.checkpointRollbackTarget, async (params) => {
		const { checkpoint, target } = await (await host.get()).checkpoints.rollbackTarget(params.id);
		return { checkpoint: toCheckpointDto(checkpoint), target: target ? toCheckpointDto(target) : null };
	});
	on(rpc.checkpointRollback, (params) =>
		host.write((engine) => engine.checkpoints.rollback(params.id, { actor: actor(), ...(params.force ? { force: true } : {}), onProgress })),
	);
}

/** Registers handlers whose failures reach the client as coded ResponseErrors. */
/** Registers a window's requests; each is counted by the host while it runs (EngineHost.serve). */
export function requestRegistrar(connection: MessageConnection, host: EngineHost) {
	return <P, R>(type: RequestType<P, R, rpc.RpcErrorData>, handler: (params: P) => Promise<R>): void => {
		connection.onRequest(type, async (params: P) => {
			try {
				return await host.serve(() => handler(params));
			} catch (error) {
				throw toResponseError(error);
			}
		});
	};
}

/** BatonErrors keep their code (the extension words its messages by it); anything else is a bug. */
function toResponseError(error: unknown): ResponseError<rpc.RpcErrorData> {
	if (BatonError.is(error)) {
		return new ResponseError(1, error.message, { code: error.code });
	}
	return new ResponseError(2, `internal error: ${(error as Error).message ?? String(error)}`, { code: 'internal' });
}
