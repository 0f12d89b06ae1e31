/**
 * The size line `baton doctor` prints: how much Baton's shadow store (checkpoints and timeline trees,
 * which share their objects) takes on disk, and how many session timelines it keeps.
 */
import { ShadowRepo } from '../shadow/shadowRepo';
import { formatBytes } from '../text/byteSizes';
import { batonDir } from '../workspace';
import { keptPackBytes } from './timelinePacks';
import { readPruned } from './timelineRetention';

interface StoreSize {
	bytes: number;
	looseObjects: number;
	timelines: number;
	checkpoints: number;
	/** What only the replay's trees take (objects no checkpoint shares), and how many trees its refs keep. */
	timeline: { bytes: number; sessions: number; trees: number; steps: number | null; prunedSessions: number };
}

/** `steps`: the number of `timeline.step` records, when the caller could read the database. */
export async function shadowStoreSize(workspaceRoot: string, steps: number | null = null): Promise<StoreSize | null> {
	const shadow = new ShadowRepo(workspaceRoot, batonDir(workspaceRoot));
	if (!shadow.exists()) {
		return null;
	}
	shadow.ensureEmptyConfig();
	const counts = await shadow.gitText(['count-objects', '-v']);
	const kib = (key: string) => Number(new RegExp(`^${key}: (\\d+)$`, 'm').exec(counts)?.[1] ?? 0);
	const refs = (await shadow.gitText(['for-each-ref', '--format=%(refname)', 'refs/baton/'])).split('\n').filter(Boolean);
	const timelines = refs.filter((r) => r.startsWith('refs/baton/timeline/')).length;
	let timelineBytes = 0;
	let trees = 0;
	if (timelines > 0) {
		// On-disk bytes of the objects the timeline refs reach and no other ref does (packed or loose).
		const others = ['--exclude=refs/baton/timeline/*', '--all'];
		timelineBytes = Number(await shadow.gitText(['rev-list', '--objects', '--disk-usage', '--glob=refs/baton/timeline/*', '--not', ...others]));
		// Keyframes: the first-parent chains (older chains' second parents hold blob lists).
		trees = Number(await shadow.gitText(['rev-list', '--count', '--first-parent', '--glob=refs/baton/timeline/*']));
	}
	// The steps' blobs, kept in the sessions' own packs (no ref reaches them).
	timelineBytes += keptPackBytes(shadow).bytes;
	return {
		bytes: (kib('size') + kib('size-pack')) * 1024,
		looseObjects: kib('count'),
		timelines,
		checkpoints: refs.filter((r) => r.startsWith('refs/baton/checkpoints/')).length,
		timeline: { bytes: timelineBytes, sessions: timelines, trees, steps, prunedSessions: Object.keys(readPruned(workspaceRoot)).length },
	};
}

export function storeSizeLine(size: StoreSize | null): string {
	if (!size) {
		return 'info  storage    no shadow store yet (no checkpoint or timeline capture in this workspace)';
	}
	const t = size.timeline;
	return [
		`info  storage    shadow store ${formatBytes(size.bytes)} (${size.checkpoints} checkpoint(s), ${size.timelines} session timeline(s), ${size.looseObjects} loose object(s))`,
		`info  timeline   ${formatBytes(t.bytes)} of its own (${t.steps ?? '?'} step(s), ${t.trees} kept tree(s), ${t.sessions} session(s)${t.prunedSessions ? `, ${t.prunedSessions} session(s) pruned` : ''})`,
	].join('\n');
}
