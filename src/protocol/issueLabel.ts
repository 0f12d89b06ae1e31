/**
 * How a linked issue is named where space is short (tree rows, chips): `#42`, `owner/repo#42`,
 * `ENG-12`, `bd-a1b2`, `webhook:ID`. Shared by the extension and the webviews.
 */
export function issueLabel(link: { tracker: string; issueId: string }): string {
	switch (link.tracker) {
		case 'github':
			return link.issueId.includes('#') ? link.issueId : `#${link.issueId}`;
		case 'linear':
		case 'beads':
			return link.issueId;
		default:
			return `${link.tracker}:${link.issueId}`;
	}
}
