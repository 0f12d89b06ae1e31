import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ComparisonDto, FileChangeDto } from '../../../src/protocol/checkpointDto';
import { countFiles, environmentKeyLabel, formatBytes, formatCount, modeChange } from '../../../webview/compareModel';

function file(
	path: string,
	change: FileChangeDto['change'],
	additions: number | null,
	deletions: number | null,
	modes: { old?: string | null; new?: string | null } = {},
): FileChangeDto {
	return {
		path,
		change,
		additions,
		deletions,
		binary: additions === null,
		oldMode: modes.old !== undefined ? modes.old : change === 'added' ? null : '100644',
		newMode: modes.new !== undefined ? modes.new : change === 'deleted' ? null : '100644',
		oldSha: null,
		newSha: null,
	};
}

void describe('comparison view helpers', () => {
	void it('counts files and lines in one pass, binary files adding no lines', () => {
		const counts = countFiles([file('a', 'added', 10, 0), file('b', 'modified', 3, 4), file('c.png', 'modified', null, null), file('d', 'deleted', 0, 7)]);
		assert.deepEqual(counts, { added: 1, modified: 2, deleted: 1, linesAdded: 13, linesRemoved: 11, binary: 1 });
	});

	void it('matches the preview fixture', () => {
		const fixture = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../fixtures/webviewData.json'), 'utf8')) as {
			compare: { comparison: ComparisonDto };
		};
		const counts = countFiles(fixture.compare.comparison.files);
		assert.equal(counts.added + counts.modified + counts.deleted, fixture.compare.comparison.files.length);
		assert.equal(counts.binary, fixture.compare.comparison.files.filter((f) => f.binary).length);
	});

	void it('stays linear on thousands of files', () => {
		const files = Array.from({ length: 200_000 }, (_, i) => file(`f${i}`, i % 3 === 0 ? 'added' : 'modified', i % 5, 1));
		const started = performance.now();
		const counts = countFiles(files);
		assert.equal(counts.added + counts.modified, 200_000);
		assert.ok(performance.now() - started < 2000);
	});

	void it('describes mode changes, symlinks and executables, and says nothing of plain files', () => {
		assert.equal(modeChange({ oldMode: '100644', newMode: '100644' }), null);
		assert.equal(modeChange({ oldMode: null, newMode: '100644' }), null);
		assert.deepEqual(modeChange({ oldMode: '100644', newMode: '100755' }), {
			text: '100644 → 100755',
			spoken: 'mode changed from regular file to executable',
			notable: true,
		});
		assert.deepEqual(modeChange({ oldMode: '100644', newMode: '120000' }), {
			text: '100644 → 120000',
			spoken: 'mode changed from regular file to symlink',
			notable: true,
		});
		assert.deepEqual(modeChange({ oldMode: null, newMode: '120000' }), { text: 'symlink', spoken: 'symlink', notable: false });
		assert.deepEqual(modeChange({ oldMode: '100755', newMode: null }), { text: 'executable', spoken: 'executable', notable: false });
		assert.deepEqual(modeChange({ oldMode: '100600', newMode: '100600' })?.text, '100600');
	});

	void it('formats counts and sizes', () => {
		assert.equal(formatCount(4812), '4,812');
		assert.equal(formatBytes(512), '512 B');
		assert.equal(formatBytes(1536), '1.5 KB');
		assert.equal(formatBytes(73_400_320), '70 MB');
	});

	void it('names environment keys as a person reads them, keeping names that already are', () => {
		assert.equal(environmentKeyLabel('git', 'untrackedFiles'), 'Untracked files');
		assert.equal(environmentKeyLabel('git', 'changedFiles'), 'Uncommitted files');
		assert.equal(environmentKeyLabel('git', 'head'), 'Commit (HEAD)');
		assert.equal(environmentKeyLabel('agents', 'claude-code.version'), 'Claude Code version');
		assert.equal(environmentKeyLabel('agents', 'claude-code.binaryHash'), 'Claude Code binary (hash)');
		assert.equal(environmentKeyLabel('packages', 'package-lock.json:@scope/pkg'), '@scope/pkg (package-lock.json)');
		assert.equal(environmentKeyLabel('vscode', 'version'), 'Version');
		assert.equal(environmentKeyLabel('extensions', 'ms-python.python'), 'ms-python.python');
		assert.equal(environmentKeyLabel('git', 'constructor'), 'constructor', 'a key is looked up as its own, never through the prototype');
	});
});
