// Extension-test entry point (extensionTestsPath): the extension host calls run().
// mocha comes from the project if it has it, else from the workbench cache (install.sh).
const path = require('path');
const os = require('os');

function loadMocha() {
	try {
		return require('mocha');
	} catch {
		/* fall back to the workbench cache's copy */
	}
	const home = process.env.BATON_WORKBENCH_HOME || path.join(os.homedir(), '.cache', 'baton-workbench');
	return require(path.join(home, 'node_modules', 'mocha'));
}

exports.run = function run() {
	const Mocha = loadMocha();
	const mocha = new Mocha({ ui: 'tdd', color: false, timeout: 20000 });
	mocha.addFile(path.resolve(__dirname, 'extension.test.js'));
	return new Promise((resolve, reject) => {
		mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} tests failed.`)) : resolve()));
	});
};
