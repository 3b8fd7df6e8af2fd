/**
 * The longest functions under a folder, by lines from the first of the function to its last (the
 * TypeScript compiler's own parse: declarations, methods, arrow functions and function expressions,
 * nested ones counted on their own as well as inside their parent). Tests (`__tests__/`, *.spec.ts,
 * *.test.ts) are left out.
 *
 *   npx tsx scripts/function-lengths.ts libs/core/src/use-cases/traceback [--top 15] [--max 60]
 *
 * Prints one line a function, longest first; with --max, exits 1 when one is longer.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

interface Fn { file: string; name: string; line: number; lines: number }

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return n === '__tests__' || n === 'node_modules' ? [] : files(p);
    return /\.ts$/.test(n) && !/\.(spec|test)\.ts$/.test(n) && !/\.d\.ts$/.test(n) ? [p] : [];
  });
}

function nameOf(node: ts.Node, sf: ts.SourceFile): string {
  const named = (node as { name?: ts.Node }).name;
  if (named) return named.getText(sf);
  const p = node.parent;
  if (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) return p.name.getText(sf);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '(anonymous)';
}

function functionsOf(file: string): Fn[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: Fn[] = [];
  const visit = (node: ts.Node, owner: string) => {
    let inner = owner;
    if (ts.isClassDeclaration(node) && node.name) inner = node.name.text;
    if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)
      || ts.isConstructorDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = nameOf(node, sf);
      out.push({ file, name: owner ? `${owner}.${name}` : name, line: start + 1, lines: end - start + 1 });
      inner = owner ? `${owner}.${name}` : name;
    }
    ts.forEachChild(node, (c) => visit(c, inner));
  };
  visit(sf, '');
  return out;
}

const args = process.argv.slice(2);
const flag = (f: string) => { const i = args.indexOf(f); return i >= 0 ? Number(args.splice(i, 2)[1]) : undefined; };
const top = flag('--top') ?? 15;
const max = flag('--max');
const dir = args[0];
if (!dir) { process.stderr.write('usage: npx tsx scripts/function-lengths.ts DIR [--top N] [--max LINES]\n'); process.exit(2); }
const all = files(dir).flatMap(functionsOf).sort((a, b) => b.lines - a.lines);
for (const f of all.slice(0, top)) process.stdout.write(`${String(f.lines).padStart(4)}  ${relative(process.cwd(), f.file)}:${f.line}  ${f.name}\n`);
const over = max === undefined ? [] : all.filter((f) => f.lines > max);
if (over.length) { process.stderr.write(`${over.length} function(s) over ${max} lines\n`); process.exit(1); }
