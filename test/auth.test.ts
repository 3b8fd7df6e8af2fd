/**
 * Users, roles and API keys (issue 11) on the real service: keys created through the admin API
 * and the CLI (spawned), stored only as a keyed hash with a visible prefix, roles enforced on every
 * endpoint, revocation and disabling take effect at once, lastUsedAt written at most once a minute,
 * audit records name the user and key id (never the key).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { QuarantineEvidence } from '@forensics/core';
import { createTestApp, type TestApp } from './support/test-app';
import { ROOT, TEST_API_KEY, uniqueName } from './support/test-runtime';

const EVIDENCE: QuarantineEvidence = {
  policy: { name: 'corroborated', decision: 'REVIEW', withhold: true, reason: 'test', inputs: {} },
  judge: { kind: 'scripted', model: 'm', promptVersion: 'v1', label: 'YES', reply: '[Label: Yes]', signals: null },
  retrieval: null,
  retrieverEvidence: null,
};

/** Runs `npm run keys -- …` (as `node --import tsx apps/cli/src/keys.ts …`) against the app's database and data dir. */
function keysCli(app: TestApp, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps/cli/src/keys.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: app.config.databaseUrl!, DATA_DIR: app.dataDir, API_KEYS: TEST_API_KEY, NODE_ENV: 'test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += String(d); });
    child.stderr.on('data', (d) => { stderr += String(d); });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('users, roles and API keys', () => {
  let app: TestApp;
  const collection = uniqueName('auth');
  const call = async (method: string, path: string, key: string | null, body?: unknown) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key) headers['x-api-key'] = key;
    const res = await fetch(app.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
  };
  const admin = (method: string, path: string, body?: unknown) => call(method, path, TEST_API_KEY, body);
  const newKey = async (body: Record<string, unknown>) => {
    const r = await admin('POST', '/v1/admin/keys', body);
    expect(r.status).toBe(201);
    return r.body as { id: string; key: string; prefix: string; name: string; role: string | null; scopes: string[] };
  };
  let docIds: string[] = [];
  /** A NEEDS_REVIEW record of one of the collection's texts. */
  const reviewItem = async (i: number) => (await app.repos.quarantines.create({
    state: 'NEEDS_REVIEW', documentId: docIds[i], feedbackId: null, collection, reason: 'test', evidence: EVIDENCE, policy: 'corroborated', createdBy: 'test',
  })).record;

  beforeAll(async () => {
    app = await createTestApp({ api: true });
    const r = await admin('POST', `/v1/collections/${collection}/documents`, { documents: ['alpha text one', 'beta text two', 'gamma text three'].map((text, i) => ({ id: `d${i}`, text })) });
    expect(r.status).toBe(200);
    docIds = (await app.prisma.document.findMany({ where: { collection }, orderBy: { externalId: 'asc' } })).map((d) => d.id);
  });
  afterAll(async () => { await app?.close(); });

  it('a key created through the API is shown once, stored only as a keyed hash with its prefix visible', async () => {
    const name = uniqueName('alice');
    const k = await newKey({ name, role: 'reviewer' });
    expect(k.key).toMatch(/^rfk_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/);
    expect(k.key.startsWith(`${k.prefix}_`)).toBe(true);
    expect(k).toMatchObject({ name, role: 'reviewer', kind: 'user', scopes: [] });
    const row = await app.prisma.apiKey.findUniqueOrThrow({ where: { id: k.id } });
    expect(row.prefix).toBe(k.prefix);
    expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
    // The key is nowhere in the row, the audit log or the listing.
    const secretPart = k.key.slice(k.prefix.length + 1);
    expect(JSON.stringify(row)).not.toContain(secretPart);
    const audit = await app.prisma.auditLog.findMany({ where: { entityType: 'ApiKey', entityId: k.id } });
    expect(audit.map((a) => a.action)).toEqual(['key.created']);
    expect(audit[0].actor).toMatch(/^bootstrap-admin key:env-[0-9a-f]{8}$/);
    expect(JSON.stringify(audit.map(({ id: _id, ...a }) => a))).not.toContain(secretPart);
    const list = await admin('GET', '/v1/admin/keys');
    expect(list.status).toBe(200);
    const listed = list.body.items.find((x: { id: string }) => x.id === k.id);
    expect(listed).toMatchObject({ prefix: k.prefix, name, role: 'reviewer', revokedAt: null });
    expect(JSON.stringify(list.body)).not.toContain(secretPart);
    expect(listed.hash).toBeUndefined();
    // The key works, and says who it is.
    const me = await call('GET', '/v1/session/me', k.key);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ name: `user:${name}`, role: 'reviewer', scopes: [], permissions: ['decide', 'read'], keyId: k.id, via: 'api-key' });
  });

  it('roles: a viewer cannot decide, a reviewer can (and the audit names user and key), a reviewer cannot manage', async () => {
    const viewer = await newKey({ name: uniqueName('vic'), role: 'viewer' });
    const reviewerName = uniqueName('rita');
    const reviewer = await newKey({ name: reviewerName, role: 'reviewer' });
    const item = await reviewItem(0);
    expect((await call('GET', '/v1/quarantine?state=NEEDS_REVIEW', viewer.key)).status).toBe(200);
    const refused = await call('POST', `/v1/quarantine/${item.id}/approve`, viewer.key, {});
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('decide');
    expect((await app.repos.quarantines.get(item.id))!.state).toBe('NEEDS_REVIEW');
    const ok = await call('POST', `/v1/quarantine/${item.id}/approve`, reviewer.key, { note: 'confirmed' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ state: 'QUARANTINED', resolvedBy: `user:${reviewerName} key:${reviewer.id}` });
    const audit = await app.repos.audit.listFor('QuarantineRecord', item.id);
    expect(audit.map((a) => a.actor)).toContain(`user:${reviewerName} key:${reviewer.id}`);
    for (const [method, path, body] of [['GET', '/v1/admin/keys'], ['POST', '/v1/admin/keys', { name: 'x', role: 'admin' }], ['GET', '/v1/admin/users'], ['POST', '/v1/admin/users', { name: 'y', role: 'viewer' }]] as const) {
      const r = await call(method, path, reviewer.key, body);
      expect([path, r.status]).toEqual([path, 403]);
      expect(r.body.message).toContain('manage');
    }
    expect(await app.prisma.user.findUnique({ where: { name: 'y' } })).toBeNull();
  });

  it('service keys carry scopes: ingest may ingest, not read the quarantine; a console login is refused', async () => {
    const svc = await newKey({ name: uniqueName('rag-backend'), scopes: ['ingest', 'feedback'] });
    expect(svc).toMatchObject({ kind: 'service', role: null, scopes: ['ingest', 'feedback'] });
    expect((await call('POST', `/v1/collections/${collection}/documents`, svc.key, { documents: [{ text: 'delta text four' }] })).status).toBe(200);
    expect((await call('GET', '/v1/quarantine', svc.key)).status).toBe(403);
    const me = await call('GET', '/v1/session/me', svc.key);
    expect(me.body).toMatchObject({ name: `service:${svc.name}`, role: null, scopes: ['ingest', 'feedback'], permissions: ['feedback', 'ingest'] });
    expect((await call('POST', '/v1/session', null, { key: svc.key })).status).toBe(403);
  });

  it('a revoked key and a disabled user get 401 at once, with a clear message', async () => {
    const name = uniqueName('rex');
    const k = await newKey({ name, role: 'reviewer' });
    expect((await call('GET', '/v1/session/me', k.key)).status).toBe(200);
    const revoked = await admin('POST', `/v1/admin/keys/${k.prefix}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    const r = await call('GET', '/v1/session/me', k.key);
    expect(r.status).toBe(401);
    expect(r.body.message).toBe(`API key ${k.prefix} was revoked`);
    const audit = await app.prisma.auditLog.findMany({ where: { entityType: 'ApiKey', entityId: k.id }, orderBy: { id: 'asc' } });
    expect(audit.map((a) => a.action)).toEqual(['key.created', 'key.revoked']);
    // Revoking twice changes nothing.
    expect((await admin('POST', `/v1/admin/keys/${k.id}/revoke`)).status).toBe(200);
    expect(await app.prisma.auditLog.count({ where: { entityType: 'ApiKey', entityId: k.id } })).toBe(2);

    const k2 = await newKey({ name, role: 'reviewer' }); // a second key of the same user
    expect((await call('GET', '/v1/session/me', k2.key)).status).toBe(200);
    expect((await admin('POST', `/v1/admin/users/${name}/disable`)).status).toBe(200);
    const d = await call('GET', '/v1/session/me', k2.key);
    expect(d.status).toBe(401);
    expect(d.body.message).toBe(`user ${name} is disabled`);
    // A wrong key with a real prefix, and garbage.
    expect((await call('GET', '/v1/session/me', `${k2.prefix}_${'A'.repeat(43)}`)).body.message).toBe('invalid API key');
    expect((await call('GET', '/v1/session/me', 'nonsense')).status).toBe(401);
  });

  it('lastUsedAt is written on use, at most once a minute', async () => {
    const k = await newKey({ name: uniqueName('lu'), role: 'viewer' });
    expect((await app.prisma.apiKey.findUniqueOrThrow({ where: { id: k.id } })).lastUsedAt).toBeNull();
    expect((await call('GET', '/v1/session/me', k.key)).status).toBe(200);
    const first = (await app.prisma.apiKey.findUniqueOrThrow({ where: { id: k.id } })).lastUsedAt;
    expect(first).toBeInstanceOf(Date);
    expect(Date.now() - first!.getTime()).toBeLessThan(30_000);
    expect((await call('GET', '/v1/session/me', k.key)).status).toBe(200);
    expect((await app.prisma.apiKey.findUniqueOrThrow({ where: { id: k.id } })).lastUsedAt).toEqual(first);
    // Two minutes later (moved back in the database) the next use writes again.
    const old = new Date(first!.getTime() - 120_000);
    await app.prisma.apiKey.update({ where: { id: k.id }, data: { lastUsedAt: old } });
    expect((await call('GET', '/v1/session/me', k.key)).status).toBe(200);
    expect((await app.prisma.apiKey.findUniqueOrThrow({ where: { id: k.id } })).lastUsedAt!.getTime()).toBeGreaterThan(first!.getTime() - 1000);
  });

  it('bad admin input is a 400 naming the field; a user with another role is a 409', async () => {
    const r = await admin('POST', '/v1/admin/keys', { name: 'bad name!', role: 'boss' });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('name must be');
    expect(r.body.message).toContain('role must be one of admin, reviewer, viewer');
    expect((await admin('POST', '/v1/admin/keys', { name: 'x', role: 'viewer', scopes: ['ingest'] })).status).toBe(400);
    const name = uniqueName('dup');
    expect((await admin('POST', '/v1/admin/users', { name, role: 'viewer' })).status).toBe(201);
    expect((await admin('POST', '/v1/admin/users', { name, role: 'viewer' })).status).toBe(409);
    const c = await admin('POST', '/v1/admin/keys', { name, role: 'admin' });
    expect(c.status).toBe(409);
    expect(c.body.message).toBe(`user ${name} exists with role viewer, not admin`);
  });

  it('CLI: create ends with one JSON line whose key works; list shows the prefix; revoke by prefix → 401', async () => {
    const name = uniqueName('cli');
    const created = await keysCli(app, ['create', '--name', name, '--role', 'reviewer']);
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split('\n');
    const out = JSON.parse(lines[lines.length - 1]);
    expect(Object.keys(out)).toEqual(['name', 'role', 'prefix', 'key']);
    expect(out).toMatchObject({ name, role: 'reviewer' });
    expect(out.key.startsWith(`${out.prefix}_`)).toBe(true);
    expect(created.stderr).not.toContain(out.key);
    const me = await call('GET', '/v1/session/me', out.key);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ name: `user:${name}`, role: 'reviewer' });
    const audit = await app.prisma.auditLog.findFirstOrThrow({ where: { action: 'key.created', details: { path: ['prefix'], equals: out.prefix } } });
    expect(audit.actor).toMatch(/^cli:/);

    const svc = await keysCli(app, ['create', '--name', `${name}-svc`, '--scopes', 'ingest,feedback']);
    expect(svc.code).toBe(0);
    const svcOut = JSON.parse(svc.stdout.trim().split('\n').pop()!);
    expect(svcOut).toMatchObject({ name: `${name}-svc`, role: null, scopes: ['ingest', 'feedback'] });

    const list = await keysCli(app, ['list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(out.prefix);
    expect(list.stdout).not.toContain(out.key);

    const revoked = await keysCli(app, ['revoke', out.prefix]);
    expect(revoked.code).toBe(0);
    expect((await call('GET', '/v1/session/me', out.key)).status).toBe(401);
    const bad = await keysCli(app, ['create', '--name', name]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('send either role');
  }, 240_000); // five CLI processes, each booting the infrastructure (slow on a loaded machine)
});
