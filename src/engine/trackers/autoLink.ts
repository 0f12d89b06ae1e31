/**
 * Auto-linking (Parhelia's patterns, made stricter): issue references
 * found in a session's name, its git branch and the prompts it receives.
 *
 * - name: `#123`, `owner/repo#123`;
 * - prompt: `fix|close|resolve|address #12` (and their -s/-ed forms, optionally `issue #12`);
 * - branch: a leading number in a path segment (`feature/123-x`, `gh-45`), Linear keys written in
 *   lower case (`alice/eng-12-login`) when the team key is configured;
 * - everywhere: GitHub and Linear issue URLs, Linear keys `ABC-123`, Beads ids `prefix-a1b2`.
 *
 * Only enabled trackers are linked. What must never link: versions (`v1.2-3`), encodings and
 * standards (`UTF-8`, `ISO-8859-1`, `SHA-256`), colours (`#fff`, `color: #123456`), HTML entities
 * (`&#123;`), dates in branch names (`release/2024-05`).
 */
import type { TrackerName } from '../config';
import { githubIssueId, githubUrl, githubUrlPattern, linearUrlPattern, type RefContext } from './issueRef';
import type { IssueRef } from './trackerTypes';

export type TextSource = 'name' | 'branch' | 'prompt';

export interface LinkPatterns extends RefContext {
	enabled: ReadonlySet<TrackerName>;
	/** Linear team keys to accept; null: any key that is not a well-known non-issue token. */
	linearKeys: readonly string[] | null;
	/** Beads id prefixes (`bd`, the project's own). */
	beadsPrefixes: readonly string[];
}

/** Upper-case words followed by a number that are standards, encodings, versions or times, never Linear keys. */
const notLinearKeys = new Set(
	'UTF UCS ISO IEC IEEE ANSI ASCII LATIN CP WIN SHA MD CRC AES RSA DES ECDSA PKCS BASE RFC CVE CWE GHSA PEP JSR JEP FIPS NIST OWASP SOC TLS SSL HTTP HTTPS IPV IP TCP X X86 ARM ES ECMA UTC GMT COVID WCAG GPT USB PCI DDR LTE WPA VP AV AVX SSE EN PR V H'.split(
		' ',
	),
);

const prefixPattern = '(?<![\\w&#/.-])';
const namePattern = new RegExp(
	`${prefixPattern}(?<!(?:colou?r|background|fill|stroke)\\s*[:=]?\\s*)(?:([\\w.-]+)\\/([\\w.-]+))?#([1-9]\\d{0,6})(?![\\w-])`,
	'gi',
);
const promptPattern =
	/(?<![\w])(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?|address(?:e[sd])?)\s*:?\s+(?:(?:the\s+)?issue\s+)?(?:([\w.-]+)\/([\w.-]+))?#([1-9]\d{0,6})(?![\w-])/gi;
const linearKeyPattern = /(?<![\w.-])([A-Z][A-Z0-9]{1,9})-([1-9]\d{0,6})(?![\w]|\.\d|-\d)/g;
const branchSegmentPattern = /^(?:(?:issues?|gh|bug|fix)[-_]?)?([1-9]\d{0,6})(?:[-_].*)?$/i;
const dateSegment = /^\d{4}[-_.]\d{1,2}(?:\D|$)/;

export function findIssueRefs(text: string, source: TextSource, p: LinkPatterns): IssueRef[] {
	const found = new Map<string, IssueRef>();
	const add = (ref: IssueRef): void => {
		const key = `${ref.tracker}:${ref.issueId}`;
		if (p.enabled.has(ref.tracker) && !found.has(key)) {
			found.set(key, ref);
		}
	};
	const github = (owner: string | undefined, repo: string | undefined, number: string, url?: string): void => {
		const issueId = githubIssueId(owner ?? null, repo ?? null, number, p);
		add({ tracker: 'github', issueId, url: url ?? githubUrl(issueId, p) });
	};
	// URLs first, and blanked out, so their path segments are not read again as keys or numbers.
	let rest = text.replace(githubUrlPattern(p), (url, owner: string, repo: string, number: string) => {
		github(owner, repo, number, url);
		return ' ';
	});
	rest = rest.replace(linearUrlPattern, (url, key: string) => {
		add({ tracker: 'linear', issueId: key.toUpperCase(), url });
		return ' ';
	});
	if (source === 'name') {
		for (const m of rest.matchAll(namePattern)) github(m[1], m[2], m[3] ?? '');
	}
	if (source === 'prompt') {
		for (const m of rest.matchAll(promptPattern)) github(m[1], m[2], m[3] ?? '');
	}
	if (source === 'branch') {
		branchRefs(rest, p, github, add);
	}
	for (const m of rest.matchAll(linearKeyPattern)) {
		const key = m[1] ?? '';
		if (p.linearKeys ? p.linearKeys.includes(key) : !notLinearKeys.has(key)) {
			add({ tracker: 'linear', issueId: `${key}-${m[2]}`, url: null });
		}
	}
	for (const id of beadsIds(rest, p.beadsPrefixes)) {
		add({ tracker: 'beads', issueId: id, url: null });
	}
	return [...found.values()];
}

function branchRefs(branch: string, p: LinkPatterns, github: (o: undefined, r: undefined, n: string) => void, add: (ref: IssueRef) => void): void {
	for (const segment of branch.split('/')) {
		const number = branchSegmentPattern.exec(segment)?.[1];
		if (number && !dateSegment.test(segment)) {
			github(undefined, undefined, number);
		}
	}
	// Linear's own branch names are lower case (`alice/eng-123-fix-login`): accepted for configured teams only.
	for (const key of p.linearKeys ?? []) {
		const pattern = new RegExp(`(?<![\\w.-])${key}-([1-9]\\d{0,6})(?![\\w]|\\.\\d)`, 'gi');
		for (const m of branch.matchAll(pattern)) {
			add({ tracker: 'linear', issueId: `${key}-${m[1]}`, url: null });
		}
	}
}

/** `prefix-a1b2`, `prefix-42`, children `prefix-a1b2.1`: a digit, or at least four hex letters, after a known prefix. */
function beadsIds(text: string, prefixes: readonly string[]): string[] {
	const out: string[] = [];
	for (const prefix of prefixes) {
		const pattern = new RegExp(`(?<![\\w.-])${prefix}-([0-9a-z]{1,8}(?:\\.\\d{1,3}){0,3})(?![\\w])`, 'g');
		for (const m of text.matchAll(pattern)) {
			const hash = (m[1] ?? '').split('.')[0] ?? '';
			if (/\d/.test(hash) || /^[0-9a-f]{4,8}$/.test(hash)) {
				out.push(`${prefix}-${m[1]}`);
			}
		}
	}
	return out;
}
