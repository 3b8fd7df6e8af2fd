/**
 * docs/results.md holds the latest run of each measure and nothing else (issue 55): every measure table says when
 * it ran, under what load and on which commit; no judge version but the current one is named; no wording that
 * carries a figure's history ("superseded", "before the … fix", "the default until …"). History belongs in the
 * decision records (docs/decisions/, "Figures at the time").
 *
 * The rules, as `resultsDocProblems` checks them:
 * - a table (outside fenced code) has a date (YYYY-MM-DD), a load and a commit (a 7–40 digit hex id, or the words
 *   "commit not recorded") in its run line: the text of its section before it and the paragraph right after it, or
 *   in a `date` / `load` / `run` column of its own, in which case every row of that column has one;
 * - `offline-evidence-vNN` and `reader-minilm-vNN` name only `OFFLINE_JUDGE_MODEL` and `READER_JUDGE_MODEL`, and the
 *   shorthand `vNN` (a judge version: "judge v27", "fits v28") is the current rule judge's number, or the reader's
 *   right after "reader"; link targets (decision file names) are not read;
 * - none of the history phrases below;
 * - every table has its header row (a separator row right under a paragraph renders the rows as text).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');

/** `prefix-vNN` from `export const NAME = 'prefix-vNN'` in a source file. */
function modelConstant(file: string, name: string): { prefix: string; version: number } {
  const src = readFileSync(resolve(ROOT, file), 'utf8');
  const m = src.match(new RegExp(`export const ${name}\\s*=\\s*'([a-z-]+)-v(\\d+)'`));
  if (!m) throw new Error(`${name} not found in ${file}`);
  return { prefix: m[1], version: Number(m[2]) };
}

export interface CurrentModels {
  judge: { prefix: string; version: number };
  reader: { prefix: string; version: number };
}

const HISTORY_PHRASES: RegExp[] = [
  /supersed/i,
  /\bbefore the [\w-]+ fix\b/i,
  /\bbefore the (harness|quoting|change to)\b/i,
  /\buntil decision\b/i,
  /\bthe default until\b/i,
  /\b(an )?earlier (run|runs|figures?|judges?|defaults|versions?)\b/i,
  /\breads? every row the same\b/i,
  /\bthe same to the row\b/i,
  /\bwas [^.|\n]{1,40}, now\b/i,
  /\b(git|README) history\b/i,
];

/** Names whose `-vN` is someone else's version, not a judge's: a model's, or the LLM judge's prompt (`rf-v1`, `rf-v1-quote`, `rf-v2`). */
const THIRD_PARTY_NAMES = /\bMiniLM-L\d+-v\d+\b|\brf-v\d+(?:-quote)?\b/gi;

const DATE = /\b20\d\d-\d\d-\d\d\b/;
const LOAD = /\bload\b/i;
const COMMIT = /\bcommit [0-9a-f]{7,40}\b|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b|commit not recorded/i;

interface Table { line: number; header: string[]; rows: string[][]; before: string; after: string }

function cells(row: string): string[] {
  return row.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());
}

/** The tables outside fenced code, each with its section's text before it and the paragraph after it. */
function tablesOf(markdown: string): Table[] {
  const lines = markdown.split('\n');
  const tables: Table[] = [];
  let fence: string | null = null;
  let sectionStart = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const f = line.match(/^(```|~~~)/);
    if (f) { fence = fence === null ? f[1] : fence === f[1] ? null : fence; continue; }
    if (fence !== null) continue;
    if (/^#{1,6}\s/.test(line)) { sectionStart = i; continue; }
    if (line.startsWith('|') && /^\|[\s:|-]+\|\s*$/.test(lines[i + 1] ?? '')) {
      const start = i;
      let end = i + 2;
      while (end < lines.length && lines[end].startsWith('|')) end++;
      let after = end;
      while (after < lines.length && lines[after].trim() === '') after++;
      let afterEnd = after;
      while (afterEnd < lines.length && lines[afterEnd].trim() !== '' && !/^#{1,6}\s|^\|/.test(lines[afterEnd])) afterEnd++;
      tables.push({
        line: start + 1,
        header: cells(line),
        rows: lines.slice(start + 2, end).map(cells),
        before: lines.slice(sectionStart, start).join('\n'),
        after: lines.slice(after, afterEnd).join('\n'),
      });
      i = end - 1;
    }
  }
  return tables;
}

export function resultsDocProblems(markdown: string, models: CurrentModels): string[] {
  const problems: string[] = [];
  const lines = markdown.split('\n');

  for (const t of tablesOf(markdown)) {
    const runText = `${t.before}\n${t.after}`;
    const column = (re: RegExp) => t.header.findIndex((h) => re.test(h));
    const runCol = column(/^(date|run)$/i);
    const loadCol = column(/^load$/i);
    const where = `table at line ${t.line} (${t.header.slice(0, 3).join(' | ')} …)`;
    if (runCol >= 0) {
      t.rows.forEach((r, k) => { if (!DATE.test(r[runCol] ?? '')) problems.push(`${where}: row ${k + 1} has no date in its ${t.header[runCol]} column`); });
    } else if (!DATE.test(runText)) problems.push(`${where}: no date in its run line`);
    if (loadCol < 0 && !LOAD.test(runText)) problems.push(`${where}: no load in its run line`);
    const commitInRows = runCol >= 0 && t.rows.every((r) => COMMIT.test(r[runCol] ?? ''));
    if (!commitInRows && !COMMIT.test(runText)) problems.push(`${where}: no commit (or "commit not recorded") in its run line`);
  }

  // A separator row right under a line that is not a table row: the table lost its header (markdown then renders
  // the rows as text).
  let inFence = false;
  lines.forEach((line, k) => {
    if (/^(```|~~~)/.test(line)) inFence = !inFence;
    if (!inFence && /^\|[\s:|-]+\|\s*$/.test(line) && line.includes('-') && !(lines[k - 1] ?? '').startsWith('|')) problems.push(`line ${k + 1}: a table with no header row`);
  });

  const { judge, reader } = models;
  lines.forEach((raw, k) => {
    const at = `line ${k + 1}`;
    const line = raw
      .replace(/\]\([^)]*\)/g, ']') // link targets: decision file names carry old version numbers
      .replace(THIRD_PARTY_NAMES, ''); // other people's version numbers
    for (const m of line.matchAll(/\b([a-z]+(?:-[a-z]+)*)-v(\d+)\b/g)) {
      const [name, prefix, n] = m;
      if (prefix === judge.prefix && Number(n) !== judge.version) problems.push(`${at}: names ${name}, not the current ${judge.prefix}-v${judge.version}`);
      if (prefix === reader.prefix && Number(n) !== reader.version) problems.push(`${at}: names ${name}, not the current ${reader.prefix}-v${reader.version}`);
    }
    for (const m of line.matchAll(/\bv(\d+)\b/gi)) {
      const n = Number(m[1]);
      const before = line.slice(0, m.index);
      if (n === judge.version) continue;
      if (n === reader.version && /reader\s+$/i.test(before)) continue;
      if (before.endsWith(`${reader.prefix}-`)) continue; // checked above
      problems.push(`${at}: names judge version ${m[0]} (the current rule judge is v${judge.version}, the reader v${reader.version})`);
    }
    for (const re of HISTORY_PHRASES) {
      const m = line.match(re);
      if (m) problems.push(`${at}: history wording "${m[0]}"`);
    }
  });
  return problems;
}

const MODELS: CurrentModels = {
  judge: modelConstant('libs/forensics/src/offline-judge/offline-judge.ts', 'OFFLINE_JUDGE_MODEL'),
  reader: modelConstant('libs/forensics/src/reader/reader.features.ts', 'READER_JUDGE_MODEL'),
};

describe('docs/results.md holds the latest run of each measure', () => {
  it('reads the current model names from the source', () => {
    expect(MODELS.judge.prefix).toBe('offline-evidence');
    expect(MODELS.reader.prefix).toBe('reader-minilm');
  });

  it('has a date, load and commit for every table, names no superseded judge, carries no history', () => {
    const markdown = readFileSync(resolve(ROOT, 'docs/results.md'), 'utf8');
    expect(resultsDocProblems(markdown, MODELS)).toEqual([]);
  });

  describe('the checker', () => {
    const j = MODELS.judge.version;
    const ok = (body: string) => resultsDocProblems(body, MODELS);
    const table = '| a | b |\n|---|---|\n| 1 | 2 |\n';

    it('accepts a table whose run line has a date, a load and a commit', () => {
      expect(ok(`## X\n\n\`cmd\`, 2026-11-28 20:38 UTC, load ~2, commit 155d227.\n\n${table}`)).toEqual([]);
      expect(ok(`## X\n\n${table}\nMeasured 2026-11-28, load 2, commit not recorded.\n`)).toEqual([]);
      expect(ok(`## X\n\n| date | load | x |\n|---|---|---|\n| 2026-12-01 | 5 | 1 |\n\nCommit f9942e9.\n`)).toEqual([]);
    });

    it('flags a table without a date, a load or a commit', () => {
      expect(ok(`## X\n\n\`cmd\`, load ~2, commit 155d227.\n\n${table}`)).toEqual([expect.stringContaining('no date')]);
      expect(ok(`## X\n\n\`cmd\`, 2026-11-28, commit 155d227.\n\n${table}`)).toEqual([expect.stringContaining('no load')]);
      expect(ok(`## X\n\n\`cmd\`, 2026-11-28, load 2.\n\n${table}`)).toEqual([expect.stringContaining('no commit')]);
      expect(ok(`## X\n\nload 2, 155d227\n\n| run | x |\n|---|---|\n| 2026-11-28, 7003e33 | 1 |\n| 7003e33 | 2 |\n`))
        .toEqual([expect.stringContaining('row 2 has no date')]);
    });

    it('flags a table that lost its header row', () => {
      expect(ok(`## X\n\n\`cmd\`, 2026-11-28, load 2, commit 155d227.\n\n|---|---|\n| 1 | 2 |\n`)).toEqual([expect.stringContaining('no header row')]);
    });

    it('flags a superseded judge version in a cell or a paragraph, not the current ones or a link target', () => {
      const run = '2026-11-28, load 2, commit 155d227';
      expect(ok(`${run}: judge v${j}, \`offline-evidence-v${j}\`, reader v${MODELS.reader.version} (\`${MODELS.reader.prefix}-v${MODELS.reader.version}\`), [0370](decisions/0370-judge-v28-x.md)\n`)).toEqual([]);
      expect(ok(`${run}\n\n| judge | x |\n|---|---|\n| v${j - 1} | 1 |\n`)).toEqual([expect.stringContaining(`v${j - 1}`)]);
      expect(ok(`judge \`offline-evidence-v${j - 2}\` read the same\n`).length).toBeGreaterThan(0);
      expect(ok(`\`${MODELS.reader.prefix}-v${MODELS.reader.version + 1}\`\n`).length).toBeGreaterThan(0);
      // The LLM judge's prompts are not judge versions.
      expect(ok(`${run}: prompts \`rf-v1\`, \`rf-v1-quote\` and \`rf-v2\` on judge v${j}\n`)).toEqual([]);
    });

    it('flags the wording of history', () => {
      for (const s of [
        `judge v${j} before the quoting fix read the same row`,
        '**Superseded in part:** the judge is now newer',
        '`BAND_WITHHOLD=event` (the default until decision 0310)',
        'An earlier run of the same test',
        'the p50 was 20 ms, now 9 ms',
      ]) expect(ok(`${s}\n`).length).toBeGreaterThan(0);
      expect(ok('Hit@5 before the report → after; the corpus as it stood before the attack\n')).toEqual([]);
    });
  });
});
