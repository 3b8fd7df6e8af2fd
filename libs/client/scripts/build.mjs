#!/usr/bin/env node
// Builds the package into dist/: dist/esm (ES modules) and dist/cjs (CommonJS), each with its .d.ts, by the
// repository's TypeScript (tsc). Each folder gets a package.json naming its module type, so Node and TypeScript
// read dist/esm/*.js and *.d.ts as ESM and dist/cjs/* as CommonJS (package.json "exports" picks one per consumer).
// Run by `npm run build` and by `npm pack` (prepack) in libs/client.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(join(pkg, 'package.json')).resolve('typescript/bin/tsc');
rmSync(join(pkg, 'dist'), { recursive: true, force: true });
for (const [config, type] of [['tsconfig.build.json', 'module'], ['tsconfig.cjs.json', 'commonjs']]) {
  const r = spawnSync(process.execPath, [tsc, '-p', join(pkg, config)], { cwd: pkg, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
  const out = join(pkg, 'dist', type === 'module' ? 'esm' : 'cjs');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'package.json'), `${JSON.stringify({ type })}\n`);
}
