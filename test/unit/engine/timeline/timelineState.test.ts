/**
 * The timeline's per-session bookkeeping file (engine/timeline/timelineState.ts), written in place
 * rather than renamed over (a rename over a file is written out to the disk on ext4, twice per tool
 * call): a shorter state after a longer one reads back exactly, bytes that are no whole state (a write
 * cut short, a state followed by another's tail) read as no state, a symlink in its place is refused
 * without writing through it, and the file is private. Real files.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it, type TestContext } from 'node:test';
import { readState, writeState, type TimelineState } from '../../../../src/engine/timeline/timelineState';

const sha = (c: string) => c.repeat(40);

function workspace(t: TestContext): string {
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-timeline-state-'));
	t.after(() => fs.rmSync(root, { recursive: true, force: true }));
	return root;
}

function state(pending: number): TimelineState {
	return {
		lastTree: sha('a'),
		refCommit: sha('b'),
		refTree: sha('c'),
		chainTree: sha('d'),
		sinceKey: 3,
		unkept: [[sha('e'), 'src/app.ts']],
		pending: Array.from({ length: pending }, (_, i) => ({
			toolUseId: `toolu_${i}`,
			tool: 'Bash',
			summary: `echo ${i} >> notes.txt`,
			startedAt: new Date(1_000_000 + i).toISOString(),
			startedMs: 1_000_000 + i,
			treeBefore: sha('f'),
			reason: null,
		})),
	};
}

const file = (root: string, session: string) => path.join(root, '.baton', 'timeline', `${session}.json`);

it('a shorter state written after a longer one reads back exactly, with nothing of the longer one left', (t) => {
	const root = workspace(t);
	writeState(root, 'ses_1', state(20));
	const long = fs.statSync(file(root, 'ses_1')).size;
	writeState(root, 'ses_1', state(1));
	assert.ok(fs.statSync(file(root, 'ses_1')).size < long);
	assert.deepEqual(readState(root, 'ses_1', 1_000_100), state(1));
	assert.equal(fs.readFileSync(file(root, 'ses_1'), 'utf8'), `${JSON.stringify(state(1))}\n`);
});

it('bytes that are no whole state (cut short, or a state with another one’s tail after it) read as no state', (t) => {
	const root = workspace(t);
	writeState(root, 'ses_1', state(2));
	const whole = fs.readFileSync(file(root, 'ses_1'), 'utf8');
	const empty = { lastTree: null, refCommit: null, refTree: null, chainTree: null, sinceKey: 0, unkept: [], pending: [] };
	fs.writeFileSync(file(root, 'ses_1'), whole.slice(0, whole.length / 2));
	assert.deepEqual(readState(root, 'ses_1', 1_000_100), empty);
	// Two writers outside the lock: the shorter state's bytes, then the longer one's tail.
	const short = `${JSON.stringify(state(0))}\n`;
	const long = `${JSON.stringify(state(5))}\n`;
	fs.writeFileSync(file(root, 'ses_1'), short + long.slice(short.length));
	assert.deepEqual(readState(root, 'ses_1', 1_000_100), empty);
	// And the next write makes it whole again.
	writeState(root, 'ses_1', state(1));
	assert.deepEqual(readState(root, 'ses_1', 1_000_100), state(1));
});

it('a symlink put in the state file’s place is refused, and its target is not written', (t) => {
	const root = workspace(t);
	writeState(root, 'ses_1', state(0));
	const target = path.join(root, 'elsewhere.txt');
	fs.writeFileSync(target, 'keep me\n');
	fs.rmSync(file(root, 'ses_1'));
	fs.symlinkSync(target, file(root, 'ses_1'));
	assert.throws(() => writeState(root, 'ses_1', state(3)), /ELOOP|EMLINK/);
	assert.equal(fs.readFileSync(target, 'utf8'), 'keep me\n');
});

it('the state file is private to its owner', (t) => {
	const root = workspace(t);
	writeState(root, 'ses_2', state(1));
	assert.equal(fs.statSync(file(root, 'ses_2')).mode & 0o777, 0o600);
});
