/**
 * Who did something, as a person reads it. The engine records actors as `vscode:<user>`,
 * `cli:<user>`, `hook:<agent>`, `agent:<agent>` (a `baton` command an agent ran through its own shell
 * tool), `mcp:<client>` or `baton` (its policy); the raw actor stays in
 * `--json`, the audit log and the hovers, and views and messages show these names. Imports nothing,
 * so the protocol hands it to the extension and the webviews (src/protocol/people.ts). Its agent
 * names are agentKinds.ts' (a room of the same rank it may not import): actorNames.test.ts keeps them equal.
 */

export const agentNames: Readonly<Record<string, string>> = {
	'claude-code': 'Claude Code',
	copilot: 'Copilot',
	cline: 'Cline',
	codex: 'Codex',
	gemini: 'Gemini CLI',
};

/**
 * `vscode:alice` → "you" when `you` is `alice` (this machine's user, as the backend records it),
 * else "alice"; `hook:claude-code` and `agent:claude-code` → "Claude Code"; `mcp:cursor` → "cursor (MCP)"; `baton` →
 * "Baton’s policy"; anything else as it is.
 */
export function actorName(actor: string, you: string | null | undefined): string {
	if (actor === 'baton') {
		return 'Baton’s policy';
	}
	const colon = actor.indexOf(':');
	const kind = colon > 0 ? actor.slice(0, colon) : '';
	const who = colon > 0 ? actor.slice(colon + 1) : actor;
	if ((kind === 'vscode' || kind === 'cli') && who) {
		return you && who === you ? 'you' : who;
	}
	if ((kind === 'hook' || kind === 'agent') && who) {
		return Object.hasOwn(agentNames, who) ? (agentNames[who] as string) : who;
	}
	if (kind === 'mcp' && who) {
		return `${who} (MCP)`;
	}
	return actor;
}

/**
 * Whether an agent did it — through its hooks, Baton's MCP tools or a `baton` command its shell tool
 * ran — rather than a person (in the editor or their own terminal) or Baton's policy. What only a
 * person decides (an approval, a session's review policy) is refused to these actors.
 */
export function isAgentActor(actor: string): boolean {
	return /^(hook|mcp|agent):/.test(actor);
}
