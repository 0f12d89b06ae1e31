/**
 * `baton issue …`: a session's links to tracker issues. `link`, `unlink` and `list` are local;
 * `show` and `sync` ask the tracker (tokens from `BATON_GITHUB_TOKEN`, `BATON_LINEAR_API_KEY`, …).
 */
import type { IssueLinkView } from '../engine/trackers/issueLinks';
import type { TrackerIssue } from '../engine/trackers/trackerTypes';
import { stringOption, type Command } from './command';

const sessionOption = { session: { type: 'string' as const } };
const refHelp = 'REF: github:123, #123, owner/repo#123, ABC-123 (Linear), bd-a1b2 (Beads), webhook:ID or an issue URL';

function linkLine(l: IssueLinkView): string {
	const about = [l.title ? `“${l.title}”` : '', l.state ? `[${l.state}]` : '', l.url ?? ''].filter(Boolean).join(' ');
	return `${l.sessionId}  ${`${l.tracker}:${l.issueId}`.padEnd(20)} ${l.source.padEnd(8)} ${about}`.trimEnd();
}

function issueText(i: TrackerIssue): string {
	return [`${i.tracker}:${i.id}${i.title ? `  ${i.title}` : ''}`, `  state  ${i.state ?? '(unknown)'}`, ...(i.url ? [`  url    ${i.url}`] : [])].join('\n');
}

export const trackerCommands: Command[] = [
	{
		path: ['issue', 'link'],
		usage: `baton issue link [--session ID] REF   (${refHelp})`,
		summary: 'link a session (default: the active one) to a tracker issue',
		options: sessionOption,
		positionals: [1, 1],
		async run(ctx) {
			const sessionId = stringOption(ctx.values, 'session');
			const result = await (await ctx.engine()).trackers.link({ ref: ctx.args[0] as string, ...(sessionId ? { sessionId } : {}), actor: ctx.actor });
			return { json: result, text: `${result.added ? 'Linked' : 'Already linked'}: ${linkLine(result.link)}` };
		},
	},
	{
		path: ['issue', 'unlink'],
		usage: `baton issue unlink [--session ID] REF   (${refHelp})`,
		summary: 'remove a session’s link to an issue',
		options: sessionOption,
		positionals: [1, 1],
		async run(ctx) {
			const sessionId = stringOption(ctx.values, 'session');
			const unlinked = await (await ctx.engine()).trackers.unlink({ ref: ctx.args[0] as string, ...(sessionId ? { sessionId } : {}), actor: ctx.actor });
			return { json: { unlinked }, text: `Unlinked ${unlinked.tracker}:${unlinked.issueId} from ${unlinked.sessionId}` };
		},
	},
	{
		path: ['issue', 'list'],
		usage: 'baton issue list [--session ID]',
		summary: 'issues linked to sessions (all sessions, or one)',
		options: sessionOption,
		async run(ctx) {
			const sessionId = stringOption(ctx.values, 'session');
			const links = await (await ctx.engine()).trackers.list(sessionId ? { sessionId } : {});
			return { json: { links }, text: links.length ? links.map(linkLine).join('\n') : 'No linked issues.' };
		},
	},
	{
		path: ['issue', 'show'],
		usage: `baton issue show REF   (${refHelp})`,
		summary: 'fetch one issue from its tracker',
		positionals: [1, 1],
		async run(ctx) {
			const issue = await (await ctx.engine()).trackers.show(ctx.args[0] as string);
			return { json: { issue }, text: issueText(issue) };
		},
	},
	{
		path: ['issue', 'sync'],
		usage: 'baton issue sync [--session ID]',
		summary: 'refresh the titles and states of linked issues from their trackers',
		options: sessionOption,
		async run(ctx) {
			const sessionId = stringOption(ctx.values, 'session');
			const result = await (await ctx.engine()).trackers.sync(sessionId ? { sessionId } : {});
			const lines = [
				`${result.updated.length} updated, ${result.failed.length} failed, ${result.skipped.length} skipped (tracker not enabled)`,
				...result.updated.map(linkLine),
				...result.failed.map((f) => `failed  ${f.tracker}:${f.issueId}: ${f.error}`),
			];
			return { json: { ...result }, text: lines.join('\n'), exitCode: result.failed.length > 0 ? 1 : 0 };
		},
	},
];
