/**
 * The size line `baton doctor` prints: how much Baton's shadow store (checkpoints and timeline trees,
 * which share their objects) takes on disk, and how many session timelines it keeps.
 */
import { ShadowRepo } from '../checkpoints/shadowRepo';
import { formatBytes } from '../checkpoints/indexSync';
import { batonDir } from '../workspace';

export interface StoreSize {
	bytes: number;
	looseObjects: number;
	timelines: number;
	checkpoints: number;
}

export async function shadowStoreSize(workspaceRoot: string): Promise<StoreSize | null> {
	const shadow = new ShadowRepo(workspaceRoot, batonDir(workspaceRoot));
	if (!shadow.exists()) {
		return null;
	}
	shadow.ensureEmptyConfig();
	const counts = await shadow.gitText(['count-objects', '-v']);
	const kib = (key: string) => Number(new RegExp(`^${key}: (\\d+)$`, 'm').exec(counts)?.[1] ?? 0);
	const refs = (await shadow.gitText(['for-each-ref', '--format=%(refname)', 'refs/baton/'])).split('\n').filter(Boolean);
	return {
		bytes: (kib('size') + kib('size-pack')) * 1024,
		looseObjects: kib('count'),
		timelines: refs.filter((r) => r.startsWith('refs/baton/timeline/')).length,
		checkpoints: refs.filter((r) => r.startsWith('refs/baton/checkpoints/')).length,
	};
}

export function storeSizeLine(size: StoreSize | null): string {
	return size
		? `info  storage    shadow store ${formatBytes(size.bytes)} (${size.checkpoints} checkpoint(s), ${size.timelines} session timeline(s), ${size.looseObjects} loose object(s))`
		: 'info  storage    no shadow store yet (no checkpoint or timeline capture in this workspace)';
}
