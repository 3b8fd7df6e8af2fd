/**
 * Code blocks of a docs page, for the tests that execute the page. A fenced block is either run by
 * a test — preceded by `<!-- run: NAME -->` (integrate.md) or `<!-- test: NAME -->` (vector-stores.md)
 * — or labelled `<!-- illustrative: why -->` (configuration shown, not a program). `fencedBlocks`
 * lists every block with its label, so a test can fail on an unlabelled one.
 */
export interface FencedBlock {
  /** The fence's info string (`ts`, `bash`, `sql`, `html`, …). */
  lang: string;
  body: string;
  /** `run: NAME`, `test: NAME` or `illustrative: …`; null when the block has no marker. */
  label: string | null;
  /** 1-based line of the opening fence. */
  line: number;
}

/** Every fenced block of a markdown page, with the HTML comment on the line right above it (blank lines between allowed). */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split('\n');
  const out: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)/.exec(lines[i]!);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    let j = i - 1;
    while (j >= 0 && lines[j]!.trim() === '') j--;
    const marker = j >= 0 ? /^<!-- ((?:run|test|illustrative): ?.*?) -->$/.exec(lines[j]!.trim()) : null;
    out.push({ lang: open[1]!, body: lines.slice(i + 1, end).join('\n') + '\n', label: marker ? marker[1]! : null, line: i + 1 });
    i = end;
  }
  return out;
}

/** The page's blocks marked `<!-- run: NAME -->` (or `test:`), by name. */
export function namedBlocks(markdown: string, kind: 'run' | 'test' = 'run'): Map<string, FencedBlock> {
  const out = new Map<string, FencedBlock>();
  for (const b of fencedBlocks(markdown)) {
    const m = b.label && new RegExp(`^${kind}: ([a-z0-9-]+)$`).exec(b.label);
    if (m) out.set(m[1]!, b);
  }
  return out;
}
