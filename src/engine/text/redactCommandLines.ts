/**
 * Credentials as they appear in shell commands an agent ran: options that take a password or a
 * `user:password` pair, tools whose short flag carries the secret, and CLIs that set a token as a
 * separate argument. Each rule keeps the command and the option, and replaces only the value.
 */
export interface Rule {
	name: string;
	pattern: RegExp;
	/** The replacement; `$1`… refer to groups the rule keeps (the option, the user name). */
	replace: string;
	/**
	 * A cheap test that must hold for the pattern to match at all: most excerpts hold no secret, and
	 * a substring search is far cheaper than running every pattern over every text.
	 */
	hint: (text: string, lower: () => string) => boolean;
}

/** A shell word: quoted, or up to the next space or quote. */
const value = String.raw`(?:'[^'\n]*'|"[^"\n]*"|[^\s'"]+)`;
/** The rest of the same command, short of a pipe or a separator. */
const sameCommand = String.raw`[^\n|;&]*?`;

const rx = (source: string): RegExp => new RegExp(source, 'gi');

export const commandLineRules: Rule[] = [
	{
		// curl/wget/httpie style `-u user:password`, `-uuser:password`, `--user user:password`, `--user=…`.
		// A numeric pair is `docker run -u uid:gid`, not a login.
		name: 'user-password-option',
		pattern: rx(String.raw`((?:^|\s)(?:-u|--user|--proxy-user|-U)(?:\s+|=)?(['"]?)(?!\d+:\d+(?:[\s'"]|$))[^\s:'"@]+:)(?!\[REDACTED)[^\s'"]+`),
		replace: '$1[REDACTED]',
		hint: (t) => t.includes('-u') || t.includes('-U') || t.includes('--user') || t.includes('--proxy-user'),
	},
	{
		// `--password SECRET`, `--http-password SECRET`, `--token SECRET`, `--api-key SECRET`: the
		// value is the next word. `--password-stdin` and a following option are left alone.
		name: 'secret-option',
		pattern: rx(String.raw`((?:^|\s)--(?:[a-z0-9]+-)*(?:password|passwd|pass|pwd|token|secret|api-?key|access-key|auth)(?:\s+|=))(?![-\[])${value}`),
		replace: '$1[REDACTED]',
		hint: (_t, lower) => lower().includes('--'),
	},
	{
		// MySQL/MariaDB take the password glued to `-p`; `-p` alone prompts, and the next word is the database.
		name: 'mysql-password',
		pattern: rx(String.raw`(\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mariadb|mariadb-dump)\b${sameCommand}\s-p)(?![\s\[])${value}`),
		replace: '$1[REDACTED]',
		hint: (_t, lower) => lower().includes('mysql') || lower().includes('mariadb'),
	},
	{
		name: 'registry-login-password',
		pattern: rx(String.raw`(\b(?:docker|podman|buildah|skopeo|nerdctl|helm(?:\s+registry)?|oras)\s+login\b${sameCommand}\s-p(?:\s+|=))(?![-\[])${value}`),
		replace: '$1[REDACTED]',
		hint: (_t, lower) => lower().includes('login'),
	},
	{
		name: 'sshpass',
		pattern: rx(String.raw`(\bsshpass\s+-p\s*)(?!\[)${value}`),
		replace: '$1[REDACTED]',
		hint: (t) => t.includes('sshpass'),
	},
	{
		name: 'redis-password',
		pattern: rx(String.raw`(\bredis-cli\b${sameCommand}\s-a\s+)(?![-\[])${value}`),
		replace: '$1[REDACTED]',
		hint: (t) => t.includes('redis-cli'),
	},
	{
		// `htpasswd -b[c] file user password`: the password is the last of the three words.
		name: 'htpasswd',
		pattern: rx(String.raw`(\bhtpasswd\s+(?:-[a-zA-Z]+\s+)*-[a-zA-Z]*b[a-zA-Z]*\s+(?:-[a-zA-Z]+\s+)*\S+\s+\S+\s+)(?!\[)${value}`),
		replace: '$1[REDACTED]',
		hint: (t) => t.includes('htpasswd'),
	},
	{
		// `npm config set _auth …`, `npm config set //registry/:_authToken …`, `yarn config set npmAuthToken …`.
		name: 'package-manager-token',
		pattern: rx(String.raw`(\b(?:npm|yarn|pnpm)\s+config\s+set\s+\S*(?:_auth|_authToken|_password|npmAuthToken|npmAuthIdent)\s+)(?!\[)${value}`),
		replace: '$1[REDACTED]',
		hint: (_t, lower) => lower().includes('config'),
	},
];
