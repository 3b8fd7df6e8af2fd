// Generates the Prisma client offline. The Prisma CLI insists on locating its native schema engine
// (downloaded from binaries.prisma.sh) even for `generate`, which does not use it; on machines with no
// route to that host we point it at a placeholder so generation (pure WASM) can run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
const env = { ...process.env };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) {
  const native = 'node_modules/@prisma/engines/schema-engine-debian-openssl-3.0.x';
  if (!existsSync(native)) env.PRISMA_SCHEMA_ENGINE_BINARY = '/bin/true';
}
env.PRISMA_HIDE_UPDATE_MESSAGE = '1';
const r = spawnSync(process.execPath, ['node_modules/prisma/build/index.js', 'generate'], { stdio: 'inherit', env });
process.exit(r.status ?? 1);
