/**
 * Email over SMTP with nodemailer: host, port, implicit TLS (`secure`) or STARTTLS (offered, or
 * required with `requireTls`), the user from configuration and the password from the secrets
 * (`smtp.password`). Every phase (connect, greeting, socket idle) and the whole send are bounded by
 * the channel timeout. nodemailer is loaded only when a mail goes out: agent hooks load the CLI
 * bundle and must start fast.
 */
import type { SecretName } from '../../secrets';
import { plainText, type NotificationMessage } from '../notificationMessage';
import { missingSecretText, secretFor, type ChannelEnv } from './channelEnv';
import { channelError } from './httpPost';

function emailSubject(m: NotificationMessage): string {
	return `[Baton ${m.priority}] ${m.title}`.replace(/[\r\n]+/g, ' ').slice(0, 200);
}

function emailText(m: NotificationMessage): string {
	return `${plainText(m)}\n\n— Baton, workspace ${m.workspace}. Notification settings: baton.notifications.* in VS Code, or "notifications" in .baton/config.json.\n`;
}

/** What is missing before a mail can be sent (empty when ready). */
export function emailMissing(env: ChannelEnv, hasPassword: boolean): string[] {
	const smtp = env.config.smtp;
	return [
		...(smtp.host ? [] : ['notifications.smtp.host']),
		...(smtp.from ? [] : ['notifications.smtp.from']),
		...(smtp.to.length > 0 ? [] : ['notifications.smtp.to']),
		...(smtp.user && !hasPassword ? ['smtp.password'] : []),
	];
}

export async function sendEmail(m: NotificationMessage, env: ChannelEnv): Promise<void> {
	const smtp = env.config.smtp;
	const used = new Map<SecretName, string>();
	const password = smtp.user ? await secretFor(env, 'smtp.password', used) : undefined;
	const missing = emailMissing(env, password !== undefined);
	if (missing.length > 0) {
		throw channelError(
			{ channel: 'email', secrets: used },
			missing.includes('smtp.password') ? missingSecretText('smtp.password') : `not configured: set ${missing.join(', ')}`,
		);
	}
	const timeoutMs = env.timeoutMs();
	const { createTransport } = await import('nodemailer');
	const transport = createTransport({
		host: smtp.host,
		port: smtp.port,
		secure: smtp.secure,
		requireTLS: smtp.requireTls,
		...(smtp.user && password ? { auth: { user: smtp.user, pass: password } } : {}),
		tls: { rejectUnauthorized: !smtp.allowInvalidCertificate },
		connectionTimeout: timeoutMs,
		greetingTimeout: timeoutMs,
		socketTimeout: timeoutMs,
		disableFileAccess: true,
		disableUrlAccess: true,
	});
	let timer: NodeJS.Timeout | undefined;
	try {
		await Promise.race([
			transport.sendMail({ from: smtp.from, to: smtp.to, subject: emailSubject(m), text: emailText(m) }),
			new Promise((_, reject) => {
				timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
			}),
		]);
	} catch (error) {
		const e = error as Error & { code?: string; responseCode?: number };
		const code = [e.code, e.responseCode].filter(Boolean).join(' ');
		throw channelError({ channel: 'email', secrets: used }, `${code ? `${code}: ` : ''}${e.message}`);
	} finally {
		clearTimeout(timer);
		transport.close();
	}
}
