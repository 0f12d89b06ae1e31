// A test's folders hold workspaces whose daemons (the CLI starts one by default) outlive the test and
// keep writing there — a late environment capture, the search index they save when they end — so a
// folder is removed only after they stopped. Shared by the unit helpers and the UI tests.
import fs from 'node:fs';
import path from 'node:path';

/** @param {string} dir @param {number} depth @returns {string[]} every `.baton/daemon.json` at most `depth` folders below `dir` */
function daemonEndpointsUnder(dir, depth = 3) {
	const found = [];
	const endpoint = path.join(dir, '.baton', 'daemon.json');
	if (fs.existsSync(endpoint)) found.push(endpoint);
	if (depth === 0) return found;
	let entries;
	try {
		entries = fs.readdirSync(dir, { withFileTypes: true });
	} catch {
		return found;
	}
	for (const entry of entries) {
		if (entry.isDirectory() && entry.name !== '.baton' && entry.name !== '.git' && entry.name !== 'node_modules') {
			found.push(...daemonEndpointsUnder(path.join(dir, entry.name), depth - 1));
		}
	}
	return found;
}

/** @param {number} pid */
function alive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** SIGTERM each daemon whose endpoint lies under `dir` (its clean shutdown) and wait for it to exit. @param {string} dir */
async function stopDaemonsUnder(dir) {
	const pids = [];
	for (const file of daemonEndpointsUnder(dir)) {
		try {
			const { pid } = JSON.parse(fs.readFileSync(file, 'utf8'));
			if (typeof pid === 'number' && pid !== process.pid && alive(pid)) {
				process.kill(pid, 'SIGTERM');
				pids.push(pid);
			}
		} catch {
			// A half-written or vanished endpoint: no daemon of ours to stop.
		}
	}
	const deadline = Date.now() + 10_000;
	while (pids.some(alive) && Date.now() < deadline) {
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	for (const pid of pids.filter(alive)) process.kill(pid, 'SIGKILL');
}

/**
 * Removes a test's folder once the daemons under it stopped: a removal that ran into a daemon's last
 * write failed with ENOTEMPTY (the search UI test's workspace, whose daemon saved its search index).
 * @param {string} dir
 */
export async function removeTestFolder(dir) {
	await stopDaemonsUnder(dir);
	fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}
