/** `baton daemon status|stop`: look at or stop the workspace's shared backend (see docs/daemon.md). */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from './command';
import { callDaemon } from './daemonClient';
import { pidAlive } from '../hookHost/pidAlive';
import packageJson from '../../package.json';

const look = { start: false, budgetMs: 1_000, answerMs: 1_000, serverScript: path.join(__dirname, 'backend.js'), version: packageJson.version };

export const daemonCommands: Command[] = [
	{
		path: ['daemon', 'status'],
		usage: 'baton daemon status [--json]',
		summary: "whether the workspace's daemon runs: pid, socket, uptime, clients",
		run: async ({ workspaceRoot }) => {
			const status = ((await callDaemon(workspaceRoot, 'daemon/status', null, look)) as Record<string, unknown> | undefined) ??
				silentDaemon(workspaceRoot) ?? { running: false };
			if (status['answering'] === false) {
				return {
					json: status,
					text: `daemon ${String(status['pid'])} does not answer (stopped or wedged); the next command ends it and starts a new one`,
				};
			}
			const text = status['running']
				? `daemon ${String(status['pid'])} on ${String(status['socket'])}, up ${String(status['uptime'])} s, ${String(status['clients'])} client(s)`
				: 'no daemon runs for this workspace';
			return { json: status, text };
		},
	},
	{
		path: ['daemon', 'stop'],
		usage: 'baton daemon stop [--json]',
		summary: "stop the workspace's daemon (the next command starts one again)",
		run: async ({ workspaceRoot }) => {
			const answer = (await callDaemon(workspaceRoot, 'daemon/stop', null, look)) as { stopping?: boolean } | undefined;
			const stopped = answer?.stopping === true;
			return { json: { stopped }, text: stopped ? 'daemon stopped' : 'no daemon was running' };
		},
	},
];

/** The endpoint file names a live process that did not answer: a stopped or wedged daemon, not "none". */
function silentDaemon(workspaceRoot: string): Record<string, unknown> | undefined {
	try {
		const pid = (JSON.parse(fs.readFileSync(path.join(workspaceRoot, '.baton', 'daemon.json'), 'utf8')) as { pid?: unknown }).pid;
		return typeof pid === 'number' && pidAlive(pid) ? { running: true, answering: false, pid } : undefined;
	} catch {
		return undefined;
	}
}
