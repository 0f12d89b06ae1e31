/**
 * MCP servers declared in the workspace (`.mcp.json` for Claude Code, `.vscode/mcp.json` for VS Code,
 * `.cursor/mcp.json`): names, commands, arguments and URLs. Secrets never reach the database:
 * environment and header values are dropped (only their names are kept), and arguments or URL
 * parts that look like credentials are replaced by `<redacted>`.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

interface McpServerInfo {
	source: string;
	type: string | null;
	command: string | null;
	args: string[];
	url: string | null;
	envKeys: string[];
	configHash: string;
}

const sources: { file: string; key: string }[] = [
	{ file: '.mcp.json', key: 'mcpServers' },
	{ file: '.vscode/mcp.json', key: 'servers' },
	{ file: '.cursor/mcp.json', key: 'mcpServers' },
];

const redacted = '<redacted>';
const secretFlag = /^--?[\w-]*(token|key|secret|password|passwd|pwd|auth|credential|bearer)[\w-]*$/i;
const secretAssignment = /^(--?[\w-]*(?:token|key|secret|password|passwd|pwd|auth|credential|bearer)[\w-]*=)(.+)$/i;
const secretShapes = [
	/^(sk|pk|rk)-[A-Za-z0-9_-]{8,}/, // OpenAI/Anthropic/Stripe-style keys
	/^(ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{8,}/,
	/^xox[abprs]-[A-Za-z0-9-]{8,}/,
	/^glpat-[A-Za-z0-9_-]{8,}/,
	/^AKIA[0-9A-Z]{12,}/,
	/^AIza[0-9A-Za-z_-]{20,}/,
	/^eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+/, // JWT
	/^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9+/_=-]{32,}$/, // long opaque token
];

export function readMcpServers(root: string): { servers: Record<string, McpServerInfo>; problems: string[] } {
	const servers: Record<string, McpServerInfo> = {};
	const problems: string[] = [];
	for (const source of sources) {
		let text: string;
		try {
			text = fs.readFileSync(path.join(root, source.file), 'utf8');
		} catch {
			continue;
		}
		let parsed: unknown;
		try {
			parsed = JSON.parse(stripJsonComments(text));
		} catch (error) {
			problems.push(`mcp ${source.file}: not valid JSON (${(error as Error).message})`);
			continue;
		}
		const table = (parsed as Record<string, unknown> | null)?.[source.key];
		if (!table || typeof table !== 'object') {
			continue;
		}
		for (const [name, raw] of Object.entries(table as Record<string, unknown>)) {
			if (raw && typeof raw === 'object') {
				servers[`${source.file}:${name}`] = describe(source.file, raw as Record<string, unknown>);
			}
		}
	}
	return { servers, problems };
}

function describe(source: string, raw: Record<string, unknown>): McpServerInfo {
	const str = (v: unknown) => (typeof v === 'string' ? v : null);
	const args = Array.isArray(raw['args']) ? raw['args'].map(String) : [];
	const info = {
		source,
		type: str(raw['type']) ?? str(raw['transport']),
		command: str(raw['command']),
		args: redactArgs(args),
		url: redactUrl(str(raw['url']) ?? str(raw['serverUrl'])),
		envKeys: Object.keys(isRecord(raw['env']) ? raw['env'] : {}).sort(),
	};
	// Header names count too (an added Authorization header is a change), never their values.
	const headerKeys = Object.keys(isRecord(raw['headers']) ? raw['headers'] : {}).sort();
	const configHash = `sha256:${createHash('sha256')
		.update(JSON.stringify({ ...info, headerKeys }))
		.digest('hex')}`;
	return { ...info, configHash };
}

export function redactArgs(args: readonly string[]): string[] {
	const out: string[] = [];
	for (let i = 0; i < args.length; i++) {
		const arg = args[i] as string;
		const assignment = secretAssignment.exec(arg);
		if (assignment) {
			out.push(`${assignment[1]}${redacted}`);
		} else if (secretShapes.some((re) => re.test(arg))) {
			out.push(redacted);
		} else {
			out.push(arg);
			if (secretFlag.test(arg) && i + 1 < args.length) {
				out.push(redacted);
				i++;
			}
		}
	}
	return out;
}

function redactUrl(url: string | null): string | null {
	if (!url) {
		return null;
	}
	try {
		const parsed = new URL(url);
		const user = parsed.username || parsed.password ? `${redacted}@` : '';
		const query = [...parsed.searchParams.keys()].map((key) => `${key}=${redacted}`).join('&');
		return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}${query ? `?${query}` : ''}`;
	} catch {
		return url.replace(/[?#].*$/, '');
	}
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return !!value && typeof value === 'object' && !Array.isArray(value);
}

/** VS Code's mcp.json is JSONC: comments and trailing commas. */
function stripJsonComments(text: string): string {
	let out = '';
	let inString = false;
	for (let i = 0; i < text.length; i++) {
		const ch = text[i] as string;
		const next = text[i + 1];
		if (inString) {
			out += ch;
			if (ch === '\\') {
				out += next ?? '';
				i++;
			} else if (ch === '"') {
				inString = false;
			}
		} else if (ch === '"') {
			inString = true;
			out += ch;
		} else if (ch === '/' && next === '/') {
			while (i < text.length && text[i] !== '\n') i++;
			out += '\n';
		} else if (ch === '/' && next === '*') {
			i += 2;
			while (i < text.length && !(text[i] === '*' && text[i + 1] === '/')) i++;
			i++;
		} else {
			out += ch;
		}
	}
	return out.replace(/,(\s*[}\]])/g, '$1');
}
