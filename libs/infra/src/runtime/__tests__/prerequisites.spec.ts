import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { findOnPath, MissingPrerequisiteError, requireEmbeddedPrerequisites, startupFailureLine } from '../prerequisites';

describe('prerequisites of the embedded defaults', () => {
  let dir: string;
  let empty: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'prereq-bin-'));
    empty = mkdtempSync(join(tmpdir(), 'prereq-empty-'));
    writeFileSync(join(dir, 'redis-server'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(dir, 'redis-server'), 0o755);
    writeFileSync(join(dir, 'not-executable'), 'x');
    chmodSync(join(dir, 'not-executable'), 0o644);
  });
  afterAll(() => { rmSync(dir, { recursive: true, force: true }); rmSync(empty, { recursive: true, force: true }); });

  it('finds an executable on PATH, as `command -v` does, and skips non-executables', () => {
    expect(findOnPath('redis-server', [empty, dir].join(delimiter))).toBe(join(dir, 'redis-server'));
    expect(findOnPath('redis-server', empty)).toBeNull();
    expect(findOnPath('not-executable', dir)).toBeNull();
    expect(findOnPath('redis-server', '')).toBeNull();
  });

  it('without redis-server and without REDIS_URL: one line naming the package and the install command', () => {
    let err: unknown;
    try { requireEmbeddedPrerequisites({}, empty); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(MissingPrerequisiteError);
    const line = startupFailureLine('demo failed', err);
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toContain('redis-server');
    expect(line).toContain('apt-get install -y redis-server');
    expect(line).toContain('REDIS_URL');
  });

  it('needs nothing when REDIS_URL names a Redis, or when redis-server is on PATH', () => {
    expect(() => requireEmbeddedPrerequisites({ redisUrl: 'redis://127.0.0.1:6379' }, empty)).not.toThrow();
    expect(() => requireEmbeddedPrerequisites({}, dir)).not.toThrow();
  });

  it('other startup failures keep their prefix', () => {
    expect(startupFailureLine('api failed to start', new Error('port in use'))).toBe('api failed to start: port in use');
  });
});
