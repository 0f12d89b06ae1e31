/**
 * Secrets (tracker tokens, webhook URLs, SMTP passwords) never live in files Baton writes: not in
 * `.baton/config.json`, the database, exports or logs. The engine asks its host through this port:
 * the editor's backend asks the extension, which reads VS Code's SecretStorage; the CLI reads
 * environment variables. Every secret Baton knows is named here once, with its environment variable.
 */
export const secretNames = {
	'github.token': { env: 'BATON_GITHUB_TOKEN', label: 'GitHub token (issues: read and write)' },
	'linear.apiKey': { env: 'BATON_LINEAR_API_KEY', label: 'Linear API key' },
	'tracker.webhook.url': { env: 'BATON_TRACKER_WEBHOOK_URL', label: 'Issue webhook URL' },
	'tracker.webhook.token': { env: 'BATON_TRACKER_WEBHOOK_TOKEN', label: 'Issue webhook bearer token' },
	'slack.webhookUrl': { env: 'BATON_SLACK_WEBHOOK_URL', label: 'Slack incoming-webhook URL' },
	'discord.webhookUrl': { env: 'BATON_DISCORD_WEBHOOK_URL', label: 'Discord webhook URL' },
	'ntfy.token': { env: 'BATON_NTFY_TOKEN', label: 'ntfy access token' },
	'smtp.password': { env: 'BATON_SMTP_PASSWORD', label: 'SMTP password' },
	'webhook.url': { env: 'BATON_WEBHOOK_URL', label: 'Notification webhook URL' },
	'webhook.token': { env: 'BATON_WEBHOOK_TOKEN', label: 'Notification webhook bearer token' },
	'twilio.accountSid': { env: 'BATON_TWILIO_ACCOUNT_SID', label: 'Twilio account SID (SMS)' },
	'twilio.authToken': { env: 'BATON_TWILIO_AUTH_TOKEN', label: 'Twilio auth token (SMS)' },
	'twilio.apiKeySid': { env: 'BATON_TWILIO_API_KEY_SID', label: 'Twilio API key SID (SMS, instead of the auth token)' },
	'twilio.apiKeySecret': { env: 'BATON_TWILIO_API_KEY_SECRET', label: 'Twilio API key secret (SMS, instead of the auth token)' },
} as const satisfies Record<string, { env: string; label: string }>;

export type SecretName = keyof typeof secretNames;

export interface SecretSource {
	/** The secret's value, or undefined when the host has none. Never logged by callers. */
	get(name: SecretName): Promise<string | undefined>;
}

export const noSecrets: SecretSource = { get: async () => undefined };

/** The CLI's source: `BATON_…` environment variables (empty means unset). */
export function envSecretSource(env: NodeJS.ProcessEnv): SecretSource {
	return { get: async (name) => env[secretNames[name].env] || undefined };
}

/**
 * Replaces every known secret value in `text` with `[secret:<name>]`: the last guard before a
 * message reaches a log line or an error shown to a person.
 */
export function maskSecrets(text: string, values: ReadonlyMap<SecretName, string>): string {
	let out = text;
	for (const [name, value] of values) {
		if (value.length >= 4) {
			out = out.split(value).join(`[secret:${name}]`);
		}
	}
	return out;
}

const secretLikeKey = /^(password|passwd|token|apikey|api_key|secret|webhookurl|authtoken|accountsid|apikeysid|apikeysecret)$/i;

/**
 * Keys in a block of configuration that hold (or look like they hold) a secret: a path ending in one
 * of `secretNames` (`notifications.smtp.password`), or a key named like a password or token.
 * Configuration is a file in the workspace and settings sync: a secret there is refused, not read.
 */
export function secretKeysIn(input: unknown, prefix: string[] = []): { path: string; name: string; env: string }[] {
	if (!input || typeof input !== 'object' || Array.isArray(input)) {
		return [];
	}
	const found: { path: string; name: string; env: string }[] = [];
	for (const [key, value] of Object.entries(input)) {
		const keys = [...prefix, key];
		const joined = keys.join('.');
		const named = (Object.keys(secretNames) as SecretName[]).find((name) => joined === name || joined.endsWith(`.${name}`));
		if (named) {
			found.push({ path: joined, name: named, env: secretNames[named].env });
		} else if (secretLikeKey.test(key)) {
			found.push({ path: joined, name: 'the secret', env: 'the matching BATON_… variable' });
		} else {
			for (const inner of secretKeysIn(value, keys)) found.push(inner);
		}
	}
	return found;
}
