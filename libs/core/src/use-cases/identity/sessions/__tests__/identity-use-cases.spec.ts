import { createInMemoryRepositories, composeUseCases, HashingEmbedder, InMemoryVectorStore, ScriptedJudge, TEST_IDENTITY_SETTINGS } from '../../../../testing';
import { AccessDeniedError, AuthenticationError, hashApiKey } from '../../manage-keys/identity';
import { AuthenticateKeyUseCase, CreateApiKeyUseCase, RevokeApiKeyUseCase } from '../../manage-keys/manage-keys.use-case';
import { DisableUserUseCase } from '../../manage-users/manage-users.use-case';
import { CreateSessionUseCase, DestroySessionUseCase, ResolveSessionUseCase } from '../sessions.use-case';

/** Identity use cases on the in-memory fakes with a clock the test moves. */
function setup() {
  let t = Date.UTC(2026, 10, 23, 10, 0, 0);
  const clock = { now: () => new Date(t) };
  const repos = createInMemoryRepositories(clock.now);
  const uc = composeUseCases({ repos, store: new InMemoryVectorStore(), embedder: new HashingEmbedder(16), judge: new ScriptedJudge(() => 'NO'), clock, identity: { sessionTtlMs: 3_600_000 } });
  return { repos, uc, advance: (ms: number) => { t += ms; } };
}

describe('identity use cases', () => {
  it('a key is returned once and stored as HMAC(pepper, key); authentication checks hash, revocation and the user', async () => {
    const { repos, uc, advance } = setup();
    const { key, record } = await uc.get(CreateApiKeyUseCase).execute({ body: { name: 'alice', role: 'reviewer' }, actor: 'admin' });
    const row = (await repos.apiKeys.get(record.id))!;
    expect(row.hash).toBe(hashApiKey(TEST_IDENTITY_SETTINGS.keyPepper, key));
    expect(JSON.stringify(row)).not.toContain(key.slice(13));
    const auth = uc.get(AuthenticateKeyUseCase);
    expect(await auth.execute({ key })).toEqual({ name: 'user:alice', role: 'reviewer', scopes: [], userId: record.userId, keyId: record.id });
    // lastUsedAt: written on first use, not again within the interval, again after it.
    const first = (await repos.apiKeys.get(record.id))!.lastUsedAt!;
    advance(30_000);
    await auth.execute({ key });
    expect((await repos.apiKeys.get(record.id))!.lastUsedAt).toEqual(first);
    advance(31_000);
    await auth.execute({ key });
    expect((await repos.apiKeys.get(record.id))!.lastUsedAt!.getTime()).toBe(first.getTime() + 61_000);
    await expect(auth.execute({ key: `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}` })).rejects.toThrow(new AuthenticationError('invalid API key'));
    await uc.get(RevokeApiKeyUseCase).execute({ ref: record.prefix, actor: 'admin' });
    await expect(auth.execute({ key })).rejects.toThrow(`API key ${record.prefix} was revoked`);
  });

  it('sessions: expire server-side, end with logout, follow the key and the user; service keys get none', async () => {
    const { repos, uc, advance } = setup();
    const { key, record } = await uc.get(CreateApiKeyUseCase).execute({ body: { name: 'bob', role: 'viewer' }, actor: 'admin' });
    const identity = await uc.get(AuthenticateKeyUseCase).execute({ key });
    const { token, session } = await uc.get(CreateSessionUseCase).execute({ identity, ip: '10.0.0.1' });
    expect(session.id).not.toBe(token);
    expect(repos.state.audit.map((a) => a.action)).toContain('session.created');
    const resolve = uc.get(ResolveSessionUseCase);
    expect((await resolve.execute({ token })).identity).toEqual(identity);
    advance(3_600_000 - 1);
    await expect(resolve.execute({ token })).resolves.toBeTruthy();
    advance(1);
    await expect(resolve.execute({ token })).rejects.toThrow('session expired: log in again');
    expect(await repos.sessions.get(session.id)).toBeNull();

    const second = await uc.get(CreateSessionUseCase).execute({ identity });
    expect(await uc.get(DestroySessionUseCase).execute({ token: second.token, actor: identity.name })).toBe(true);
    await expect(resolve.execute({ token: second.token })).rejects.toThrow('logged out');

    const third = await uc.get(CreateSessionUseCase).execute({ identity });
    await uc.get(DisableUserUseCase).execute({ ref: 'bob', actor: 'admin' });
    await expect(resolve.execute({ token: third.token })).rejects.toThrow('user bob is disabled');
    expect(record.kind).toBe('user');

    const svc = await uc.get(CreateApiKeyUseCase).execute({ body: { name: 'rag', scopes: ['ingest'] }, actor: 'admin' });
    const svcIdentity = await uc.get(AuthenticateKeyUseCase).execute({ key: svc.key });
    expect(svcIdentity).toMatchObject({ name: 'service:rag', role: null, scopes: ['ingest'] });
    await expect(uc.get(CreateSessionUseCase).execute({ identity: svcIdentity })).rejects.toBeInstanceOf(AccessDeniedError);
  });
});
