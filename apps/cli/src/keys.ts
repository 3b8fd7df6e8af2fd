import 'reflect-metadata';
import { userInfo } from 'node:os';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import {
  CreateApiKeyRequest, CreateApiKeyUseCase, DisableUserUseCase, ListApiKeysUseCase, ListUsersUseCase, parseRequest, RevokeApiKeyUseCase, ValidationError,
  type CreateApiKeyRequestBody,
} from '@forensics/core';
import { CoreModule, InfrastructureModule, loadConfig } from '@forensics/infra';

const USAGE = `usage:
  npm run keys -- create --name NAME --role admin|reviewer|viewer     a user's key (the user is created when new)
  npm run keys -- create --name NAME --scopes ingest,feedback,answers  a service key
       [--collections kb,docs]                                         … limited to these collections (default: every collection)
  npm run keys -- list                                                keys: prefix, owner, role/scopes, collections, created, last used, revoked
  npm run keys -- revoke PREFIX|ID                                    revoke a key (refused from the next request on)
  npm run keys -- users                                               users and roles
  npm run keys -- disable-user NAME                                   disable a user (their keys and sessions stop working)
'create' prints the key once, as the last line: {"name":…,"role":…,"prefix":…,"key":…}. Only a keyed hash is stored.
environment: DATABASE_URL (unset = the embedded PostgreSQL in DATA_DIR), DATA_DIR, API_KEY_PEPPER / FEEDBACK_TOKEN_SECRET as for the API`;

/** Options `--name x` / `--name=x`; the rest are positional. */
function parseArgs(argv: string[]): { opts: Map<string, string>; positional: string[] } {
  const opts = new Map<string, string>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') opts.set('help', 'true');
    else if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) opts.set(a.slice(2, eq), a.slice(eq + 1));
      else {
        const v = argv[i + 1];
        if (v === undefined || v.startsWith('--')) throw new ValidationError(`${a} needs a value\n${USAGE}`);
        opts.set(a.slice(2), v);
        i++;
      }
    } else positional.push(a);
  }
  return { opts, positional };
}

/** The request body of `create`, validated (400-style message, exit code 2) before anything starts. */
function createBody(argv: string[]): CreateApiKeyRequestBody {
  const { opts, positional } = parseArgs(argv);
  const known = new Set(['name', 'role', 'scopes', 'collections']);
  const unknown = [...opts.keys()].filter((k) => !known.has(k));
  if (unknown.length || positional.length) throw new ValidationError(`unknown argument ${unknown.length ? `--${unknown[0]}` : positional[0]}\n${USAGE}`);
  const body: Record<string, unknown> = { name: opts.get('name') };
  if (opts.has('role')) body.role = opts.get('role');
  if (opts.has('scopes')) body.scopes = opts.get('scopes')!.split(',').map((x) => x.trim()).filter(Boolean);
  if (opts.has('collections')) body.collections = opts.get('collections')!.split(',').map((x) => x.trim()).filter(Boolean);
  return parseRequest(CreateApiKeyRequest, body);
}

const day = (d: Date | string | null): string => (d ? new Date(d).toISOString().replace('T', ' ').slice(0, 19) : '-');

async function run(app: INestApplicationContext, cmd: string, argv: string[], actor: string): Promise<void> {
  const { positional } = parseArgs(argv);
  switch (cmd) {
    case 'create': {
      const { key, record } = await app.get(CreateApiKeyUseCase).execute({ body: createBody(argv), actor });
      console.error(`created ${record.kind} key ${record.prefix} for ${record.name} (id ${record.id}); it is shown only now:`);
      const line = record.kind === 'user'
        ? { name: record.name, role: record.role, prefix: record.prefix, key }
        : { name: record.name, role: null, scopes: record.scopes, collections: record.collections, prefix: record.prefix, key };
      console.log(JSON.stringify(line));
      return;
    }
    case 'list': {
      const keys = await app.get(ListApiKeysUseCase).execute({ includeRevoked: true });
      console.log(['prefix', 'kind', 'name', 'role/scopes', 'collections', 'created', 'last used', 'revoked', 'id'].join('\t'));
      for (const k of keys) console.log([k.prefix, k.kind, k.name, k.role ?? k.scopes.join(','), k.kind === 'user' ? '-' : k.collections?.join(',') ?? '(all)', day(k.createdAt), day(k.lastUsedAt), day(k.revokedAt), k.id].join('\t'));
      return;
    }
    case 'revoke': {
      if (positional.length !== 1) throw new ValidationError(`revoke needs one key prefix or id\n${USAGE}`);
      const k = await app.get(RevokeApiKeyUseCase).execute({ ref: positional[0], actor });
      console.log(JSON.stringify({ id: k.id, prefix: k.prefix, name: k.name, revokedAt: k.revokedAt }));
      return;
    }
    case 'users': {
      console.log(['name', 'role', 'created', 'disabled', 'id'].join('\t'));
      for (const u of await app.get(ListUsersUseCase).execute()) console.log([u.name, u.role, day(u.createdAt), day(u.disabledAt), u.id].join('\t'));
      return;
    }
    case 'disable-user': {
      if (positional.length !== 1) throw new ValidationError(`disable-user needs one user name or id\n${USAGE}`);
      const u = await app.get(DisableUserUseCase).execute({ ref: positional[0], actor });
      console.log(JSON.stringify({ id: u.id, name: u.name, disabledAt: u.disabledAt }));
      return;
    }
    default:
      throw new ValidationError(USAGE);
  }
}

async function main(): Promise<void> {
  const [cmd, ...rest] = process.argv.slice(2);
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    console.log(USAGE);
    return;
  }
  if (!['create', 'list', 'revoke', 'users', 'disable-user'].includes(cmd)) throw new ValidationError(`unknown command '${cmd}'\n${USAGE}`);
  if (cmd === 'create') createBody(rest); // bad arguments fail before the database is touched
  const config = loadConfig(process.env);
  // The same core and adapters as the service (same database, same key pepper), without the queue.
  const app = await NestFactory.createApplicationContext(
    { module: class KeysModule {}, imports: [InfrastructureModule.forRoot(config, { queue: false }), CoreModule] },
    { logger: ['error', 'warn'] },
  );
  try {
    // Audit records name who ran the command on this machine.
    await run(app, cmd, rest, `cli:${userInfo().username}`);
  } finally {
    await app.close();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(e instanceof ValidationError ? 2 : 1);
});
