#!/usr/bin/env node
// Installs the real agent CLIs the real-agent suite runs (test/realAgents), pinned by this folder's
// package.json and package-lock.json, into a cache dir of their own — never the project's
// node_modules: Claude Code, Copilot CLI, Codex CLI, Gemini CLI and the Cline CLI are ~1.2 GB together, and nothing of
// the extension needs them. Idempotent: an install whose lock matches this folder's is kept.
//
//   BATON_AGENTS_HOME   cache dir (default: $HOME/.cache/baton-agents)
//
// Prints `ready in DIR` and each CLI's own version; exits non-zero with the reason on failure.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const agentsHome = process.env.BATON_AGENTS_HOME || path.join(os.homedir(), '.cache', 'baton-agents');
/** Each agent's executable inside the cache dir. */
export const agentBins = {
	claude: 'node_modules/@anthropic-ai/claude-code/bin/claude.exe',
	copilot: 'node_modules/@github/copilot/npm-loader.js',
	codex: 'node_modules/@openai/codex/bin/codex.js',
	gemini: 'node_modules/@google/gemini-cli/bundle/gemini.js',
	cline: 'node_modules/@cline/cli-linux-x64/bin/cline',
};

function lockHash() {
	return createHash('sha256')
		.update(fs.readFileSync(path.join(here, 'package.json')))
		.update(fs.readFileSync(path.join(here, 'package-lock.json')))
		.digest('hex');
}

export function install({ quiet = false } = {}) {
	const say = (line) => quiet || console.log(`>> ${line}`);
	const hash = lockHash();
	const marker = path.join(agentsHome, '.installed');
	const installed =
		fs.existsSync(marker) &&
		fs.readFileSync(marker, 'utf8').trim() === hash &&
		Object.values(agentBins).every((bin) => fs.existsSync(path.join(agentsHome, bin)));
	if (!installed) {
		fs.mkdirSync(agentsHome, { recursive: true });
		fs.rmSync(marker, { force: true });
		for (const file of ['package.json', 'package-lock.json']) {
			fs.copyFileSync(path.join(here, file), path.join(agentsHome, file));
		}
		say(`installing the agent CLIs into ${agentsHome} (npm ci)`);
		const started = Date.now();
		const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
			cwd: agentsHome,
			stdio: quiet ? 'pipe' : 'inherit',
			encoding: 'utf8',
			timeout: 20 * 60_000,
		});
		if (result.status !== 0) {
			throw new Error(
				`npm ci of the agent CLIs failed (exit ${result.status}${result.signal ? `, ${result.signal}` : ''})${quiet ? `: ${(result.stderr ?? '').slice(-2000)}` : ''}`,
			);
		}
		for (const [name, bin] of Object.entries(agentBins)) {
			if (!fs.existsSync(path.join(agentsHome, bin))) {
				throw new Error(`${name}: ${bin} is missing after the install`);
			}
		}
		fs.writeFileSync(marker, `${hash}\n`);
		say(`installed in ${Math.round((Date.now() - started) / 1000)} s`);
	}
	return agentsHome;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	try {
		const home = install();
		console.log(`>> ready in ${home}`);
		const versions = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8')).dependencies;
		for (const [name, version] of Object.entries(versions)) {
			const found = JSON.parse(fs.readFileSync(path.join(home, 'node_modules', name, 'package.json'), 'utf8')).version;
			console.log(`   ${name.padEnd(28)} ${found}${found === version ? '' : ` (expected ${version})`}`);
		}
	} catch (error) {
		console.error(`install.mjs: FAILED: ${error.message}`);
		process.exit(1);
	}
}
