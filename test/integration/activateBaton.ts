/** Every extension-host suite starts the same way: Baton activated, its first status read. */
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { BatonApi } from '../../src/extension/extension';

export async function activateBaton(): Promise<{ api: BatonApi; extensionPath: string }> {
	const ext = vscode.extensions.getExtension<BatonApi>('baton-dev.baton');
	assert.ok(ext, 'the Baton extension is installed');
	const api = await ext.activate();
	await api.ready;
	return { api, extensionPath: ext.extensionPath };
}
