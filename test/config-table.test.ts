/**
 * docs/operations.md's configuration table names every setting the code reads (ENV_SCHEMA in
 * libs/infra/src/config/app-config.ts) and nothing else (issue 57 item 4: DEFAULT_COLLECTION was missing). A setting
 * counts as documented when it appears in backticks in the first column of one of the page's table rows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENV_SCHEMA } from '@forensics/infra/config/app-config';
import { ROOT } from './support/test-runtime';

describe('the configuration table', () => {
  const page = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
  const documented = new Set(page.split('\n').filter((l) => l.startsWith('| `')).flatMap((l) => [...l.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1])));
  const read = Object.keys(ENV_SCHEMA.shape);

  it('documents every setting the code reads', () => {
    expect(read.filter((k) => !documented.has(k))).toEqual([]);
  });

  it('documents no setting the code does not read', () => {
    expect([...documented].filter((k) => !read.includes(k))).toEqual([]);
  });
});
