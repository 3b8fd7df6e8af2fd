import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Programs the embedded defaults need from the machine (not from npm), and the one line a user sees
 * when one is missing: what is missing, the Debian package that provides it, the command that
 * installs it, and the alternative. Checked by every entry point before anything starts, so a fresh
 * machine gets that line instead of a half-started service and a stack trace.
 */
export class MissingPrerequisiteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MissingPrerequisiteError';
  }
}

/** The first executable `name` on PATH (as the shell's `command -v` finds it), or null. */
export function findOnPath(name: string, pathEnv: string | undefined = process.env.PATH): string | null {
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch { /* not here */ }
  }
  return null;
}

export const REDIS_SERVER_MISSING =
  'redis-server not found on PATH: install the Debian package redis-server (sudo apt-get install -y redis-server), or set REDIS_URL to a running Redis';

/** The embedded Redis needs `redis-server` unless REDIS_URL names a running one. */
export function requireEmbeddedPrerequisites(config: { redisUrl?: string | null }, pathEnv?: string): void {
  if (!config.redisUrl && !findOnPath('redis-server', pathEnv)) throw new MissingPrerequisiteError(REDIS_SERVER_MISSING);
}

/** The one line an entry point prints for a startup failure: a missing prerequisite without a stack. */
export function startupFailureLine(prefix: string, e: unknown): string {
  if (e instanceof MissingPrerequisiteError) return e.message;
  return `${prefix}: ${e instanceof Error ? e.message : String(e)}`;
}
