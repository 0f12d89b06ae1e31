/**
 * Workspace configuration: the legacy session limits (their meaning kept from CLEO's sessions.json)
 * and Baton's ages. Hosts pass overrides (VS Code settings); the CLI reads `.baton/config.json`.
 */
import fs from 'node:fs';
import { z } from 'zod';
import { secretKeysIn } from './secrets';
import { BatonError } from './errors';

const durationPattern = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?$/;
const unitMs: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `90s`, `30m`, `4h`, `1d`, `2w`, or a number of milliseconds. */
export function parseDuration(text: string): number {
	const match = durationPattern.exec(text.trim());
	if (!match) {
		throw new BatonError('invalidInput', `invalid duration "${text}" (use e.g. 0, 90s, 30m, 4h, 1d, 2w)`);
	}
	return Math.round(Number(match[1]) * (unitMs[match[2] ?? 'ms'] ?? 1));
}

const duration = z.union([
	z.number().nonnegative(),
	z.string().transform((s, ctx) => {
		try {
			return parseDuration(s);
		} catch (error) {
			ctx.addIssue({ code: 'custom', message: (error as Error).message });
			return z.NEVER;
		}
	}),
]);

/** Folders Baton never snapshots (gitignore syntax, on top of the workspace's own .gitignore files). */
export const defaultCheckpointExcludes = [
	'node_modules/',
	'dist/',
	'out/',
	'build/',
	'target/',
	'.next/',
	'__pycache__/',
	'.venv/',
	'venv/',
	'.mypy_cache/',
	'.pytest_cache/',
	'.gradle/',
	'.turbo/',
	'coverage/',
];

/** Checkpoints (docs/architecture.md §1 and §5): approval policy, escalation thresholds and the snapshot limits. */
const checkpointConfigSchema = z
	.object({
		policy: z.enum(['auto', 'review', 'strict']).default('auto'),
		/** A session at or over any of these makes its checkpoints pending, whatever the policy says. */
		escalation: z
			.object({
				costUsd: z.number().nonnegative().default(5),
				duration: duration.default(4 * 3_600_000),
				errorCount: z.number().int().nonnegative().default(3),
			})
			.strict()
			.prefault({}),
		/** How often the host's timer may take a `periodic` checkpoint while a session is active and files changed. */
		periodicInterval: duration.default(10 * 60_000),
		/** Files larger than this (bytes) are left out of snapshots and listed on the checkpoint. */
		maxFileSize: z
			.number()
			.int()
			.positive()
			.default(5 * 1024 * 1024),
		/** A snapshot that takes longer is recorded as degraded (partial) and resumed by the next one. */
		timeBudget: duration.default(30_000),
		excludes: z.array(z.string().min(1)).default(defaultCheckpointExcludes),
		/** The whole environment capture's budget. */
		environmentTimeout: duration.default(1_000),
		/** Take a `complete` checkpoint when a session ends (once checkpoints are in use in the workspace). */
		completeOnEnd: z.boolean().default(true),
		/** A session's replay trees are pruned once it ended longer ago than this (its steps' records stay; docs/replay.md). */
		timelineKeep: duration.default(30 * 86_400_000),
		/** The replay trees of this many most recently active sessions are kept whatever their age. */
		timelineKeepSessions: z.number().int().nonnegative().default(20),
	})
	.strict();

/** The issue trackers Baton can link sessions to. */
export const trackerNames = ['github', 'linear', 'beads', 'webhook'] as const;
export type TrackerName = (typeof trackerNames)[number];

const httpUrl = z.url({ protocol: /^https?$/ });

/**
 * Issue trackers: non-secret settings only. Tokens and the webhook URL are secrets (`github.token`,
 * `linear.apiKey`, `tracker.webhook.url`, `tracker.webhook.token`; see secrets.ts).
 */
const trackerConfigSchema = z
	.object({
		/** Trackers Baton links to and writes to (comments, status, new issues). None by default. */
		enabled: z.array(z.enum(trackerNames)).default([]),
		/** Link sessions to issues named in their name, branch and prompts. */
		autoLink: z.boolean().default(true),
		/** Checkpoint triggers that post a comment on the session's linked issues. */
		commentOn: z.array(z.string().min(1)).default(['manual', 'complete', 'error']),
		/** Opt-in: close the linked issues when a `complete` checkpoint is approved (or auto-approved). */
		closeOnApprovedComplete: z.boolean().default(false),
		/** Opt-in: open an issue when a checkpoint with trigger `error` is taken. */
		openOnError: z.boolean().default(false),
		/** Opt-in: open an issue when a checkpoint escalates (cost, duration, errors). */
		openOnEscalation: z.boolean().default(false),
		/** Where opened issues go; defaults to the first enabled tracker. */
		openIn: z.enum(trackerNames).optional(),
		/** Each HTTP request or `bd` call. */
		timeout: duration.default(10_000),
		github: z
			.object({
				/** Default: parsed from the workspace's `origin` remote. */
				owner: z
					.string()
					.regex(/^[\w.-]+$/)
					.optional(),
				repo: z
					.string()
					.regex(/^[\w.-]+$/)
					.optional(),
				/** GitHub Enterprise: `https://HOST/api/v3`. */
				apiUrl: httpUrl.default('https://api.github.com'),
				/** Issue links in names and prompts are recognised on this host too. */
				webUrl: httpUrl.default('https://github.com'),
			})
			.strict()
			.prefault({}),
		linear: z
			.object({
				/** Team key (`ABC`): auto-linking then only takes `ABC-123`, and new issues go to this team. */
				teamKey: z
					.string()
					.regex(/^[A-Z][A-Z0-9]{0,9}$/)
					.optional(),
				teamId: z.string().min(1).optional(),
				apiUrl: httpUrl.default('https://api.linear.app/graphql'),
				/** Workflow state names to use; default: the team's first `completed` / `unstarted` state. */
				closedState: z.string().min(1).optional(),
				openState: z.string().min(1).optional(),
			})
			.strict()
			.prefault({}),
		beads: z
			.object({
				/** Workspace-relative (or absolute) path of the issues file. */
				path: z.string().min(1).default('.beads/issues.jsonl'),
				/** Id prefix of new issues and of auto-linked ids; default: the file's own, else `bd`. */
				prefix: z
					.string()
					.regex(/^[a-z][a-z0-9_]{0,19}$/)
					.optional(),
				/** `auto`: use the `bd` CLI when it is on PATH, else the file. */
				cli: z.enum(['auto', 'never']).default('auto'),
			})
			.strict()
			.prefault({}),
	})
	.strict();
export type TrackerConfig = z.infer<typeof trackerConfigSchema>;

export const notificationChannels = ['editor', 'slack', 'discord', 'ntfy', 'email', 'webhook', 'sms'] as const;
export type NotificationChannel = (typeof notificationChannels)[number];
export const notificationEvents = [
	'session.started',
	'session.completed',
	'session.error',
	'checkpoint.needs_review',
	'checkpoint.approved',
	'checkpoint.rejected',
	'escalation.triggered',
	'budget.threshold_reached',
	'budget.exceeded',
] as const;
export type NotificationEvent = (typeof notificationEvents)[number];
const priority = z.enum(['info', 'notice', 'warning', 'critical']);
const channelList = z.array(z.enum(notificationChannels));
/** A phone number as Twilio takes it: E.164, `+`, the country code and up to 15 digits in all. */
export const e164Pattern = /^\+[1-9]\d{1,14}$/;
const phoneNumber = z.string().regex(e164Pattern, 'a phone number in E.164 form: +, the country code and the number, digits only (e.g. +14155550123)');
/** Twilio's REST API, or a server on this machine that speaks it (tests); the credentials travel to it, so never plain http elsewhere. */
const twilioServer = z.url({ protocol: /^https?$/ }).refine((url) => {
	const parsed = new URL(url);
	return parsed.protocol === 'https:' || ['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname);
}, 'Twilio is reached over https:// (http:// only for a server on this machine)');

/**
 * Push notifications: which channels are on, where each priority goes, and the limits that keep a
 * burst of events from becoming an alert storm. Secrets (webhook URLs, tokens, the SMTP password)
 * are never here: they come from VS Code's SecretStorage or `BATON_*` environment variables.
 */
export const notificationConfigSchema = z
	.object({
		enabled: z.boolean().default(true),
		/** Channels that may receive notifications; a priority's route is filtered by this list. */
		channels: channelList.default(['editor']),
		/** Per priority, the channels it goes to (default: info nowhere, notice the editor, warning and critical every enabled channel). */
		routing: z
			.object({ info: channelList.optional(), notice: channelList.optional(), warning: channelList.optional(), critical: channelList.optional() })
			.strict()
			.prefault({}),
		/** Per event, a priority other than the default one. */
		priorities: z.partialRecord(z.enum(notificationEvents), priority).default({}),
		/** The same notification (same event and subject) on a channel within this window is suppressed. */
		dedupWindow: duration.default(30 * 60_000),
		/** At most this many per channel per minute; more are suppressed (critical ones never are). */
		rateLimit: z
			.object({ perMinute: z.number().int().min(1).max(1000).default(10) })
			.strict()
			.prefault({}),
		/** A session budget in US dollars (0: none), and the fraction of it that warns first. */
		budget: z
			.object({ sessionUsd: z.number().nonnegative().default(5), threshold: z.number().gt(0).lt(1).default(0.8) })
			.strict()
			.prefault({}),
		/** Every request to a channel gives up after this long. */
		timeout: duration.default(10_000),
		ntfy: z
			.object({
				server: z.url({ protocol: /^https?$/ }).default('https://ntfy.sh'),
				topic: z
					.string()
					.regex(/^[-_A-Za-z0-9]{1,64}$/, 'a topic is 1–64 letters, digits, - or _')
					.optional(),
			})
			.strict()
			.prefault({}),
		smtp: z
			.object({
				host: z.string().min(1).optional(),
				port: z.number().int().min(1).max(65535).default(587),
				/** true: TLS from the first byte (port 465); false: STARTTLS when the server offers it. */
				secure: z.boolean().default(false),
				/** Refuse to send unless STARTTLS succeeds. */
				requireTls: z.boolean().default(false),
				/** Accept a server certificate that does not verify (a self-signed relay); off by default. */
				allowInvalidCertificate: z.boolean().default(false),
				user: z.string().min(1).optional(),
				from: z.string().min(3).optional(),
				to: z.array(z.string().min(3)).default([]),
			})
			.strict()
			.prefault({}),
		/** SMS through Twilio's Messages API; the account's credentials are secrets (`twilio.*`). */
		sms: z
			.object({
				/** Recipients, one message each. */
				to: z.array(phoneNumber).default([]),
				/** The sending Twilio number; or `messagingServiceSid` (which wins when both are set). */
				from: phoneNumber.optional(),
				messagingServiceSid: z
					.string()
					.regex(/^MG[0-9a-fA-F]{32}$/, 'a Messaging Service SID: MG and 32 hexadecimal digits')
					.optional(),
				/** Texts cost money and wake people: only this priority and above, unless a route names `sms` itself. */
				minPriority: priority.default('critical'),
				/** The longest text sent (Twilio takes at most 1600 characters); longer ones end with an ellipsis. */
				maxLength: z.number().int().min(70).max(1600).default(320),
				server: twilioServer.default('https://api.twilio.com'),
			})
			.strict()
			.prefault({}),
	})
	.strict();
export type NotificationConfig = z.infer<typeof notificationConfigSchema>;
export type NotificationConfigInput = z.input<typeof notificationConfigSchema>;

/** `overrides` on top of `base`, the nested blocks (routing, smtp, …) key by key. */
export function mergeNotifications(base: NotificationConfigInput, overrides: NotificationConfigInput): NotificationConfigInput {
	const merged: Record<string, unknown> = { ...base, ...overrides };
	for (const key of ['routing', 'priorities', 'rateLimit', 'budget', 'ntfy', 'smtp', 'sms'] as const) {
		if (base[key] || overrides[key]) {
			merged[key] = { ...base[key], ...overrides[key] };
		}
	}
	return merged as NotificationConfigInput;
}

const batonConfigSchema = z.object({
	maxConcurrentSessions: z.number().int().min(1).max(100).default(5),
	maxActiveTasksPerScope: z.number().int().min(1).max(100).default(1),
	scopeValidation: z.enum(['strict', 'warn', 'none']).default('strict'),
	allowNestedScopes: z.boolean().default(true),
	allowScopeOverlap: z.boolean().default(false),
	/** Active sessions without activity for this long become orphaned (gc). */
	orphanAfter: duration.default(86_400_000),
	/** Active or orphaned sessions without activity for this long are ended (cleanup). */
	autoEndAfter: duration.default(7 * 86_400_000),
	/** How many next tasks a briefing lists. */
	briefingNextTasks: z.number().int().min(1).max(50).default(5),
	/** How many project-memory facts a briefing lists (the rest are counted, never dropped silently). */
	briefingMemory: z.number().int().min(0).max(100).default(8),
	/** A fact nobody confirmed for this long is marked stale (it stays visible with its mark). */
	memoryStaleAfter: duration.default(30 * 86_400_000),
	checkpoints: checkpointConfigSchema.prefault({}),
	trackers: trackerConfigSchema.prefault({}),
	notifications: notificationConfigSchema.prefault({}),
});
export type BatonConfig = z.infer<typeof batonConfigSchema>;
export type BatonConfigInput = z.input<typeof batonConfigSchema>;

export function resolveConfig(input: unknown, source: string): BatonConfig {
	const blocks = input && typeof input === 'object' ? (input as { notifications?: unknown; trackers?: unknown }) : {};
	const secret = [...secretKeysIn(blocks.notifications, ['notifications']), ...secretKeysIn(blocks.trackers, ['trackers'])][0];
	if (secret) {
		throw new BatonError(
			'configInvalid',
			`${source}: ${secret.path}: secrets never go in configuration or settings; store ${secret.name} with “Baton: Store Secret…” in VS Code, or set ${secret.env} for the CLI`,
		);
	}
	const parsed = batonConfigSchema.strict().safeParse(input ?? {});
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
		throw new BatonError('configInvalid', `${source}: ${where}${issue?.message ?? 'invalid configuration'}`);
	}
	return parsed.data;
}

/** Reads `.baton/config.json` when present. A malformed file is an error, never silently ignored. */
export function readConfigFile(file: string): BatonConfigInput {
	let text: string;
	try {
		text = fs.readFileSync(file, 'utf8');
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
			return {};
		}
		throw new BatonError('configInvalid', `${file}: ${(error as Error).message}`);
	}
	try {
		return JSON.parse(text) as BatonConfigInput;
	} catch (error) {
		throw new BatonError('configInvalid', `${file} is not valid JSON: ${(error as Error).message}`);
	}
}
