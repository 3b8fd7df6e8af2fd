#!/usr/bin/env node
/**
 * Layering check: `npm run lint:deps` = node scripts/lint-deps.mjs libs apps
 *   node scripts/lint-deps.mjs [--config FILE] [PATH ...]      (defaults: .dependency-cruiser.cjs; libs apps)
 *
 * Runs dependency-cruiser with the rules of .dependency-cruiser.cjs over the given folders and prints
 * every violation with its rule's comment. Exit code: 0 = no violation, 1 = violations, 2 = bad
 * usage or configuration.
 *
 * Why not the `depcruise` binary: dependency-cruiser 18's CLI refuses to start on Node 20 (its
 * engine check asks for ^22), which is what the project runs on (package.json engines, Dockerfile).
 * Its programmatic API (the documented `cruise` + `extractDepcruiseOptions` + `extractTSConfig`) runs
 * fine on Node 20, so this wrapper does what the CLI does with the same configuration file. On
 * Node ≥ 22, `npx depcruise libs apps --config .dependency-cruiser.cjs` gives the same result.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

function parseArgs(argv) {
  let config = '.dependency-cruiser.cjs';
  const paths = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--config' || a === '-c') {
      config = argv[++i];
      if (!config) throw new Error(`${a} needs a file name`);
    } else if (a.startsWith('--config=')) {
      config = a.slice('--config='.length);
    } else if (a.startsWith('-')) {
      throw new Error(`unknown option ${a}`);
    } else {
      paths.push(a);
    }
  }
  return { config, paths: paths.length ? paths : ['libs', 'apps'] };
}

async function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
    for (const p of [args.config, ...args.paths]) if (!existsSync(p)) throw new Error(`${p} does not exist`);
  } catch (err) {
    process.stderr.write(`lint:deps: ${err.message}\nusage: node scripts/lint-deps.mjs [--config FILE] [PATH ...]\n`);
    return 2;
  }
  let options;
  let tsConfig;
  try {
    options = await extractDepcruiseOptions(resolve(args.config));
    const tsConfigFile = options.tsConfig?.fileName;
    tsConfig = tsConfigFile ? extractTSConfig(tsConfigFile) : undefined;
  } catch (err) {
    process.stderr.write(`lint:deps: cannot read ${args.config}: ${err.message}\n`);
    return 2;
  }
  const cruiseOptions = { ...options, validate: true, outputType: 'err-long' };
  const result = await cruise(args.paths, cruiseOptions, {}, { tsConfig });
  process.stdout.write(String(result.output));
  return result.exitCode > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`lint:deps: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exitCode = 2;
  },
);
