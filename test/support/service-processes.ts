/**
 * The processes a local run of the service left on the machine, found through /proc (Linux) by the
 * data dir they were started with: a node process of the service has DATA_DIR in its environment,
 * redis-server and PostgreSQL (postmaster and backends alike, whose command lines are rewritten)
 * have their working directory under it. Zombies are dead already and are not counted.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface LeftProcess { pid: number; cmd: string }

function read(file: string): string {
  try { return readFileSync(file, 'latin1'); } catch { return ''; }
}

/** Alive and not a zombie (field 3 of stat, after the parenthesised command, which may itself hold parentheses). */
export function running(pid: number): boolean {
  const stat = read(`/proc/${pid}/stat`);
  return stat !== '' && !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}

export function processesOf(dataDir: string, except: readonly number[] = []): LeftProcess[] {
  const found: LeftProcess[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid || except.includes(pid)) continue;
    if (!running(pid)) continue;
    let cwd = '';
    try { cwd = readlinkSync(`/proc/${pid}/cwd`); } catch { /* gone, or not ours to read */ }
    const cmd = read(`/proc/${pid}/cmdline`).replace(/[\0\s]+/g, ' ').trim();
    if (cwd.startsWith(dataDir) || cmd.includes(dataDir) || read(`/proc/${pid}/environ`).includes(dataDir)) found.push({ pid, cmd });
  }
  return found;
}
