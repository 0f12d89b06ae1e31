/**
 * Baton's MCP server in the agents' MCP configurations (`.mcp.json`, `.vscode/mcp.json`, Cline's
 * global settings): merged into files that hold other servers, idempotent, backed up, removed
 * exactly; a malformed file is refused and left byte-identical; `baton connect … --mcp` through the
 * bundled CLI; and the entry it writes starts a server the MCP SDK's client can list tools from.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it, type TestContext } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connectMcpServer, mcpTargetFor, type McpLaunch } from '../../../../src/engine/agentConfig/connectMcpServer';
import { BatonError } from '../../../../src/engine/errors';
import { tempDir } from '../../helpers';
import { agentCli, batonOnPath, runBaton } from '../../cli/agentCli';

let cli = '';
before(async () => {
	cli = await agentCli();
});

const launch: McpLaunch = { command: '/usr/local/bin/node', args: ['/opt/baton/dist/cli.js'], env: {} };
const now = () => Date.parse('2026-03-01T09:00:00.000Z');

function project(t: TestContext): string {
	const root = path.join(tempDir(t, 'baton-mcp-config-'), 'shop');
	fs.mkdirSync(root);
	return root;
}

const backups = (file: string): string[] => fs.readdirSync(path.dirname(file)).filter((f) => f.startsWith(`${path.basename(file)}.baton-backup-`));

const claudeMcp = `{
\t"mcpServers": {
\t\t"github": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": { "GITHUB_TOKEN": "\${GITHUB_TOKEN}" } },
\t\t"docs": { "type": "http", "url": "https://example.invalid/mcp" }
\t}
}
`;

void describe('MCP configuration merge', () => {
	void it('adds Baton to Claude’s .mcp.json beside the user’s servers, once, and takes exactly it out again', (t) => {
		const root = project(t);
		const file = path.join(root, '.mcp.json');
		fs.writeFileSync(file, claudeMcp);
		const target = mcpTargetFor('claude-code', root);
		const added = connectMcpServer(root, target, launch, { now });
		assert.deepEqual(added, { path: '.mcp.json', action: 'updated', backup: '.mcp.json.baton-backup-20260301T090000000Z', name: 'baton' });
		const config = JSON.parse(fs.readFileSync(file, 'utf8'));
		assert.deepEqual(Object.keys(config.mcpServers), ['github', 'docs', 'baton']);
		assert.deepEqual(config.mcpServers.github, JSON.parse(claudeMcp).mcpServers.github);
		assert.deepEqual(config.mcpServers.baton, { type: 'stdio', command: '/usr/local/bin/node', args: ['/opt/baton/dist/cli.js', 'mcp'] });
		assert.match(fs.readFileSync(file, 'utf8'), /^\{\n\t"mcpServers"/, 'the file keeps its tabs');
		assert.equal(connectMcpServer(root, target, launch, { now }).action, 'unchanged');
		assert.equal(backups(file).length, 1);
		// Moved installation: updated in place, whatever the user added to the entry kept.
		config.mcpServers.baton.env = { BATON_ACTOR: 'me' };
		fs.writeFileSync(file, JSON.stringify(config, null, '\t'));
		const moved = { command: '/usr/bin/node', args: ['/home/me/.vscode/extensions/baton/dist/cli.js'], env: {} };
		assert.equal(connectMcpServer(root, target, moved, { now }).action, 'updated');
		assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')).mcpServers.baton.env, { BATON_ACTOR: 'me' });
		assert.equal(connectMcpServer(root, target, null, { now }).action, 'updated');
		const after = JSON.parse(fs.readFileSync(file, 'utf8'));
		assert.deepEqual(after, JSON.parse(claudeMcp), 'only Baton’s entry went');
	});

	void it('restores a file byte for byte, and deletes one only Baton filled', (t) => {
		const root = project(t);
		const file = path.join(root, '.mcp.json');
		fs.writeFileSync(file, claudeMcp);
		const target = mcpTargetFor('claude-code', root);
		connectMcpServer(root, target, launch, { now });
		connectMcpServer(root, target, null, { now: () => now() + 1 });
		assert.equal(fs.readFileSync(file, 'utf8'), claudeMcp);
		const fresh = project(t);
		assert.equal(connectMcpServer(fresh, mcpTargetFor('claude-code', fresh), launch, { now }).action, 'created');
		const removed = connectMcpServer(fresh, mcpTargetFor('claude-code', fresh), null, { now });
		assert.equal(removed.action, 'removed');
		assert.equal(fs.existsSync(path.join(fresh, '.mcp.json')), false);
		assert.ok(fs.existsSync(path.join(fresh, removed.backup as string)));
	});

	void it('writes VS Code’s .vscode/mcp.json with `servers`, keeps `inputs`, and names the folder portably', (t) => {
		const root = project(t);
		const file = path.join(root, '.vscode', 'mcp.json');
		fs.mkdirSync(path.dirname(file));
		const before = {
			inputs: [{ type: 'promptString', id: 'token', password: true }],
			servers: { fetch: { type: 'stdio', command: 'uvx', args: ['mcp-server-fetch'] } },
		};
		fs.writeFileSync(file, JSON.stringify(before, null, 2));
		const written = connectMcpServer(root, mcpTargetFor('copilot', root), { ...launch, env: { ELECTRON_RUN_AS_NODE: '1' } }, { now });
		assert.equal(written.action, 'updated');
		const config = JSON.parse(fs.readFileSync(file, 'utf8'));
		assert.deepEqual(config.inputs, before.inputs);
		assert.deepEqual(config.servers.fetch, before.servers.fetch);
		assert.deepEqual(config.servers.baton, {
			type: 'stdio',
			command: '/usr/local/bin/node',
			args: ['/opt/baton/dist/cli.js', 'mcp', '--workspace', '${workspaceFolder}'],
			env: { ELECTRON_RUN_AS_NODE: '1' },
		});
		// The launcher no longer needs Electron: its variable goes, nothing else does.
		connectMcpServer(root, mcpTargetFor('copilot', root), launch, { now });
		assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).servers.baton.env, undefined);
	});

	void it('gives each workspace its own entry in Cline’s shared settings, and keeps what the user set on it', (t) => {
		const base = tempDir(t, 'baton-cline-mcp-');
		const settings = path.join(base, 'globalStorage', 'saoudrizwan.claude-dev', 'settings', 'cline_mcp_settings.json');
		fs.mkdirSync(path.dirname(settings), { recursive: true });
		fs.writeFileSync(
			settings,
			JSON.stringify(
				{
					mcpServers: {
						'baton-shop': { command: 'python', args: ['my_own_baton.py'] },
						git: { command: 'uvx', args: ['mcp-server-git'], disabled: false, autoApprove: [] },
					},
				},
				null,
				2,
			),
		);
		const one = path.join(base, 'a', 'shop');
		const two = path.join(base, 'b', 'shop');
		fs.mkdirSync(one, { recursive: true });
		fs.mkdirSync(two, { recursive: true });
		const first = connectMcpServer(one, mcpTargetFor('cline', one, settings), launch, { now });
		const second = connectMcpServer(two, mcpTargetFor('cline', two, settings), launch, { now });
		assert.equal(first.path, settings, 'a file outside the workspace is named in full');
		assert.notEqual(first.name, second.name);
		assert.match(first.name ?? '', /^baton-shop-[0-9a-f]{6}$/, 'the user’s own "baton-shop" is not Baton’s: a name of its own');
		let config = JSON.parse(fs.readFileSync(settings, 'utf8'));
		assert.deepEqual(config.mcpServers['baton-shop'], { command: 'python', args: ['my_own_baton.py'] });
		assert.deepEqual(config.mcpServers[first.name as string], {
			command: '/usr/local/bin/node',
			args: ['/opt/baton/dist/cli.js', 'mcp', '--workspace', one],
			disabled: false,
			autoApprove: [],
		});
		// The user turned it off in Cline; connecting again does not turn it back on.
		config.mcpServers[first.name as string].disabled = true;
		fs.writeFileSync(settings, JSON.stringify(config, null, 2));
		assert.equal(connectMcpServer(one, mcpTargetFor('cline', one, settings), launch, { now }).action, 'unchanged');
		assert.equal(connectMcpServer(one, mcpTargetFor('cline', one, settings), null, { now }).action, 'updated');
		config = JSON.parse(fs.readFileSync(settings, 'utf8'));
		assert.deepEqual(Object.keys(config.mcpServers).sort(), ['baton-shop', 'git', second.name].sort(), 'only this workspace’s entry went');
		assert.throws(
			() => mcpTargetFor('cline', one),
			(e: unknown) => BatonError.is(e, 'invalidInput') && /cline_mcp_settings\.json/.test(e.message),
		);
	});

	void it('leaves a server of the user’s named "baton" alone and says so', (t) => {
		const root = project(t);
		const file = path.join(root, '.mcp.json');
		const text = JSON.stringify({ mcpServers: { baton: { command: 'python', args: ['-m', 'baton_relay'] } } });
		fs.writeFileSync(file, text);
		const result = connectMcpServer(root, mcpTargetFor('claude-code', root), launch, { now });
		assert.equal(result.action, 'skipped');
		assert.match(result.reason ?? '', /a server of yours is named "baton"/);
		assert.equal(fs.readFileSync(file, 'utf8'), text);
		assert.equal(connectMcpServer(root, mcpTargetFor('claude-code', root), null, { now }).action, 'unchanged');
		assert.equal(fs.readFileSync(file, 'utf8'), text);
	});

	void it('refuses a malformed file with a clear error naming it, and leaves it byte-identical', (t) => {
		const root = project(t);
		const file = path.join(root, '.vscode', 'mcp.json');
		fs.mkdirSync(path.dirname(file));
		const cases: [string, RegExp][] = [
			['{ "servers": { ', /is not valid JSON/],
			['[1]', /does not hold a JSON object/],
			['{"servers": []}', /"servers" is not an object/],
			['{\n  // my servers\n  "servers": {}\n}\n', /holds comments/],
		];
		for (const [broken, why] of cases) {
			fs.writeFileSync(file, broken);
			for (const l of [launch, null]) {
				assert.throws(
					() => connectMcpServer(root, mcpTargetFor('copilot', root), l, { now }),
					(e: unknown) =>
						BatonError.is(e, 'configInvalid') && e.message.includes(file) && why.test(e.message) && /Baton changed nothing/.test(e.message),
				);
				assert.equal(fs.readFileSync(file, 'utf8'), broken);
			}
			assert.deepEqual(backups(file), []);
		}
	});
});

void describe('baton connect --mcp (the bundled CLI)', () => {
	void it('writes hooks and the MCP entry, idempotent; a malformed MCP file stops it before any hook is written', (t) => {
		const root = project(t);
		fs.writeFileSync(path.join(root, '.mcp.json'), claudeMcp);
		const first = runBaton(cli, root, ['connect', 'claude', '--mcp', '--json']);
		assert.equal(first.code, 0, first.stdout + first.stderr);
		assert.equal(first.json?.['mcp'].action, 'updated');
		assert.equal(first.json?.['mcp'].name, 'baton');
		const entry = JSON.parse(fs.readFileSync(path.join(root, '.mcp.json'), 'utf8')).mcpServers.baton;
		// A committed file names no path of this machine: the server finds the workspace from its folder.
		assert.deepEqual(entry.args, ['mcp']);
		assert.equal(entry.command, 'baton');
		assert.ok(!fs.readFileSync(path.join(root, '.mcp.json'), 'utf8').includes(root), '.mcp.json names no absolute path');
		const again = runBaton(cli, root, ['connect', 'claude', '--mcp', '--json']);
		assert.deepEqual([again.json?.['written'][0].action, again.json?.['mcp'].action], ['unchanged', 'unchanged']);
		assert.match(runBaton(cli, root, ['connect', 'claude', '--mcp']).stdout, /unchanged\s+\.mcp\.json {2}\(MCP server "baton"\)/);

		const other = project(t);
		fs.writeFileSync(path.join(other, '.mcp.json'), '{ "mcpServers": ');
		const refused = runBaton(cli, other, ['connect', 'claude', '--mcp', '--json']);
		assert.equal(refused.code, 1);
		assert.equal(refused.json?.['error'].code, 'configInvalid');
		assert.match(refused.json?.['error'].message, /\.mcp\.json is not valid JSON/);
		assert.equal(fs.existsSync(path.join(other, '.claude')), false, 'no hook was written either');
		assert.equal(fs.readFileSync(path.join(other, '.mcp.json'), 'utf8'), '{ "mcpServers": ');

		const cline = runBaton(cli, root, ['connect', 'cline', '--mcp', '--json'], {
			env: { HOME: path.join(root, 'nohome'), XDG_CONFIG_HOME: path.join(root, 'nohome'), XDG_DATA_HOME: path.join(root, 'nohome') },
		});
		assert.equal(cline.code, 2);
		assert.match(cline.json?.['error'].message, /no Cline installation found.*--cline-mcp-settings/);
		const settings = path.join(root, 'cline', 'cline_mcp_settings.json');
		const named = runBaton(cli, root, ['connect', 'cline', '--mcp', '--cline-mcp-settings', settings, '--json']);
		assert.equal(named.code, 0, named.stdout);
		assert.equal(named.json?.['mcp'].action, 'created');
		assert.equal(runBaton(cli, root, ['connect', 'copilot', '--cline-mcp-settings', settings]).code, 2, '--cline-mcp-settings needs --mcp');
	});

	void it('the entry it writes starts a Baton MCP server the SDK client lists tools from', async (t) => {
		const root = project(t);
		// The committed entry runs `baton` from PATH (never a path of this machine): put this build there.
		const bin = path.join(root, '..', 'bin');
		batonOnPath(cli, bin);
		assert.equal(runBaton(cli, root, ['connect', 'claude', '--mcp']).code, 0);
		const entry = JSON.parse(fs.readFileSync(path.join(root, '.mcp.json'), 'utf8')).mcpServers.baton as { command: string; args: string[] };
		// As Claude Code starts it: wherever it was launched (here: outside the project), a minimal
		// environment, and the project named in CLAUDE_PROJECT_DIR.
		const transport = new StdioClientTransport({
			command: entry.command,
			args: entry.args,
			cwd: path.dirname(root),
			stderr: 'pipe',
			env: { PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: root, CLAUDE_PROJECT_DIR: root },
		});
		const client = new Client({ name: 'baton-mcp-config-test', version: '1.0.0' });
		await client.connect(transport);
		t.after(() => client.close());
		const tools = (await client.listTools()).tools.map((tool) => tool.name);
		assert.ok(tools.includes('session_start') && tools.includes('handoff'), tools.join(', '));
		const status = (await client.callTool({ name: 'session_status', arguments: {} })) as { content: { text: string }[] };
		assert.deepEqual(JSON.parse(status.content[0]?.text ?? '{}').active, [], 'it serves the workspace named in the entry');
	});
});
