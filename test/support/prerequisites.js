// What the integration tests need from the machine (not from npm), checked once before any test
// starts: a missing program ends the run (redis-server) or skips its tests (chromium) with ONE line
// naming the Debian package and the command that installs it — no stack trace, no line per file.
// Plain CommonJS: jest's globalSetup loads it without a transform. The same lookup as
// libs/infra/src/runtime/prerequisites.ts (PATH, like the shell's `command -v`).
const { accessSync, constants } = require('node:fs');
const { delimiter, join } = require('node:path');

function findOnPath(name, pathEnv = process.env.PATH) {
  for (const dir of String(pathEnv ?? '').split(delimiter)) {
    if (!dir) continue;
    try { accessSync(join(dir, name), constants.X_OK); return join(dir, name); } catch { /* not here */ }
  }
  return null;
}

const REDIS_MISSING = 'redis-server not found on PATH: the integration tests start their own Redis; install the Debian package redis-server (sudo apt-get install -y redis-server)';
const CHROMIUM_MISSING = 'chromium not found on PATH: the browser tests (*.browser.test.ts) are skipped; install the Debian package chromium (sudo apt-get install -y chromium) to run them';

/** The Chromium the browser tests drive (playwright-core downloads none): CHROMIUM_PATH, else `chromium` on PATH. */
function chromiumPath() {
  return process.env.CHROMIUM_PATH || findOnPath('chromium');
}

module.exports = { findOnPath, chromiumPath, REDIS_MISSING, CHROMIUM_MISSING };
