/**
 * Removes credentials from transcript excerpts before they are archived: provider API keys, tokens,
 * cloud access keys, bearer headers, private key blocks and `password=`/`token:` style assignments.
 * Over-redacting a harmless string is acceptable; archiving a live key is not.
 */
interface Rule {
	name: string;
	pattern: RegExp;
	/** The replacement; `$1`… refer to groups the rule keeps (an assignment's key). */
	replace: string;
	/**
	 * A cheap test that must hold for the pattern to match at all: most excerpts hold no secret, and
	 * a substring search is far cheaper than running every pattern over every text.
	 */
	hint: (text: string, lower: () => string) => boolean;
}

const assignmentStems = ['pass', 'pwd', 'secret', 'token', 'key', 'credential'];

const rules: Rule[] = [
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
	{ name: 'bearer', pattern: /\b(Bearer)\s+[A-Za-z0-9._~+/=-]{12,}/gi, replace: '$1 [REDACTED]', hint: (_t, lower) => lower().includes('bearer') },
	{
		name: 'url-credentials',
		pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+):[^\s@/]+@/gi,
		replace: '$1:[REDACTED]@',
		hint: (t) => t.includes('://') && t.includes('@'),
	},
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
const anyHint = /sk-|gh[pousr]_|github_pat_|xox|AKIA|ASIA|AIza|eyJ|PRIVATE KEY|:\/\/|bearer|pass|pwd|secret|token|key|credential/i;

export function redactSecrets(text: string): string {
	if (!anyHint.test(text)) {
		return text;
	}
	let out = text;
	let lowered: string | undefined;
	const lower = (): string => (lowered ??= out.toLowerCase());
	for (const rule of rules) {
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
