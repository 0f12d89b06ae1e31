/**
 * `Baton: Import…`, `Baton: Export…` and the markdown view of a handoff or briefing. Import: format →
 * file or folder → dry-run preview (counts and the first errors) → modal confirmation → import with
 * progress → result. Export: session (or the tree row) → session or chain → folder → export → reveal.
 * Callers (tests, other extensions) may pass what the prompts would ask, e.g.
 * `{ format, path, confirmed: true }` or `{ sessionId, chain: true, out }`.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { ImportCountsDto, ImportFormatDto, ImportIssueDto, ImportReportDto, MarkdownKindDto } from '../../protocol/interopDto';
import { exportRun, importPreview, importRun, sessionDetails } from '../../protocol/rpc';
import type { BatonWorkspace } from '../batonWorkspace';
import { CommandIds } from '../ids';
import { command, ensureInitialized, pickSession, sessionIdOf } from './commandSupport';
import { markdownUri } from './markdownDocuments';
import { showInformationMessage, showQuickPick, showWarningMessage } from '../messages';

const allStatuses = ['active', 'suspended', 'ended', 'orphaned', 'archived', 'closed'] as const;

const formats: { format: ImportFormatDto; label: string; detail: string; folder: boolean; filters?: Record<string, string[]>; guess: string }[] = [
	{
		format: 'cleo-sessions',
		label: '$(history) CLEO sessions.json',
		detail: 'CLEO’s legacy multi-session file (.cleo/sessions.json): sessions, history, focus, limits',
		folder: false,
		filters: { 'CLEO sessions': ['json'] },
		guess: '.cleo/sessions.json',
	},
	{
		format: 'cleo-db',
		label: '$(database) CLEO tasks.db',
		detail: 'CLEO’s SQLite database (.cleo/tasks.db): tasks, dependencies, sessions, handoffs',
		folder: false,
		filters: { 'SQLite database': ['db', 'sqlite'] },
		guess: '.cleo/tasks.db',
	},
	{
		format: 'json-sessions',
		label: '$(json) JSON session files',
		detail: 'A folder with index.json and one .json file per session (a Baton export, for example)',
		folder: true,
		guess: '',
	},
	{
		format: 'beads',
		label: '$(issues) Beads issues.jsonl',
		detail: 'Beads issues (.beads/issues.jsonl) as tasks with status, type, priority, parent and dependencies',
		folder: false,
		filters: { 'Beads JSONL': ['jsonl'] },
		guess: '.beads/issues.jsonl',
	},
];

function counts(c: ImportCountsDto): string {
	const parts = Object.entries(c)
		.filter(([, n]) => n > 0)
		.map(([kind, n]) => `${n} ${n === 1 ? kind.replace(/s$/, '') : kind}`);
	return parts.length ? parts.join(', ') : 'nothing';
}

const issueLine = (e: ImportIssueDto): string => `${e.record}${e.field ? ` · ${e.field}` : ''}: ${e.message}`;

/** What the commands share: the dependencies and the helpers built on them. */
function contextOf(workspace: BatonWorkspace) {
	const log = workspace.log;

	const logIssues = (report: ImportReportDto): void => {
		for (const e of report.errors) log.warn(`import ${report.source}: ${issueLine(e)}`);
		for (const w of report.warnings) log.info(`import ${report.source}: ${issueLine(w)}`);
	};

	return { workspace, log, logIssues };
}

type Context = ReturnType<typeof contextOf>;

export function registerInteropCommands(workspace: BatonWorkspace): vscode.Disposable[] {
	const ctx = contextOf(workspace);
	const { log } = ctx;
	return [
		command(CommandIds.importData, async (arg?: unknown) => importDataCommand(ctx, arg), log),
		command(CommandIds.exportSessions, async (arg?: unknown) => exportSessionsCommand(ctx, arg), log),
		command(CommandIds.showMarkdown, async (arg?: unknown) => showMarkdownCommand(ctx, arg), log),
	];
}

async function importDataCommand(ctx: Context, arg?: unknown) {
	const { workspace, log, logIssues } = ctx;
	if (!(await ensureInitialized(workspace))) return undefined;
	const given = arg && typeof arg === 'object' ? (arg as { format?: ImportFormatDto; path?: string; confirmed?: boolean }) : {};
	const choice = given.format
		? formats.find((f) => f.format === given.format)
		: await showQuickPick(
				formats.map((f) => ({ ...f, description: f.folder ? 'a folder' : 'a file' })),
				{ title: 'Import (1/3): what do you bring?', placeHolder: 'The format of the history to import', matchOnDetail: true },
			);
	if (!choice) return undefined;
	let source = given.path;
	if (!source) {
		const root = workspace.root;
		const guess = root && choice.guess && fs.existsSync(path.join(root, choice.guess)) ? path.join(root, choice.guess) : root;
		const picked = await vscode.window.showOpenDialog({
			title: `Import (2/3): ${choice.label.replace(/^\$\([\w-]+\) /, '')}`,
			canSelectFiles: !choice.folder,
			canSelectFolders: choice.folder,
			canSelectMany: false,
			openLabel: 'Preview Import',
			...(choice.filters ? { filters: { ...choice.filters, 'All files': ['*'] } } : {}),
			...(guess ? { defaultUri: vscode.Uri.file(guess) } : {}),
		});
		source = picked?.[0]?.fsPath;
	}
	if (!source) return undefined;
	const preview = await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: `Baton: reading ${path.basename(source)}…` },
		() => workspace.request(importPreview, { format: choice.format, path: source }),
	);
	logIssues(preview);
	if (preview.errors.length > 0) {
		const first = preview.errors.slice(0, 5).map((e) => `• ${issueLine(e)}`);
		const more = preview.errors.length > 5 ? `\n…and ${preview.errors.length - 5} more (all of them are in the Baton log).` : '';
		void showWarningMessage(
			`${path.basename(source)} cannot be imported: ${preview.errors.length} problem(s). Nothing was written.`,
			{ modal: !given.confirmed, detail: `${first.join('\n')}${more}` },
			'Show Log',
		).then((c) => c === 'Show Log' && log.show(true));
		return preview;
	}
	if (Object.values(preview.added).every((n) => n === 0)) {
		void showInformationMessage(`Nothing new in ${path.basename(source)}: ${counts(preview.unchanged)} already in Baton.`);
		return preview;
	}
	if (!given.confirmed) {
		const detail = [
			`Adds ${counts(preview.added)}.`,
			`Already in Baton (left as they are): ${counts(preview.unchanged)}.`,
			...(preview.warnings.length ? [`${preview.warnings.length} record(s) changed since an earlier import; Baton keeps its own (see the log).`] : []),
			'All or nothing, in one transaction; importing the same file again adds nothing.',
		].join('\n');
		const ok = await showInformationMessage(`Import from ${path.basename(source)}?`, { modal: true, detail }, 'Import');
		if (ok !== 'Import') return undefined;
	}
	const report = await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: `Baton: importing ${path.basename(source)}…` },
		() => workspace.request(importRun, { format: choice.format, path: source }),
	);
	logIssues(report);
	await workspace.refresh();
	if (report.errors.length > 0) {
		void showWarningMessage(
			`Import refused: ${report.errors.length} problem(s) appeared since the preview; nothing was written. ${issueLine(report.errors[0] as ImportIssueDto)}`,
		);
	} else {
		void showInformationMessage(`Imported ${counts(report.added)} from ${path.basename(source)}.`);
	}
	return report;
}

async function exportSessionsCommand(ctx: Context, arg?: unknown) {
	const { workspace, log } = ctx;
	const given = arg && typeof arg === 'object' && !('session' in arg) ? (arg as { sessionId?: string; chain?: boolean; out?: string }) : {};
	const sessionId =
		given.sessionId ??
		sessionIdOf(arg) ??
		(await pickSession(workspace, [...allStatuses], 'Export which session?', 'There is no session to export yet.'))?.id;
	if (!sessionId) return undefined;
	let chain = given.chain;
	if (chain === undefined) {
		const { chain: sessions } = await workspace.request(sessionDetails, { id: sessionId });
		const pick = await showQuickPick(
			[
				{ label: '$(file) This session', description: '1 file plus index.json', chain: false },
				{ label: '$(list-ordered) Its whole chain', description: `${sessions.length} session(s), first to last`, chain: true },
			],
			{ title: 'Export (1/2): what to export' },
		);
		if (!pick) return undefined;
		chain = pick.chain;
	}
	let out = given.out;
	if (!out) {
		const picked = await vscode.window.showOpenDialog({
			title: 'Export (2/2): into which folder?',
			canSelectFolders: true,
			canSelectFiles: false,
			canSelectMany: false,
			openLabel: 'Export Here',
			...(workspace.root ? { defaultUri: vscode.Uri.file(workspace.root) } : {}),
		});
		out = picked?.[0]?.fsPath;
		if (out && fs.readdirSync(out).length > 0 && !fs.existsSync(path.join(out, 'index.json'))) {
			const sub = path.join(out, `baton-export-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-')}`);
			const ok = await showInformationMessage(
				`${path.basename(out)} is not empty. Export into a new folder inside it?`,
				{ modal: true, detail: `${sub}\nBaton never overwrites files it did not write.` },
				'Create Folder',
			);
			out = ok ? sub : undefined;
		}
	}
	if (!out) return undefined;
	const target = out;
	const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Baton: exporting…' }, () =>
		workspace.request(exportRun, { ...(chain ? { chainId: sessionId } : { sessionId }), out: target }),
	);
	log.info(`exported ${result.files.length - 1} session file(s) to ${result.out}`);
	if (!given.out) {
		void showInformationMessage(`Exported ${result.files.length - 1} session(s) to ${result.out}.`, 'Reveal in Explorer', 'Open index.json').then(
			async (c) => {
				const index = vscode.Uri.file(path.join(result.out, 'index.json'));
				if (c === 'Reveal in Explorer') await vscode.commands.executeCommand('revealFileInOS', index);
				if (c === 'Open index.json') await vscode.window.showTextDocument(index);
			},
		);
	}
	return result;
}

async function showMarkdownCommand(ctx: Context, arg?: unknown) {
	const { workspace } = ctx;
	const given = arg && typeof arg === 'object' && !('session' in arg) ? (arg as { id?: string; kind?: MarkdownKindDto; preview?: boolean }) : {};
	const id =
		given.id ??
		sessionIdOf(arg) ??
		(await pickSession(workspace, [...allStatuses], 'Show which session’s handoff or briefing?', 'There is no session yet.'))?.id;
	if (!id) return undefined;
	const kind =
		given.kind ??
		(
			await showQuickPick(
				[
					{ label: '$(note) Handoff', description: 'what the session left for the next one', view: 'handoff' as const },
					{ label: '$(book) Briefing', description: 'what the session was (or would be) told at its start', view: 'briefing' as const },
				],
				{ title: 'Show as Markdown' },
			)
		)?.view;
	if (!kind) return undefined;
	const name = await workspace.request(sessionDetails, { id }).then(
		(d) => d.session.name,
		() => undefined,
	);
	const uri = markdownUri(kind, id, name);
	const document = await vscode.workspace.openTextDocument(uri);
	if (given.preview === false) {
		await vscode.window.showTextDocument(document, { preview: true });
	} else {
		// The rendered preview when the built-in markdown extension is there; the read-only text otherwise.
		await vscode.commands.executeCommand('markdown.showPreview', uri).then(undefined, () => vscode.window.showTextDocument(document, { preview: true }));
	}
	return document;
}
