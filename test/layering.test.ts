/**
 * The layering check (`npm run lint:deps`: scripts/lint-deps.mjs with .dependency-cruiser.cjs) really
 * bites: a file in the pure library that imports an adapter (through the `@forensics/infra` alias, so
 * the tsconfig paths must resolve) and a node builtin makes it fail with the rules' names; the
 * library as committed passes. Needs no services. The scratch file lives inside libs/forensics/src
 * for a few seconds only (the rules are path-based) and is deleted in `finally`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');
const SCRATCH = join(ROOT, 'libs', 'forensics', 'src', '__layering_probe__.ts');

function lintDeps(...paths: string[]): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, ['scripts/lint-deps.mjs', '--config', '.dependency-cruiser.cjs', ...paths], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 150_000, // dependency-cruiser over libs/forensics takes ~40 s on a loaded 2-core machine
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('layering rules (.dependency-cruiser.cjs)', () => {
  it('the pure library as committed passes', () => {
    const r = lintDeps('libs/forensics');
    expect(r.output).toMatch(/no dependency violations found/);
    expect(r.status).toBe(0);
  }, 180_000);

  it('a pure-library file importing @forensics/infra and node:fs fails with the rules and their comments', () => {
    expect(existsSync(SCRATCH)).toBe(false);
    try {
      writeFileSync(
        SCRATCH,
        "// Scratch file written by test/layering.test.ts; deleted when the test ends.\nimport '@forensics/infra';\nimport 'node:fs';\n",
      );
      const r = lintDeps('libs/forensics');
      expect(r.status).toBe(1);
      expect(r.output).toMatch(/error algorithms-imports-only-itself: libs\/forensics\/src\/__layering_probe__\.ts → libs\/infra\/src\/index\.ts/);
      expect(r.output).toMatch(/error algorithms-no-node-builtins: libs\/forensics\/src\/__layering_probe__\.ts → fs/);
      expect(r.output).toMatch(/imports\s+only\s+its\s+own\s+files/); // the rule's comment is printed (wrapped)
    } finally {
      rmSync(SCRATCH, { force: true });
    }
    expect(existsSync(SCRATCH)).toBe(false);
  }, 180_000);
  it('two files that import each other fail with no-circular', () => {
    const a = join(ROOT, 'libs', 'forensics', 'src', '__cycle_probe_a__.ts');
    const b = join(ROOT, 'libs', 'forensics', 'src', '__cycle_probe_b__.ts');
    expect(existsSync(a) || existsSync(b)).toBe(false);
    try {
      writeFileSync(a, "// Scratch file written by test/layering.test.ts; deleted when the test ends.\nimport { b } from './__cycle_probe_b__';\nexport const a = (): number => b() + 1;\n");
      writeFileSync(b, "// Scratch file written by test/layering.test.ts; deleted when the test ends.\nimport type { a } from './__cycle_probe_a__';\nexport const b = (): number => 1;\nexport type A = typeof a;\n");
      const r = lintDeps('libs/forensics');
      expect(r.status).toBe(1);
      expect(r.output).toMatch(/error no-circular: libs\/forensics\/src\/__cycle_probe_a__\.ts/);
    } finally {
      rmSync(a, { force: true });
      rmSync(b, { force: true });
    }
  }, 180_000);
});
