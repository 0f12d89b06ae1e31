/**
 * The `baton.notifications.*` settings are the engine's `notifications` configuration: every one
 * names a real option with the engine's own default, none of them is a secret, and settings merge
 * into `.baton/config.json` key by key.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { resolveConfig } from '../../../src/engine/config';
import { mergeConfig } from '../../../src/engine/engine';
import { secretKeysIn, secretNames } from '../../../src/engine/secrets';

const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8'));
const settings = Object.entries(pkg.contributes.configuration.properties as Record<string, { default?: unknown }>).filter(([key]) =>
	key.startsWith('baton.notifications.'),
);

function nested(entries: [string, unknown][]): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const [key, value] of entries) {
		const keys = key.replace(/^baton\./, '').split('.');
		let node = out;
		for (const k of keys.slice(0, -1)) node = (node[k] ??= {}) as Record<string, unknown>;
		node[keys.at(-1)!] = value;
	}
	return out;
}

void describe('notification settings', () => {
	void it('each names an engine option, and its default is the engine’s', () => {
		assert.ok(settings.length >= 20);
		const withDefaults = settings.filter(([, s]) => s.default !== undefined && s.default !== '') as [string, { default: unknown }][];
		const resolved = resolveConfig(nested(withDefaults.map(([k, s]) => [k, s.default])), 'package.json').notifications as unknown as Record<
			string,
			unknown
		>;
		const engineDefaults = resolveConfig({}, 'defaults').notifications as unknown as Record<string, unknown>;
		assert.deepEqual(resolved, engineDefaults);
		// Options without a default (routes, ntfy topic, SMTP host…) are accepted by the schema as well.
		const samples: Record<string, unknown> = {
			'routing.warning': ['slack'],
			'ntfy.topic': 'team',
			'smtp.host': 'mail.example.invalid',
			'smtp.user': 'bot',
			'smtp.from': 'baton@example.invalid',
			'sms.from': '+14155550100',
			'sms.messagingServiceSid': `MG${'ab'.repeat(16)}`,
		};
		for (const [key] of settings) {
			const short = key.replace('baton.notifications.', '');
			if (short in samples) resolveConfig(nested([[key, samples[short]]]), key);
		}
		// The settings' own patterns accept what the engine accepts, and refuse what it refuses.
		const pattern = (key: string) => new RegExp((pkg.contributes.configuration.properties[key] as { pattern: string }).pattern);
		for (const [key, good, bad] of [
			['baton.notifications.sms.from', '+14155550100', '04155550100'],
			['baton.notifications.sms.messagingServiceSid', `MG${'ab'.repeat(16)}`, 'MG12'],
		] as const) {
			assert.ok(pattern(key).test(good) && pattern(key).test('') && !pattern(key).test(bad), key);
			assert.throws(() => resolveConfig(nested([[key, bad]]), key), new RegExp(key.replace('baton.', '').replace(/\./g, '\\.')));
		}
		const toItem = new RegExp((pkg.contributes.configuration.properties['baton.notifications.sms.to'] as { items: { pattern: string } }).items.pattern);
		assert.ok(toItem.test('+447700900123') && !toItem.test('+44 7700 900123'));
	});

	void it('holds no secret: no setting is named like one', () => {
		const names = Object.keys(secretNames);
		for (const [key] of settings) {
			assert.ok(!names.some((n) => key.endsWith(`.${n}`)), `${key} would be a secret`);
		}
		assert.deepEqual(secretKeysIn(nested(settings.map(([k]) => [k, 'x']))), []);
	});

	void it('merges settings into the file’s notifications block key by key', () => {
		const merged = mergeConfig(
			{ notifications: { channels: ['editor', 'slack'], smtp: { host: 'mail', port: 465 }, routing: { critical: ['slack'] } } },
			{ notifications: { smtp: { port: 587, to: ['a@example.invalid'] }, budget: { sessionUsd: 2 } } },
		);
		assert.deepEqual(merged, {
			notifications: {
				channels: ['editor', 'slack'],
				smtp: { host: 'mail', port: 587, to: ['a@example.invalid'] },
				routing: { critical: ['slack'] },
				budget: { sessionUsd: 2 },
			},
		});
	});
});
