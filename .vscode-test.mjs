// @vscode/test-cli configuration (`npm run test:electron`): the same extension-host suite the offline
// workbench runs (scripts/runEditorTests.mjs), here in a VS Code that test-electron downloads, for
// machines with network access. `npm run test:electron` first bundles the suite to out/integration
// and prepares each suite's workspace in out/workspaces (scripts/bundleIntegrationTests.mjs).
// index.js is not a test file: it is the offline runner's entry; test-cli runs mocha itself.
import { defineConfig } from '@vscode/test-cli';

const suite = (name, workspaceFolder) => ({
	label: name,
	files: `out/integration/${name}.test.js`,
	workspaceFolder,
	version: 'stable',
	env: { BATON_EXTHOST_SUITE: name },
	launchArgs: ['--disable-extensions', '--disable-workspace-trust'],
	mocha: { ui: 'tdd', timeout: 30_000, color: false },
});

export default defineConfig([
	suite('extension', 'out/workspaces/extension'),
	suite('checkpoints', 'out/workspaces/checkpoints'),
	suite('interop', 'out/workspaces/interop'),
	suite('notifications', 'out/workspaces/notifications'),
	suite('multiRoot', 'out/workspaces/multiRoot/both.code-workspace'),
	suite('agents', 'out/workspaces/agents/shop'),
]);
