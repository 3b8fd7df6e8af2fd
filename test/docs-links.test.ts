/**
 * Every relative link in README.md and docs/**\/*.md resolves: the file exists, and a `#fragment`
 * names a heading of the target page (GitHub's anchor rule: lower case, punctuation dropped, spaces
 * to hyphens, a repeated heading gets -1, -2 …). Links inside code (fenced blocks, `spans`) are not
 * links; http(s) and mailto links are not checked (no network in tests).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');

function markdownFiles(): string[] {
  const out = [join(ROOT, 'README.md')];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.md')) out.push(p);
    }
  };
  walk(join(ROOT, 'docs'));
  return out;
}

/** The text outside fenced code blocks and inline code spans. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

export function slug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text
    .replace(/[`*_~]/g, (c) => (c === '_' ? '_' : '')) // emphasis and code marks
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\p{M}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

interface Link { from: string; target: string }

function relativeLinks(file: string): Link[] {
  const links: Link[] = [];
  for (const m of prose(readFileSync(file, 'utf8')).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    links.push({ from: file, target });
  }
  return links;
}

function problem({ from, target }: Link): string | null {
  const [path, fragment] = target.split('#', 2) as [string, string | undefined];
  const file = path ? resolve(dirname(from), decodeURIComponent(path)) : from;
  if (!existsSync(file)) return `${relative(ROOT, from)}: ${target} — no file ${relative(ROOT, file)}`;
  if (fragment === undefined || fragment === '') return null;
  if (!file.endsWith('.md')) return null;
  if (!anchorsOf(readFileSync(file, 'utf8')).has(decodeURIComponent(fragment).toLowerCase())) {
    return `${relative(ROOT, from)}: ${target} — no heading #${fragment} in ${relative(ROOT, file)}`;
  }
  return null;
}

describe('relative links in README.md and docs/', () => {
  it('the anchor rule matches GitHub on the shapes our headings take', () => {
    expect(slug('Quick start')).toBe('quick-start');
    expect(slug('1. Start the service')).toBe('1-start-the-service');
    expect(slug('Offline judge (attacks), leave one file out')).toBe('offline-judge-attacks-leave-one-file-out');
    expect(slug('Judges, embedders and generators')).toBe('judges-embedders-and-generators');
    expect(slug('Using `real` services & an LLM')).toBe('using-real-services--an-llm');
    expect([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n')]).toEqual(['a', 'a-1']);
  });

  it('finds the pages and their links', () => {
    const files = markdownFiles();
    expect(files.length).toBeGreaterThan(5);
    expect(files.flatMap(relativeLinks).length).toBeGreaterThan(50);
  });

  it('every relative link resolves to a file and, with #fragment, to a heading', () => {
    const problems = markdownFiles().flatMap(relativeLinks).map(problem).filter((p): p is string => p !== null);
    expect(problems).toEqual([]);
  });
});
