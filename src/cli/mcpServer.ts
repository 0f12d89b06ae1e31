/**
 * `baton mcp`: Baton's tools for any MCP client (Copilot agent mode, Claude Code, Cline), over stdio
 * with the official MCP TypeScript SDK. stdout carries the protocol and nothing else: the engine logs
 * to stderr. Tool results are JSON text; refusals are tool errors with `{error:{code,message}}`, so
 * the model sees why. The engine opens on the first call (the server starts even where Baton is not
 * set up yet, and says so when used).
 */
import { McpServer, type ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ShapeOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { z } from 'zod';
import { defaultBriefingBudget } from '../engine/agentConfig/agentSettings';
import { renderBriefingDiet } from '../engine/hooks/briefingDiet';
import { checkpointPortOf, checkpointsUnavailable, type CheckpointPort } from '../engine/hooks/checkpointPort';
import type { Engine } from '../engine/engine';
import { BatonError } from '../engine/errors';
import { withoutNul } from '../engine/text/controlChars';
import { BoundedStdioServerTransport } from './boundedStdioTransport';
import packageJson from '../../package.json';

export interface McpServerOptions {
	/** Opens (once) and returns the workspace's engine. */
	engine: () => Promise<Engine>;
	/** The actor recorded for writes when the client does not name itself. */
	actor: string;
	workspaceRoot: string;
	stdin?: NodeJS.ReadableStream;
	stdout?: NodeJS.WritableStream;
	/** The largest message accepted, in bytes; a larger one is answered with an error and skipped. */
	maxLineBytes?: number;
}

/** Registers one tool whose run gets the engine; errors become the tool's coded error answer. */
type ToolRegistrar = <Shape extends z.ZodRawShape>(
	name: string,
	description: string,
	shape: Shape,
	run: (input: ShapeOutput<Shape>, engine: Engine) => Promise<unknown>,
) => void;
type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

const sessionId = z.string().min(1).max(200);

/** Serves until the client closes stdin. */
export async function runMcpServer(options: McpServerOptions): Promise<void> {
	const stdin = options.stdin ?? process.stdin;
	const server = createBatonMcpServer(options);
	// Not the SDK's StdioServerTransport: that one closes for good on a single oversize message.
	const transport = new BoundedStdioServerTransport(
		stdin,
		options.stdout ?? process.stdout,
		options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {},
	);
	const closed = new Promise<void>((resolve) => {
		stdin.once('end', resolve);
		stdin.once('close', resolve);
		transport.onclose = () => resolve();
	});
	await server.connect(transport);
	await closed;
	await server.close();
}

export function createBatonMcpServer(options: McpServerOptions): McpServer {
	const server = new McpServer(
		{ name: 'baton', version: packageJson.version },
		{
			instructions:
				'Baton keeps durable sessions for coding agents: start one with a briefing, record decisions, end it with a handoff for whoever comes next.',
		},
	);
	const actor = (): string => {
		const client = server.server.getClientVersion()?.name;
		return client ? `mcp:${client}` : options.actor;
	};
	const tool: ToolRegistrar = <Shape extends z.ZodRawShape>(
		name: string,
		description: string,
		shape: Shape,
		run: (input: ShapeOutput<Shape>, engine: Engine) => Promise<unknown>,
	): void => {
		const callback = async (input: ShapeOutput<Shape>): Promise<ToolResult> => {
			try {
				const engine = await options.engine();
				// A NUL means nothing in a name, a note or a memory: dropped before it is stored.
				return { content: [{ type: 'text', text: JSON.stringify(await run(withoutNul(input), engine), null, 2) }] };
			} catch (error) {
				const code = BatonError.is(error) ? error.code : 'internal';
				return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: { code, message: (error as Error).message } }) }] };
			}
		};
		// The SDK's callback type is a conditional type over the shape, which TypeScript cannot resolve
		// for a generic Shape; for a concrete shape it is exactly this function's type.
		server.registerTool(name, { description, inputSchema: shape }, callback as unknown as ToolCallback<Shape>);
	};

	sessionTools(tool, actor);
	briefingTools(tool);
	recordTools(tool, actor);
	checkpointTools(tool, actor);
	return server;
}

/** The session tools: start with a briefing, end with a handoff. */
function sessionTools(tool: ToolRegistrar, actor: () => string): void {
	tool(
		'session_start',
		'Start a durable Baton session for your work. Returns the session and its briefing: the previous session’s handoff, the current task and the tasks that unblock the most.',
		{
			name: z.string().min(1).max(200).describe('A short name for this piece of work'),
			scope: z
				.string()
				.max(200)
				.optional()
				.describe('global (default), epic:ID, task:ID, subtree:ID, taskGroup:ID, epicPhase:ID:PHASE or custom:ID[,ID…]'),
			agent: z.string().max(100).optional().describe('Your kind, e.g. claude-code, copilot, cline'),
			agentSessionId: z.string().max(200).optional().describe('Your own conversation id, recorded as an alias'),
			task: z.string().max(64).optional().describe('The task you work on'),
			parentSessionId: sessionId.optional().describe('The orchestrating session, when you are a worker'),
		},
		async (input, engine) => {
			const result = await engine.sessions.start({
				name: input.name,
				scope: input.scope ?? 'global',
				agent: input.agent ?? null,
				agentIdentifier: input.agentSessionId ?? null,
				currentTask: input.task ?? null,
				parentSessionId: input.parentSessionId ?? null,
				actor: actor(),
			});
			return {
				session: result.session,
				briefingText: renderBriefingDiet(result.briefing, defaultBriefingBudget),
				briefing: result.briefing,
				handoff: result.handoff,
				warnings: result.warnings,
			};
		},
	);

	tool(
		'session_end',
		'End a durable session, writing its handoff (write-once) for the next session of the same scope. Say where you got to, what comes next and what blocks you.',
		{
			sessionId: sessionId.optional().describe('Defaults to the only active session'),
			note: z.string().max(5_000).optional().describe('What was done and where things stand'),
			nextAction: z.string().max(1_000).optional().describe('The first thing the next session should do'),
			blockers: z.array(z.string().max(1_000)).max(50).optional(),
		},
		async (input, engine) => {
			const result = await engine.sessions.end({
				...(input.sessionId ? { id: input.sessionId } : {}),
				...(input.note !== undefined ? { note: input.note } : {}),
				...(input.nextAction !== undefined ? { nextAction: input.nextAction } : {}),
				blockers: input.blockers ?? [],
				actor: actor(),
			});
			return { session: result.session, handoff: result.handoff, warnings: result.warnings };
		},
	);
}

/** What sessions read: the active sessions, a briefing, a handoff. */
function briefingTools(tool: ToolRegistrar): void {
	tool('session_status', 'The active durable sessions of this workspace, and how many sessions are in each state.', {}, async (_input, engine) => ({
		active: await engine.briefings.active(),
		counts: await engine.briefings.counts(),
	}));

	tool(
		'briefing',
		'The briefing of a session (or of a scope): previous handoff, stale suggestions marked, current task, next tasks, project memory (gotchas first, stale facts marked), bugs, blockers. format "diet" (default) is short text within a character budget; "full" is the whole JSON.',
		{
			sessionId: sessionId.optional(),
			scope: z.string().max(200).optional(),
			format: z.enum(['diet', 'full']).optional(),
			budget: z.number().int().min(200).max(50_000).optional().describe('Characters for the diet format'),
		},
		async (input, engine) => {
			const briefing = await engine.briefings.briefing({
				...(input.sessionId ? { sessionId: input.sessionId } : {}),
				...(input.scope ? { scope: input.scope } : {}),
			});
			return input.format === 'full'
				? { briefing }
				: { sessionId: briefing.sessionId, scope: briefing.scope, text: renderBriefingDiet(briefing, input.budget ?? defaultBriefingBudget) };
		},
	);

	tool('handoff', 'The handoff a session left when it ended (null when it has none yet).', { sessionId }, async (input, engine) => {
		const stored = await engine.briefings.handoff(input.sessionId);
		return {
			sessionId: input.sessionId,
			handoff: stored.kind === 'valid' ? stored.data : null,
			...(stored.kind === 'malformed' ? { problem: stored.problem } : {}),
		};
	});
}

/** Decisions and memory, recorded on the session. */
function recordTools(tool: ToolRegistrar, actor: () => string): void {
	tool(
		'record_decision',
		'Record a decision (or an assumption) and why, in a session: it goes into the handoff so the next agent does not undo it.',
		{
			text: z.string().min(1).max(5_000),
			rationale: z.string().max(5_000).optional(),
			kind: z.enum(['decision', 'assumption']).optional(),
			sessionId: sessionId.optional().describe('Defaults to the only active session'),
			taskId: z.string().max(64).optional(),
		},
		async (input, engine) => ({
			decision: await engine.sessions.recordDecision({
				text: input.text,
				...(input.rationale ? { rationale: input.rationale } : {}),
				...(input.kind ? { kind: input.kind } : {}),
				...(input.sessionId ? { sessionId: input.sessionId } : {}),
				...(input.taskId ? { taskId: input.taskId } : {}),
				actor: actor(),
			}),
		}),
	);

	tool(
		'record_memory',
		'Record a fact in the project memory that every later session’s briefing draws from: a gotcha (a trap you hit: what fails and what works) or knowledge (how things are done here). A fact already known is confirmed instead of duplicated. Name the files it is about: when they change, the fact is marked stale.',
		{
			kind: z.enum(['knowledge', 'gotcha']),
			text: z.string().min(1).max(2_000).describe('One fact, self-contained: the next agent reads it without your context'),
			files: z.array(z.string().max(1_000)).max(50).optional().describe('Workspace-relative paths the fact is about'),
			sessionId: sessionId.optional().describe('The session that learned it (defaults to the only active session)'),
		},
		async (input, engine) => {
			const active = input.sessionId ? [] : await engine.briefings.active();
			const { entry, duplicate } = await engine.memory.record({
				kind: input.kind,
				text: input.text,
				files: input.files ?? [],
				sourceSessionId: input.sessionId ?? (active.length === 1 ? (active[0]?.id ?? null) : null),
				source: 'manual',
				actor: actor(),
			});
			return { entry, duplicate };
		},
	);
}

/** Checkpoints and a person's review. */
function checkpointTools(tool: ToolRegistrar, actor: () => string): void {
	const checkpoints = (engine: Engine): CheckpointPort => {
		const port = checkpointPortOf(engine);
		if (!port) {
			throw new BatonError('invalidInput', checkpointsUnavailable);
		}
		return port;
	};

	tool(
		'create_checkpoint',
		'Snapshot the workspace files now (Baton’s own shadow store; your git is untouched). Whether it needs a person’s approval follows the workspace policy.',
		{
			message: z.string().max(2_000).optional(),
			sessionId: sessionId.optional(),
			tags: z.array(z.string().max(100)).max(20).optional(),
			trigger: z.string().max(40).optional().describe('manual (default), complete, error, …'),
		},
		async (input, engine) => ({
			checkpoint: await checkpoints(engine).create({
				trigger: input.trigger ?? 'manual',
				message: input.message ?? null,
				...(input.sessionId ? { sessionId: input.sessionId } : {}),
				...(input.tags ? { tags: input.tags } : {}),
				actor: actor(),
			}),
		}),
	);

	tool(
		'request_approval',
		'Ask a person to approve the current state before you go on: takes a checkpoint that waits for review (or, given checkpointId, adds your reason to that one) and returns its approval status. Check it again later with the same checkpointId.',
		{
			reason: z.string().min(1).max(2_000).describe('What the person should look at and why'),
			sessionId: sessionId.optional(),
			checkpointId: z.string().max(64).optional(),
		},
		async (input, engine) => {
			const port = checkpoints(engine);
			if (input.checkpointId) {
				const checkpoint = port.annotate
					? await port.annotate(input.checkpointId, `approval requested: ${input.reason}`, actor())
					: await port.get?.(input.checkpointId);
				if (!checkpoint) {
					throw new BatonError('invalidInput', checkpointsUnavailable);
				}
				return { checkpoint, approvalStatus: checkpoint.approvalStatus };
			}
			// The agent asked for a person: the checkpoint waits for review under any policy, changed or not.
			const checkpoint = await port.create({
				trigger: 'manual',
				message: input.reason,
				tags: ['approval-requested'],
				reviewRequested: true,
				...(input.sessionId ? { sessionId: input.sessionId } : {}),
				actor: actor(),
			});
			return { checkpoint, approvalStatus: checkpoint.approvalStatus };
		},
	);
}
