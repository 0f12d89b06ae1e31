/**
 * The one environment policy for git (docs/architecture.md, "Git in one room"): every git Baton runs gets an
 * environment built here, never the process's own. Nothing named GIT_* is inherited (a terminal's or
 * an agent hook's GIT_DIR, GIT_INDEX_FILE or GIT_WORK_TREE would point git elsewhere); messages are in
 * English (a few are parsed); git never prompts.
 */

/** The few variables git needs from the host; everything named GIT_* is left behind. */
const hostKeys = ['PATH', 'Path', 'SystemRoot', 'SYSTEMROOT', 'ComSpec', 'PATHEXT', 'TEMP', 'TMP', 'TMPDIR', 'WINDIR'];

export function hostEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const key of hostKeys) {
		const value = process.env[key];
		if (value !== undefined) {
			env[key] = value;
		}
	}
	// English messages: a few of them are parsed (the path git could not read).
	env['LC_ALL'] = 'C';
	env['GIT_TERMINAL_PROMPT'] = '0';
	return { ...env, ...extra };
}

/**
 * The environment for reading a repository of the user's (nested repositories, the git state):
 * their own repository config applies, global and system config do not, and git takes no optional
 * locks, so `status` and friends never rewrite the index.
 */
export function userRepoEnv(isolatedConfigFile: string): NodeJS.ProcessEnv {
	return hostEnv({ GIT_OPTIONAL_LOCKS: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: isolatedConfigFile, HOME: process.env['HOME'] ?? '' });
}

/**
 * The environment for reading the user's repository as their own git would (a session's debrief, the
 * hooks folder): their global config applies (HOME), git takes no optional locks.
 */
export function userRepoReadEnv(): NodeJS.ProcessEnv {
	return hostEnv({ GIT_OPTIONAL_LOCKS: '0', HOME: process.env['HOME'] ?? '' });
}

/** What a credential helper or ssh needs from the host beyond hostEnv's minimum (a push or fetch to the user's remote). */
export function userEnv(): Record<string, string> {
	const env: Record<string, string> = {};
	for (const key of ['HOME', 'USERPROFILE', 'XDG_CONFIG_HOME', 'SSH_AUTH_SOCK', 'GIT_ASKPASS', 'SSH_ASKPASS', 'DISPLAY']) {
		const value = process.env[key];
		if (value !== undefined) {
			env[key] = value;
		}
	}
	return env;
}
