import { environmentCategories, type EnvironmentDiff } from '../engine/environment/environmentDiff';
import type { Checkpoint } from '../engine/storage/model';
import { isKnownTrigger } from '../engine/checkpoints/approvalPolicy';
import { checkpointTriggers } from '../engine/storage/schema';
import { parseDuration } from '../engine/config';
import type { Engine } from '../engine/engine';
import { BatonError } from '../engine/errors';
import { listOption, stringOption, UsageError, type Command, type ParsedValues } from './command';
import { pushAll } from '../engine/arrays';

async function soleActiveSessionId(engine: Engine): Promise<string> {
	const active = await engine.briefings.active();
	if (active.length !== 1 || !active[0]) {
		throw new BatonError(
			active.length === 0 ? 'notFound' : 'invalidInput',
			active.length === 0 ? 'no active session; pass --session ID' : `${active.length} sessions are active; pass --session ID`,
		);
	}
	return active[0].id;
}

function checkpointLine(cp: Checkpoint): string {
	const s = cp.fileStats;
	const files = `+${s.added} ~${s.modified} -${s.deleted}`;
	const flags = [s.degraded ? 'degraded' : '', s.skippedTotal ? `${s.skippedTotal} skipped` : '', ...cp.tags.map((t) => `#${t}`)].filter(Boolean).join(' ');
	return `${cp.id}  ${cp.trigger.padEnd(12)} ${cp.approvalStatus.padEnd(13)} ${cp.createdAt}  ${files.padEnd(14)} ${flags}`.trimEnd();
}

function checkpointDetails(cp: Checkpoint): string {
	const s = cp.fileStats;
	const lines = [
		`${cp.id}${cp.message ? `  ${cp.message}` : ''}`,
		`  trigger    ${cp.trigger}`,
		`  session    ${cp.sessionId ?? '(none)'}`,
		`  parent     ${cp.parentCheckpointId ?? '(none)'}`,
		`  created    ${cp.createdAt}`,
		`  approval   ${cp.approvalStatus}${cp.approvalUser ? ` by ${cp.approvalUser}` : ''}${cp.approvalReason ? ` — ${cp.approvalReason}` : ''} (policy ${cp.approvalPolicy})`,
		`  files      ${s.totalFiles} in total; +${s.added} ~${s.modified} -${s.deleted}${s.linesAdded !== null ? `, +${s.linesAdded}/-${s.linesRemoved} lines` : ''}`,
	];
	if (cp.escalationReasons.length) pushAll(lines, [...cp.escalationReasons.map((r) => `  escalated  ${r}`)]);
	if (s.degraded) lines.push(`  degraded   ${s.degradedReason ?? ''}`);
	if (s.skippedTotal)
		lines.push(`  skipped    ${s.skipped.map((f) => `${f.path} (${f.reason})`).join(', ')}${s.skippedTotal > s.skipped.length ? ', …' : ''}`);
	if (s.nestedRepos.length) lines.push(`  nested     ${s.nestedRepos.join(', ')}`);
	if (cp.tags.length) lines.push(`  tags       ${cp.tags.join(', ')}`);
	for (const a of cp.annotations) lines.push(`  note       ${a.at} ${a.user}: ${a.text}`);
	for (const i of cp.linkedIssues) lines.push(`  issue      ${i.tracker}:${i.id}${i.url ? ` ${i.url}` : ''}`);
	return lines.join('\n');
}

function environmentText(env: EnvironmentDiff): string[] {
	const lines: string[] = [];
	for (const category of environmentCategories) {
		const diff = env[category];
		for (const a of diff.added) lines.push(`  + ${category} ${a.key} ${a.value}`);
		for (const r of diff.removed) lines.push(`  - ${category} ${r.key} ${r.value}`);
		for (const c of diff.changed) lines.push(`  ~ ${category} ${c.key} ${c.from} → ${c.to}`);
	}
	for (const u of env.notCompared) lines.push(`  ? ${u.category}${u.key ? ` ${u.key}` : ''} not compared: ${u.reason}`);
	return lines;
}

function numberOption(values: ParsedValues, name: string, integer: boolean): number | undefined {
	const text = stringOption(values, name);
	if (text === undefined) return undefined;
	const value = Number(text);
	if (!text.trim() || !Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
		throw new UsageError(`--${name} must be ${integer ? 'a whole number' : 'a number'} ≥ 0`);
	}
	return value;
}

export const checkpointCommands: Command[] = [
	{
		path: ['checkpoint', 'policy'],
		usage: 'baton checkpoint policy [--session ID] [--policy auto|review|strict] [--cost USD] [--duration DUR] [--errors N]',
		summary: 'set one session’s approval policy and escalation thresholds (over the workspace defaults)',
		options: {
			session: { type: 'string' },
			policy: { type: 'string' },
			cost: { type: 'string' },
			duration: { type: 'string' },
			errors: { type: 'string' },
		},
		async run(ctx) {
			const policy = stringOption(ctx.values, 'policy');
			if (policy !== undefined && !['auto', 'review', 'strict'].includes(policy)) {
				throw new UsageError('--policy must be auto, review or strict');
			}
			const durationText = stringOption(ctx.values, 'duration');
			let durationMs: number | undefined;
			if (durationText !== undefined) {
				try {
					durationMs = parseDuration(durationText);
				} catch (error) {
					throw new UsageError((error as Error).message);
				}
			}
			const costUsd = numberOption(ctx.values, 'cost', false);
			const errorCount = numberOption(ctx.values, 'errors', true);
			const engine = await ctx.engine();
			const sessionId = stringOption(ctx.values, 'session') ?? (await soleActiveSessionId(engine));
			const thresholds = {
				...(costUsd !== undefined ? { costUsd } : {}),
				...(durationMs !== undefined ? { durationMs } : {}),
				...(errorCount !== undefined ? { errorCount } : {}),
			};
			await engine.checkpoints.configureSession({
				sessionId,
				...(policy ? { policy: policy as 'auto' | 'review' | 'strict' } : {}),
				...(Object.keys(thresholds).length ? { thresholds } : {}),
				actor: ctx.actor,
			});
			return {
				json: { sessionId, policy: policy ?? null, thresholds },
				text: `Session ${sessionId}: ${policy ? `policy ${policy}; ` : ''}${
					Object.entries(thresholds)
						.map(([k, v]) => `${k} ${v}`)
						.join(', ') || 'no threshold changed'
				}`,
			};
		},
	},
	{
		path: ['checkpoint', 'create'],
		usage: 'baton checkpoint create [--trigger T] [--message M] [--tag T]… [--session ID] [--cost USD] [--errors N]',
		summary: 'snapshot the workspace files (untracked work and nested repositories included) as a checkpoint',
		options: {
			trigger: { type: 'string' },
			message: { type: 'string' },
			tag: { type: 'string', multiple: true },
			session: { type: 'string' },
			cost: { type: 'string' },
			errors: { type: 'string' },
		},
		async run(ctx) {
			const costUsd = numberOption(ctx.values, 'cost', false);
			const errorCount = numberOption(ctx.values, 'errors', true);
			const trigger = stringOption(ctx.values, 'trigger');
			// A typo here would be taken as a trigger of its own and wait for review: name the ones there are.
			if (trigger !== undefined && !isKnownTrigger(trigger)) {
				throw new UsageError(`unknown --trigger "${trigger}" (one of ${checkpointTriggers.join(', ')})`);
			}
			const message = stringOption(ctx.values, 'message');
			const sessionId = stringOption(ctx.values, 'session') ?? (await ctx.ownSession());
			const checkpoint = await (
				await ctx.engine()
			).checkpoints.create({
				...(trigger ? { trigger } : {}),
				...(message !== undefined ? { message } : {}),
				...(sessionId ? { sessionId } : {}),
				...(costUsd !== undefined ? { costUsd } : {}),
				...(errorCount !== undefined ? { errorCount } : {}),
				tags: listOption(ctx.values, 'tag'),
				actor: ctx.actor,
			});
			return {
				json: { checkpoint },
				text: `Created ${checkpointLine(checkpoint)}${checkpoint.approvalStatus === 'pending' ? `\n  needs review: ${checkpoint.approvalReason ?? ''}` : ''}`,
			};
		},
	},
	{
		path: ['checkpoint', 'list'],
		usage: 'baton checkpoint list [--session ID]',
		summary: 'checkpoints, newest first',
		options: { session: { type: 'string' } },
		async run(ctx) {
			const sessionId = stringOption(ctx.values, 'session');
			const checkpoints = await (await ctx.engine()).checkpoints.list(sessionId ? { sessionId } : {});
			return { json: { checkpoints }, text: checkpoints.length ? checkpoints.map(checkpointLine).join('\n') : 'No checkpoints.' };
		},
	},
	{
		path: ['checkpoint', 'show'],
		usage: 'baton checkpoint show ID',
		summary: 'one checkpoint: files, approval, escalation, environment',
		positionals: [1, 1],
		async run(ctx) {
			const engine = await ctx.engine();
			const checkpoint = await engine.checkpoints.get(ctx.args[0] as string);
			// Teammates' decisions about a checkpoint of this machine: shown, never applied (docs/sync.md).
			const opinions = await engine.sync.opinions(checkpoint.id);
			const text = [
				checkpointDetails(checkpoint),
				...opinions.map(
					(o) =>
						`  opinion    ${o.status} by ${o.author ?? o.by ?? 'a teammate'} on ${o.machineName ?? o.machine} at ${o.at}${o.note ? ` — ${o.note}` : ''} (a teammate's; not applied)`,
				),
			].join('\n');
			return { json: { checkpoint, ...(opinions.length ? { opinions } : {}) }, text };
		},
	},
	{
		path: ['checkpoint', 'diff'],
		usage: 'baton checkpoint diff A [B]',
		summary: 'files and environment changed from checkpoint A to checkpoint B (or to the working tree)',
		positionals: [1, 2],
		async run(ctx) {
			const comparison = await (await ctx.engine()).checkpoints.diff(ctx.args[0] as string, ctx.args[1] ?? null);
			const files = comparison.files.map((f) => ({ path: f.path, change: f.change, additions: f.additions, deletions: f.deletions }));
			const text = [
				`${comparison.from.id} → ${comparison.to?.id ?? 'working tree'}: ${files.length} file(s)`,
				...comparison.files.map(
					(f) => `  ${f.change[0]?.toUpperCase()} ${f.path}${f.binary ? ' (binary)' : ` (+${f.additions ?? 0} -${f.deletions ?? 0})`}`,
				),
				...(comparison.environment.changed ? ['environment:', ...environmentText(comparison.environment)] : []),
			].join('\n');
			return { json: { files, environment: comparison.environment }, text };
		},
	},
	...(['approve', 'reject'] as const).map((verb): Command => ({
		path: ['checkpoint', verb],
		usage: `baton checkpoint ${verb} ID [--reason R]`,
		summary:
			verb === 'approve'
				? 'approve a checkpoint (recorded with who, when and why)'
				: 'reject a checkpoint (it is then never resumed from without an override)',
		positionals: [1, 1],
		options: { reason: { type: 'string' } },
		async run(ctx) {
			const engine = await ctx.engine();
			const input = { actor: ctx.actor, reason: stringOption(ctx.values, 'reason') ?? null };
			const checkpoint =
				verb === 'approve'
					? await engine.checkpoints.approve(ctx.args[0] as string, input)
					: await engine.checkpoints.reject(ctx.args[0] as string, input);
			return { json: { checkpoint }, text: `${verb === 'approve' ? 'Approved' : 'Rejected'} ${checkpoint.id}` };
		},
	})),
	{
		path: ['checkpoint', 'rollback'],
		usage: 'baton checkpoint rollback ID [--force]',
		summary: 'restore the workspace files of a checkpoint (a safety checkpoint is taken first; --force allows a rejected one)',
		positionals: [1, 1],
		options: { force: { type: 'boolean' } },
		async run(ctx) {
			const result = await (await ctx.engine()).checkpoints.rollback(ctx.args[0] as string, { actor: ctx.actor, force: ctx.values['force'] === true });
			const text = [
				`Rolled back to ${ctx.args[0] as string}: ${result.restored.length} restored, ${result.removed.length} removed.`,
				`Undo with: baton checkpoint rollback ${result.safetyCheckpointId}`,
				...(result.kept.length ? [`Kept (not in the checkpoint, but no snapshot shows they are newer): ${result.kept.join(', ')}`] : []),
				...(result.preserved.length ? [`Moved aside instead of overwritten, into ${result.preservedDir ?? ''}: ${result.preserved.join(', ')}`] : []),
			].join('\n');
			return { json: { safetyCheckpointId: result.safetyCheckpointId, restored: result.restored, removed: result.removed }, text };
		},
	},
	{
		path: ['checkpoint', 'tag'],
		usage: 'baton checkpoint tag ID TAG',
		summary: 'tag a checkpoint (e.g. milestone/v1)',
		positionals: [2, 2],
		async run(ctx) {
			const checkpoint = await (await ctx.engine()).checkpoints.tag(ctx.args[0] as string, ctx.args[1] as string, ctx.actor);
			return { json: { checkpoint }, text: `Tagged ${checkpoint.id}: ${checkpoint.tags.join(', ')}` };
		},
	},
];
