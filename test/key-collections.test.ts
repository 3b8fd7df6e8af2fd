/**
 * Keys limited to collections (issue 56, item 7b), on the real service (HTTP, Postgres, Redis): a service key created
 * with `collections` may address those collections only, on every endpoint a service key can call.
 *
 * - a collection the request names (path, body, or the default one when the body names none) outside the key's list:
 *   403 with a message naming the key's collections, and nothing written (documents, collections, events, answers,
 *   enhancements, audit entries);
 * - an event addressed by id (GET /v1/feedback/:id, POST /v1/feedback/:id/correct-answer) of another collection: 404
 *   with the very message of an event that does not exist (existence is not told across collections);
 * - GET /v1/collections lists the key's own collections only; /v1/session/me and the key listing show the list;
 *   key.created records it. Keys without `collections`, user keys and the bootstrap key reach every collection.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createTestApp, type TestApp } from './support/test-app';
import { ROOT, TEST_API_KEY, uniqueName } from './support/test-runtime';

type Json = Record<string, any>;

describe('keys limited to collections (issue 56, item 7b)', () => {
  let t: TestApp;
  const mine = uniqueName('scope-mine');
  const theirs = uniqueName('scope-theirs');
  const fresh = uniqueName('scope-fresh'); // in the key's list, not yet a collection: an ingest key may create it
  const unborn = uniqueName('scope-unborn'); // in nobody's list, never created
  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(t.url + path, { method, headers: { 'content-type': 'application/json', 'x-api-key': key }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let parsed: Json = {};
    try { parsed = text ? JSON.parse(text) as Json : {}; } catch { /* not JSON */ }
    return { status: res.status, body: parsed };
  };
  const admin = (method: string, path: string, body?: unknown) => call(method, path, TEST_API_KEY, body);
  let scoped: { id: string; key: string; prefix: string; collections: string[] | null };
  let unscoped: { id: string; key: string };
  const ids: Record<string, string[]> = {};
  let theirEvent = '';

  /** Everything a request could have written in `theirs` (or `unborn`), and every audit entry by the scoped key. */
  const writes = async () => ({
    collections: await t.prisma.collection.count({ where: { name: { in: [theirs, unborn] } } }),
    documents: await t.prisma.document.count({ where: { collection: { in: [theirs, unborn] } } }),
    events: await t.prisma.feedbackEvent.count({ where: { collection: { in: [theirs, unborn] } } }),
    answers: await t.prisma.answer.count({ where: { collection: { in: [theirs, unborn] } } }),
    enhancements: await t.prisma.enhancement.count({ where: { collection: { in: [theirs, unborn] } } }),
    theirEvent: JSON.stringify(await t.prisma.feedbackEvent.findUnique({ where: { id: theirEvent } })),
    audits: await t.prisma.auditLog.count({ where: { actor: { contains: scoped.id } } }),
  });
  const refused = (r: { status: number; body: Json }, collection: string) => {
    expect([r.status, r.body.message]).toEqual([403, `this key is limited to the collections ${mine}, ${fresh}: collection '${collection}' is not one of them`]);
  };

  beforeAll(async () => {
    t = await createTestApp({ api: true, env: { DEFAULT_COLLECTION: unborn } });
    for (const c of [mine, theirs]) {
      const r = await admin('POST', `/v1/collections/${c}/documents`, { documents: [
        { id: 'melville', text: 'Moby-Dick is an 1851 novel by the American writer Herman Melville.' },
        { id: 'dickens', text: 'The novel Moby-Dick was written by Charles Dickens in 1851.' },
      ] });
      expect(r.status).toBe(200);
      ids[c] = (await t.prisma.document.findMany({ where: { collection: c }, orderBy: { externalId: 'asc' } })).map((d) => d.id);
    }
    const k = await admin('POST', '/v1/admin/keys', { name: uniqueName('scoped'), scopes: ['ingest', 'feedback', 'answers'], collections: [mine, fresh, mine] });
    expect(k.status).toBe(201);
    scoped = k.body as typeof scoped;
    const u = await admin('POST', '/v1/admin/keys', { name: uniqueName('unscoped'), scopes: ['ingest', 'feedback', 'answers'] });
    expect(u.status).toBe(201);
    unscoped = u.body as typeof unscoped;
    const e = await admin('POST', '/v1/feedback', { collection: theirs, query: 'who wrote moby dick', wrongAnswer: 'Charles Dickens', servedIds: ids[theirs] });
    expect(e.status).toBe(202);
    theirEvent = e.body.id;
  }, 120_000);
  afterAll(async () => { await t?.close(); });

  it('is created with its collections (deduplicated), listed and audited with them; /me shows them', async () => {
    expect(scoped.collections).toEqual([mine, fresh]);
    expect((unscoped as Json).collections).toBeNull();
    const listed = (await admin('GET', '/v1/admin/keys')).body.items as Json[];
    expect(listed.find((x) => x.id === scoped.id)).toMatchObject({ kind: 'service', collections: [mine, fresh] });
    expect(listed.find((x) => x.id === unscoped.id)).toMatchObject({ collections: null });
    const audit = await t.prisma.auditLog.findFirstOrThrow({ where: { action: 'key.created', entityId: scoped.id } });
    expect(audit.details).toMatchObject({ scopes: ['ingest', 'feedback', 'answers'], collections: [mine, fresh] });
    expect((await t.prisma.auditLog.findFirstOrThrow({ where: { action: 'key.created', entityId: unscoped.id } })).details).toMatchObject({ collections: null });
    expect((await call('GET', '/v1/session/me', scoped.key)).body).toMatchObject({ collections: [mine, fresh] });
    expect((await call('GET', '/v1/session/me', unscoped.key)).body).toMatchObject({ collections: null });
    expect((await admin('GET', '/v1/session/me')).body).toMatchObject({ collections: null });
  });

  it('refuses bad collections at creation (400), and collections on a user key', async () => {
    const bad = async (collections: unknown, extra: Json = { scopes: ['ingest'] }) => {
      const r = await admin('POST', '/v1/admin/keys', { name: uniqueName('bad'), ...extra, collections });
      expect({ collections, status: r.status }).toEqual({ collections, status: 400 });
      return r.body.message as string;
    };
    expect(await bad([])).toContain('non-empty list of collection names');
    expect(await bad('kb')).toContain('non-empty list of collection names');
    expect(await bad(['kb/../x'])).toContain('collection names');
    expect(await bad(['a'.repeat(65)])).toContain('collection names');
    expect(await bad([''])).toContain('collection names');
    expect(await bad([7])).toContain('collection names');
    expect(await bad(['kb', 'KB'])).toContain('differ only in case');
    expect(await bad(['kb'], { role: 'viewer' })).toContain("a user key's reach is its role's");
    expect(await t.prisma.apiKey.count({ where: { name: { startsWith: 'bad' }, collections: { has: 'kb' } } })).toBe(0);
  });

  it('ingest: its own collections (an existing one and a new one), never another', async () => {
    const docs = { documents: [{ text: 'The capital of France is Berlin.' }] };
    expect((await call('POST', `/v1/collections/${mine}/documents`, scoped.key, docs)).status).toBe(200);
    expect((await call('POST', `/v1/collections/${fresh}/documents`, scoped.key, docs)).status).toBe(200);
    expect((await call('GET', `/v1/collections/${mine}`, scoped.key)).status).toBe(200);
    const before = await writes();
    refused(await call('POST', `/v1/collections/${theirs}/documents`, scoped.key, docs), theirs);
    refused(await call('POST', `/v1/collections/${unborn}/documents`, scoped.key, docs), unborn);
    refused(await call('GET', `/v1/collections/${theirs}`, scoped.key), theirs);
    // Another spelling of its own collection is another name.
    refused(await call('POST', `/v1/collections/${mine.toUpperCase()}/documents`, scoped.key, docs), mine.toUpperCase());
    expect(await writes()).toEqual(before);
    // The listing shows its own collections only; other keys see every one.
    const names = ((await call('GET', '/v1/collections', scoped.key)).body.items as Json[]).map((c) => c.name);
    expect(names.sort()).toEqual([mine, fresh].sort());
    const all = ((await call('GET', '/v1/collections', unscoped.key)).body.items as Json[]).map((c) => c.name);
    expect(all).toEqual(expect.arrayContaining([mine, fresh, theirs]));
    // A key without collections ingests anywhere, as before.
    expect((await call('POST', `/v1/collections/${theirs}/documents`, unscoped.key, docs)).status).toBe(200);
  });

  it('feedback: reports into its collections only (the default collection included), reads its own events only (404 otherwise)', async () => {
    const report = (collection?: string) => ({ ...(collection ? { collection } : {}), query: 'who wrote moby dick', wrongAnswer: 'Charles Dickens', servedIds: collection ? ids[collection] ?? [] : [] });
    const own = await call('POST', '/v1/feedback', scoped.key, report(mine));
    expect(own.status).toBe(202);
    expect((await call('GET', `/v1/feedback/${own.body.id}`, scoped.key)).body).toMatchObject({ id: own.body.id, collection: mine });
    const before = await writes();
    refused(await call('POST', '/v1/feedback', scoped.key, report(theirs)), theirs);
    refused(await call('POST', '/v1/feedback', scoped.key, report()), unborn); // the default collection is not in its list
    // Another collection's event is "does not exist", word for word.
    const missing = randomUUID();
    const notFound = await call('GET', `/v1/feedback/${missing}`, scoped.key);
    const other = await call('GET', `/v1/feedback/${theirEvent}`, scoped.key);
    expect([other.status, other.body.message]).toEqual([404, notFound.body.message.replace(missing, theirEvent)]);
    expect(notFound.status).toBe(404);
    expect(await writes()).toEqual(before);
    // Without collections, any event (as before).
    expect((await call('GET', `/v1/feedback/${theirEvent}`, unscoped.key)).status).toBe(200);
    expect((await admin('GET', `/v1/feedback/${theirEvent}`)).status).toBe(200);
  });

  it("correct-answer: for its own event in its collection, a suggestion; another collection's event is 404 and unchanged", async () => {
    const own = await call('POST', '/v1/feedback', scoped.key, { collection: mine, query: 'what is the capital of france', wrongAnswer: 'Berlin', servedIds: [] });
    expect(own.status).toBe(202);
    const suggested = await call('POST', `/v1/feedback/${own.body.id}/correct-answer`, scoped.key, { correctAnswer: 'Paris' });
    expect(suggested.status).toBe(200);
    expect(suggested.body).toMatchObject({ served: false, enhancement: { state: 'PROPOSED', collection: mine } });
    const before = await writes();
    const missing = randomUUID();
    const notFound = await call('POST', `/v1/feedback/${missing}/correct-answer`, scoped.key, { correctAnswer: 'Herman Melville' });
    const other = await call('POST', `/v1/feedback/${theirEvent}/correct-answer`, scoped.key, { correctAnswer: 'Herman Melville' });
    expect(notFound.status).toBe(404);
    expect([other.status, other.body.message]).toEqual([404, notFound.body.message.replace(missing, theirEvent)]);
    expect(await writes()).toEqual(before);
  });

  it('answers: logs and answers in its collections only; serving status of its collections only', async () => {
    const logged = await call('POST', '/v1/answers', scoped.key, { collection: mine, query: 'who wrote moby dick', answer: 'Herman Melville', servedIds: ids[mine] });
    expect(logged.status).toBe(201);
    expect(logged.body.feedbackToken).toEqual(expect.any(String));
    expect((await call('POST', '/v1/rag/answer', scoped.key, { collection: mine, query: 'who wrote moby dick' })).status).toBe(200);
    expect((await call('POST', `/v1/collections/${mine}/serving-status`, scoped.key, { ids: ids[mine] })).status).toBe(200);
    const before = await writes();
    refused(await call('POST', '/v1/answers', scoped.key, { collection: theirs, query: 'who wrote moby dick', answer: 'Herman Melville', servedIds: ids[theirs] }), theirs);
    refused(await call('POST', '/v1/answers', scoped.key, { query: 'who wrote moby dick', answer: 'Herman Melville', servedIds: [] }), unborn);
    refused(await call('POST', '/v1/rag/answer', scoped.key, { collection: theirs, query: 'who wrote moby dick' }), theirs);
    refused(await call('POST', '/v1/rag/answer', scoped.key, { query: 'who wrote moby dick' }), unborn);
    refused(await call('POST', `/v1/collections/${theirs}/serving-status`, scoped.key, { ids: ids[theirs] }), theirs);
    // A text of another collection asked about in its own: unknown there, as before (ids are matched in the path's collection).
    const cross = await call('POST', `/v1/collections/${mine}/serving-status`, scoped.key, { ids: ids[theirs] });
    expect(cross.body.ids).toEqual(ids[theirs].map((id) => expect.objectContaining({ id, known: false })));
    expect(await writes()).toEqual(before);
    // A feedback token minted for its own answer reports into that answer's collection.
    const viaToken = await fetch(`${t.url}/v1/feedback`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `FeedbackToken ${logged.body.feedbackToken}` }, body: '{}' });
    expect(viaToken.status).toBe(202);
    expect((await t.prisma.feedbackEvent.findUniqueOrThrow({ where: { id: ((await viaToken.json()) as Json).id } })).collection).toBe(mine);
    // Without collections, any collection (as before).
    expect((await call('POST', '/v1/answers', unscoped.key, { collection: theirs, query: 'who wrote moby dick', answer: 'Herman Melville', servedIds: ids[theirs] })).status).toBe(201);
  });
});

describe('keys limited to collections: the Nest route of POST /v1/feedback (INTAKE_FAST_PATH=false) and the CLI', () => {
  let t: TestApp;
  const mine = uniqueName('scope-mine');
  const theirs = uniqueName('scope-theirs');
  beforeAll(async () => {
    t = await createTestApp({ api: true, env: { INTAKE_FAST_PATH: 'false' } });
    for (const c of [mine, theirs]) {
      const r = await fetch(`${t.url}/v1/collections/${c}/documents`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY }, body: JSON.stringify({ documents: [{ text: 'Moby-Dick is an 1851 novel by Herman Melville.' }] }) });
      expect(r.status).toBe(200);
    }
  }, 120_000);
  afterAll(async () => { await t?.close(); });

  /** `npm run keys -- …` (as `node --import tsx apps/cli/src/keys.ts …`) against the app's database. */
  const keysCli = (args: string[]) => new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps/cli/src/keys.ts'), ...args], {
      cwd: ROOT, env: { ...process.env, DATABASE_URL: t.config.databaseUrl!, DATA_DIR: t.dataDir, API_KEYS: TEST_API_KEY, NODE_ENV: 'test' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += String(d); });
    child.stderr.on('data', (d) => { stderr += String(d); });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });

  it('a key created by the CLI with --collections is held to them; the listing shows them', async () => {
    const bad = await keysCli(['create', '--name', uniqueName('cli-bad'), '--scopes', 'feedback', '--collections', 'a/b']);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('collection names')]);
    const made = await keysCli(['create', '--name', uniqueName('cli-svc'), '--scopes', 'feedback', '--collections', mine]);
    expect(made.code).toBe(0);
    const out = JSON.parse(made.stdout.trim().split('\n').pop()!) as { key: string; prefix: string; collections: string[] };
    expect(out.collections).toEqual([mine]);
    const list = await keysCli(['list']);
    expect(list.stdout.split('\n').find((l) => l.startsWith(out.prefix))?.split('\t')[4]).toBe(mine);
    const report = (collection: string) => fetch(`${t.url}/v1/feedback`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': out.key }, body: JSON.stringify({ collection, query: 'who wrote moby dick', wrongAnswer: 'Charles Dickens' }),
    });
    expect((await report(mine)).status).toBe(202);
    const before = await t.prisma.feedbackEvent.count({ where: { collection: theirs } });
    const r = await report(theirs);
    expect([r.status, ((await r.json()) as Json).message]).toEqual([403, `this key is limited to the collections ${mine}: collection '${theirs}' is not one of them`]);
    expect(await t.prisma.feedbackEvent.count({ where: { collection: theirs } })).toBe(before);
  }, 120_000);
});
