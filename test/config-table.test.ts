/**
 * docs/operations.md's configuration tables name every setting the code reads and nothing else (issue 57
 * item 4: DEFAULT_COLLECTION was missing). What the code reads is ENV_SCHEMA (libs/infra/src/config/app-config.ts)
 * and every other environment read in apps/ and libs/ (not tests): `process.env.X`, `env.X` (a ProcessEnv
 * passed in), `env['X']`, and `env[NAME]` with `NAME` a string constant declared there. A setting counts
 * as documented when it appears in backticks in the first column of one of the page's table rows.
 * scripts/, bench/ and examples/ (development tools with their own knobs) are not covered.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ENV_SCHEMA } from '@forensics/infra/config/app-config';
import { ROOT } from './support/test-runtime';

/** Read from the environment but not settings of ours. */
const NOT_SETTINGS: Record<string, string> = {
  PATH: 'the system\'s program search path (finding redis-server)',
  npm_lifecycle_event: 'set by npm to the script it runs (npm start watches npm itself)',
};

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) { if (!['node_modules', '__tests__', 'generated', 'dist'].includes(e.name)) sources(p, out); }
    else if (/\.(ts|mts|cts|js|mjs|cjs)$/.test(e.name) && !/\.spec\.ts$/.test(e.name)) out.push(p);
  }
  return out;
}

/** Every name read from the environment in apps/ and libs/, with the files that read it; computed reads that resolve to no constant as `[EXPR]`. */
function environmentReads(): Map<string, Set<string>> {
  const files = [...sources(join(ROOT, 'apps')), ...sources(join(ROOT, 'libs'))].map((f) => ({ f: relative(ROOT, f), src: readFileSync(f, 'utf8') }));
  const constants = new Map<string, string>();
  for (const { src } of files) for (const m of src.matchAll(/\bconst ([A-Z][A-Z0-9_]*) = '([^']+)'/g)) constants.set(m[1]!, m[2]!);
  // A read, not an assignment (`env.X = …`).
  const read = /\b(?:process\.)?env(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*(?:'([^']+)'|"([^"]+)"|([A-Za-z_][A-Za-z0-9_.]*))\s*\])(?!\s*=[^=])/g;
  const out = new Map<string, Set<string>>();
  for (const { f, src } of files) {
    for (const m of src.matchAll(read)) {
      // app-config.ts reads ENV_SCHEMA's own keys by name (`env[name]` over the schema): those are the schema's.
      if (m[4] && f.endsWith(join('config', 'app-config.ts'))) continue;
      const name = m[1] ?? m[2] ?? m[3] ?? constants.get(m[4]!) ?? `[${m[4]}]`;
      out.set(name, (out.get(name) ?? new Set()).add(f));
    }
  }
  return out;
}

describe('the configuration table', () => {
  const page = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
  const documented = new Set(page.split('\n').filter((l) => l.startsWith('| `')).flatMap((l) => [...l.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)));
  const schema = Object.keys(ENV_SCHEMA.shape);
  const reads = environmentReads();
  const outside = [...reads.keys()].filter((k) => !schema.includes(k) && !(k in NOT_SETTINGS));

  it('finds the reads outside the schema (the scan works)', () => {
    expect(outside).toEqual(expect.arrayContaining(['FORENSICS_DEBUG', 'FORENSICS_FAILPOINT', 'FORENSICS_SUPERVISOR_PID', 'LLAMA_BASE_URL']));
    expect([...reads.keys()].filter((k) => k.startsWith('['))).toEqual([]); // every computed read resolved
  });

  it('documents every setting the code reads', () => {
    expect(schema.filter((k) => !documented.has(k))).toEqual([]);
    expect(outside.filter((k) => !documented.has(k)).map((k) => `${k} (${[...reads.get(k)!].join(', ')})`)).toEqual([]);
  });

  it('documents no setting the code does not read', () => {
    expect([...documented].filter((k) => !schema.includes(k) && !outside.includes(k))).toEqual([]);
  });
});
