/**
 * A remote's URL may carry a credential in its user information (`https://<token>@host/…`,
 * `https://user:<password>@host/…`, a CI job's `https://x-access-token:<token>@…`). Baton names
 * remotes and repeats git's messages, which quote the URL; every such text goes through this first,
 * so no output — CLI text or JSON, logs, the sync state's last error, notifications, the editor —
 * carries the credential. An ssh user name (`ssh://git@host`) is not one and stays.
 */
const withUserinfo = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@'"]+)@/gi;

export function withoutUrlCredentials(text: string): string {
	if (!text.includes('@') || !text.includes('://')) {
		return text;
	}
	return text.replace(withUserinfo, (whole, scheme: string, userinfo: string) => {
		const colon = userinfo.indexOf(':');
		if (colon >= 0) {
			return `${scheme}${userinfo.slice(0, colon)}:[REDACTED]@`;
		}
		return /^(ssh|git\+ssh|ssh\+git):\/\/$/i.test(scheme) ? whole : `${scheme}[REDACTED]@`;
	});
}
