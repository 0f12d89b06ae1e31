/**
 * Whether a file's content holds a credential, before it is written for a remote (sync's shared
 * checkpoint trees, sharedTrees.ts). A file is never altered: one that matches is left out whole and
 * named with the rule and the line, so the person can fix it; over-matching a harmless file costs
 * one file a teammate does not see, missing a live key costs the key.
 *
 * The rules are the transcript archive's credential-shaped ones (redactSecrets.ts: provider keys,
 * tokens, cloud keys, JWTs, private-key blocks, credentials in URLs), plus `.env`-style assignments
 * of a secret-named variable to a literal. The archive's free-form `token = …` rule is not used:
 * source code assigns variables named `token` and `password` on every page.
 */
import { secretRules } from './redactSecrets';

const credentialShaped = new Set([
	'private-key',
	'anthropic-key',
	'api-key',
	'github-token',
	'slack-token',
	'aws-key',
	'google-key',
	'jwt',
	'url-credentials',
	'url-token',
]);

/**
 * `NAME=value` on a line of its own (optionally `export `), NAME naming a secret, the value a literal
 * of 8 characters or more (not `${…}`, `$VAR`, `<placeholder>`, `changeme`, `your_key_here`).
 */
const dotenvAssignment =
	/^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?|DSN|DATABASE_URL)[A-Za-z0-9_]*)[ \t]*=[ \t]*(["']?)(?![$<])([^\s"'#]{8,})\2[ \t]*(?:#.*)?$/gim;
/** Values an example file uses in place of a secret. */
const placeholder = /^(?:change_?me|replace_?me|example|placeholder|secret|password|dummy|redacted|your[_-].*|x+|\*+|\.+)$/i;

interface SecretFinding {
	/** The rule that matched (`slack-token`, `private-key`, `env-assignment`…). */
	rule: string;
	/** 1-based line of the first match. */
	line: number;
}

/** The first credential in `text`, or null. */
export function findSecret(text: string): SecretFinding | null {
	let first: SecretFinding | null = null;
	let lowered: string | undefined;
	const lower = (): string => (lowered ??= text.toLowerCase());
	const consider = (rule: string, index: number): void => {
		const line = lineAt(text, index);
		if (!first || line < first.line) {
			first = { rule, line };
		}
	};
	for (const rule of secretRules) {
		if (credentialShaped.has(rule.name) && rule.hint(text, lower)) {
			// A fresh expression: the shared ones are global (`g`) and keep their lastIndex.
			const match = new RegExp(rule.pattern.source, rule.pattern.flags.replace('g', '')).exec(text);
			if (match) {
				consider(rule.name, match.index);
			}
		}
	}
	for (const assignment of text.matchAll(dotenvAssignment)) {
		if (!placeholder.test(assignment[3] ?? '')) {
			consider('env-assignment', assignment.index + (assignment[0].length - assignment[0].trimStart().length));
			break;
		}
	}
	return first;
}

function lineAt(text: string, index: number): number {
	let line = 1;
	for (let at = text.indexOf('\n'); at >= 0 && at < index; at = text.indexOf('\n', at + 1)) {
		line++;
	}
	return line;
}
