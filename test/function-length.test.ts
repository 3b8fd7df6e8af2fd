/**
 * Issue 55: no function in libs/core/src/use-cases/traceback/ is longer than 60 lines, so the traceback stays readable
 * as its steps (scripts/function-lengths.ts measures with TypeScript's own parse). The bound bites: the same folder
 * measured against a bound it does not meet fails, naming how many functions are over. Needs no services.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');

function lengths(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/function-lengths.ts', 'libs/core/src/use-cases/traceback', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('function lengths in the traceback (issue 55)', () => {
  it('none is over 60 lines', () => {
    const r = lengths('--max', '60', '--top', '3');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // Longest first: the first row's count is the folder's longest function.
    const longest = Number(r.stdout.trim().split('\n')[0]!.trim().split(/\s+/)[0]);
    expect(longest).toBeGreaterThan(10);
    expect(longest).toBeLessThanOrEqual(60);
  }, 90_000);

  it('a bound the folder does not meet fails', () => {
    const r = lengths('--max', '10', '--top', '1');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^\d+ function\(s\) over 10 lines\n$/);
  }, 90_000);
});
