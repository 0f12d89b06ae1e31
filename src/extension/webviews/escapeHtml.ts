const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text placed in a page's HTML (content or a quoted attribute): never markup. */
export function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (c) => escapes[c] ?? c);
}
