/**
 * Removes credentials from transcript excerpts before they are archived: provider API keys, tokens,
 * cloud access keys, authorization headers, private key blocks, `password=`/`token:` style assignments
 * and the credentials of command lines (`curl -u user:pass`, `mysql -pSECRET`, `docker login -p …`).
 * Over-redacting a harmless string is acceptable; archiving a live key is not.
 */
import { commandLineRules, type Rule } from './redactCommandLines';

const assignmentStems = ['pass', 'pwd', 'secret', 'token', 'key', 'credential'];

/** Every rule, in the order they run (secretScan.ts picks the credential-shaped ones to scan a file). */
export const secretRules: readonly Rule[] = [
	{
		name: 'private-key',
		pattern: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g,
		replace: '[REDACTED:private-key]',
		hint: (t) => t.includes('PRIVATE KEY-----'),
	},
	{ name: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{8,}/g, replace: '[REDACTED:anthropic-key]', hint: (t) => t.includes('sk-ant-') },
	{ name: 'api-key', pattern: /\bsk-(?:proj-|live-|test-)?[A-Za-z0-9_-]{16,}/g, replace: '[REDACTED:api-key]', hint: (t) => t.includes('sk-') },
	{
		name: 'github-token',
		pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g,
		replace: '[REDACTED:github-token]',
		hint: (t) => t.includes('github_pat_') || /gh[pousr]_/.test(t),
	},
	{ name: 'slack-token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{8,}/g, replace: '[REDACTED:slack-token]', hint: (t) => t.includes('xox') },
	{ name: 'aws-key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, replace: '[REDACTED:aws-key]', hint: (t) => t.includes('AKIA') || t.includes('ASIA') },
	{ name: 'google-key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g, replace: '[REDACTED:google-key]', hint: (t) => t.includes('AIza') },
	{ name: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, replace: '[REDACTED:jwt]', hint: (t) => t.includes('eyJ') },
	{
		// `Authorization: Basic …`, `-H 'Authorization: token …'`, `Proxy-Authorization: …`: the scheme stays.
		name: 'authorization-header',
		pattern:
			/\b((?:Proxy-)?Authorization["']?\s*[:=]\s*["']?(?![A-Za-z0-9-]*\s*\[REDACTED)(?:(?:Basic|Bearer|Token|Digest|Negotiate|NTLM|OAuth|SSWS|Splunk|ApiKey|AWS4-HMAC-SHA256)\s+)?)[^\s'",]+/gi,
		replace: '$1[REDACTED]',
		hint: (_t, lower) => lower().includes('authorization'),
	},
	{ name: 'bearer', pattern: /\b(Bearer)\s+[A-Za-z0-9._~+/=-]{12,}/gi, replace: '$1 [REDACTED]', hint: (_t, lower) => lower().includes('bearer') },
	{
		name: 'url-credentials',
		pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+):[^\s@/]+@/gi,
		replace: '$1:[REDACTED]@',
		hint: (t) => t.includes('://') && t.includes('@'),
	},
	{
		// `https://<token>@github.com/…`: a long user part with digits is a token, not a login name.
		name: 'url-token',
		pattern: /\b((?:https?|git\+https?|ssh|ftp):\/\/)(?=[A-Za-z0-9_.~-]*\d)(?=[A-Za-z0-9_.~-]*[A-Za-z])[A-Za-z0-9_.~-]{16,}@/gi,
		replace: '$1[REDACTED]@',
		hint: (t) => t.includes('://') && t.includes('@'),
	},
	...commandLineRules,
	{
		name: 'assignment',
		// `password=…`, `API_KEY: "…"`, `"token": "…"`, `--password …`; the key stays, the value goes.
		pattern:
			/((?:["']?)\b[A-Za-z0-9_.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|auth[_-]?key|private[_-]?key|client[_-]?secret|credentials?)["']?\s*(?:[:=]|\s(?=["']))\s*)(?!\[REDACTED)(?:"[^"\n]*"|'[^'\n]*'|[^\s,;'"}\]]+)/gi,
		replace: '$1[REDACTED]',
		hint: (_t, lower) => assignmentStems.some((stem) => lower().includes(stem)),
	},
];

/** Something every rule needs to find: one scan that lets the common, secret-free text through untouched. */
const anyHint =
	/sk-|gh[pousr]_|github_pat_|xox|AKIA|ASIA|AIza|eyJ|PRIVATE KEY|:\/\/|bearer|authorization|pass|pwd|secret|token|key|credential|_auth|-u|--user|-p|-a\s/i;

export function redactSecrets(text: string): string {
	if (!anyHint.test(text)) {
		return text;
	}
	let out = text;
	let lowered: string | undefined;
	const lower = (): string => (lowered ??= out.toLowerCase());
	for (const rule of secretRules) {
		if (rule.hint(out, lower)) {
			const replaced = out.replace(rule.pattern, rule.replace);
			if (replaced !== out) {
				out = replaced;
				lowered = undefined;
			}
		}
	}
	return out;
}

/** Whether any rule matches: tests and the archive's statistics use it. */
export function containsSecret(text: string): boolean {
	return redactSecrets(text) !== text;
}
