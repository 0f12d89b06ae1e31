/**
 * The open formats' own schemas, vendored in test/fixtures/formats (each folder's SOURCE.md says
 * where from and at which commit): what Baton writes is checked against them, not against what
 * Baton thinks the formats are.
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

const fixtures = path.resolve(__dirname, '../../../fixtures/formats');
const readJson = (file: string): Record<string, any> => JSON.parse(fs.readFileSync(path.join(fixtures, file), 'utf8')) as Record<string, any>;

/** The published pattern no real version passes (SOURCE.md); read as intended. */
const brokenVersionPattern = '^[0-9]+\\\\.[0-9]+\\\\.[0-9]+$';

function agentTraceSchema(): Record<string, any> {
	const schema = readJson('agent-trace/trace-record.json');
	const version = schema['definitions']['TraceRecord']['properties']['version'];
	if (version.pattern !== brokenVersionPattern) {
		throw new Error(`the vendored Agent Trace schema's version pattern changed (${version.pattern}): re-read SOURCE.md and drop the correction`);
	}
	version.pattern = '^[0-9]+\\.[0-9]+\\.[0-9]+$';
	return schema;
}

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
const validateTrace = ajv.compile(agentTraceSchema());
const validateGitAiMeta = ajv.compile(readJson('git-ai/authorship-3.0.0.metadata.schema.json'));

const errorsOf = (errors: typeof validateTrace.errors): string[] =>
	(errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);

/** Why an Agent Trace record is not valid against the published schema (empty: it is). */
export function agentTraceProblems(record: unknown): string[] {
	return validateTrace(record) ? [] : errorsOf(validateTrace.errors);
}

/**
 * Why a git-ai authorship log does not follow the Git AI Standard v3.0.0 (empty: it does): the
 * attestation section's grammar (§1.2.3), the metadata against its schema (§1.2.4), and every key
 * described in the map its prefix names.
 */
export function gitAiProblems(log: string): string[] {
	const problems: string[] = [];
	const at = log.indexOf('\n---\n');
	if (at < 0 && !log.startsWith('---\n')) {
		return ['no line "---" between the attestation and metadata sections'];
	}
	const attest = log.startsWith('---\n') ? '' : log.slice(0, at);
	let meta: Record<string, any>;
	try {
		meta = JSON.parse(log.slice(at < 0 ? 4 : at + 5)) as Record<string, any>;
	} catch (error) {
		return [`the metadata section is not JSON: ${(error as Error).message}`];
	}
	if (!validateGitAiMeta(meta)) {
		problems.push(...errorsOf(validateGitAiMeta.errors));
	}
	const keys: string[] = [];
	let sawPath = false;
	for (const line of attest.split('\n').filter((l) => l !== '')) {
		if (!line.startsWith(' ')) {
			const quoted = /^".*"$/.test(line);
			if (!quoted && /[ \t]/.test(line)) {
				problems.push(`path ${JSON.stringify(line)} holds a space or a tab and is not quoted`);
			}
			sawPath = true;
			continue;
		}
		const entry = /^ {2}(s_[0-9a-f]{14}::t_[0-9a-f]{14}|h_[0-9a-f]{14}|[0-9a-f]{16}) (\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*)$/.exec(line);
		if (!entry || !sawPath) {
			problems.push(`attestation line ${JSON.stringify(line)} is not "  <key> <ranges>" under a path`);
			continue;
		}
		keys.push(entry[1] as string);
		let last = 0;
		for (const part of (entry[2] as string).split(',')) {
			const [a, b] = part.split('-').map(Number) as [number, number | undefined];
			if (a < 1 || (b !== undefined && b < a) || a <= last) {
				problems.push(`ranges ${entry[2]} are not 1-based, ascending and non-overlapping`);
				break;
			}
			last = b ?? a;
		}
	}
	for (const key of keys) {
		const [map, id] = key.startsWith('s_') ? ['sessions', key.split('::')[0] as string] : key.startsWith('h_') ? ['humans', key] : ['prompts', key];
		if (!meta[map] || !Object.hasOwn(meta[map], id)) {
			problems.push(`${key} is not described in ${map}`);
		}
	}
	return problems;
}
