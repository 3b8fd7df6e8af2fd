import { z } from 'zod';
import { strictBody } from '../../../domain/request-schema';
import { COLLECTION_NAME } from '../../../domain/text-identity';
import { SERVICE_SCOPES, USER_ROLES } from './identity';

const NAME = 'name must be 1-64 characters: letters, digits, . _ @ -';
/** User and service-key names: shown in audit records as `user:<name>` / `service:<name>`. */
export const IdentityName = z.string({ error: NAME }).regex(/^[A-Za-z0-9._@-]{1,64}$/, { error: NAME });

const ROLE = `role must be one of ${USER_ROLES.join(', ')}`;
const SCOPES = `scopes must be a non-empty list of ${SERVICE_SCOPES.join(', ')}`;
export const UserRoleSchema = z.enum(USER_ROLES as ['admin', 'reviewer', 'viewer'], { error: ROLE });
export const ServiceScopesSchema = z.array(z.enum(SERVICE_SCOPES as ['ingest', 'feedback', 'answers'], { error: SCOPES }), { error: SCOPES })
  .min(1, { error: SCOPES }).transform((s) => [...new Set(s)]);

const COLLECTIONS = 'collections must be a non-empty list of collection names (1-64 characters of A-Z a-z 0-9 _ -)';
/**
 * A service key's collections (issue 56, item 7b): names as collection names are written, no two that differ only in
 * case (a collection's name is one name whatever its case: decision of item 7c). Absent = every collection.
 */
export const KeyCollectionsSchema = z.array(z.string({ error: COLLECTIONS }).regex(COLLECTION_NAME, { error: COLLECTIONS }), { error: COLLECTIONS })
  .min(1, { error: COLLECTIONS }).max(100, { error: 'collections: at most 100 names (leave it out for every collection)' })
  .transform((names) => [...new Set(names)])
  .refine((names) => new Set(names.map((n) => n.toLowerCase())).size === names.length, { error: 'collections: two names differ only in case (they are one collection name)' });

/** POST /v1/admin/users: `{name, role}`. */
export const CreateUserRequest = strictBody({
  name: IdentityName.describe('unique user name'),
  role: UserRoleSchema.describe('admin | reviewer | viewer'),
});
export type CreateUserRequestBody = z.infer<typeof CreateUserRequest>;

/**
 * POST /v1/admin/keys: a user's key `{name, role}` (the user is created with that role when new) or
 * a service key `{name, scopes, collections?}`. Exactly one of role / scopes; collections only with scopes.
 */
export const CreateApiKeyRequest = strictBody({
  name: IdentityName.describe('user name (with role) or service name (with scopes)'),
  role: UserRoleSchema.optional().describe("a user's key: the user's role (admin | reviewer | viewer)"),
  scopes: ServiceScopesSchema.optional().describe('a service key: ingest, feedback, answers'),
  collections: KeyCollectionsSchema.optional()
    .describe('a service key only: the collections it may address (every request naming another collection is refused, 403; an event of another collection is 404). Absent = every collection'),
}).refine((b) => (b.role === undefined) !== (b.scopes === undefined), { error: 'send either role (a user key) or scopes (a service key), not both and not neither' })
  .refine((b) => b.collections === undefined || b.scopes !== undefined, { error: "collections limit a service key (with scopes); a user key's reach is its role's" });
export type CreateApiKeyRequestBody = z.infer<typeof CreateApiKeyRequest>;

/** POST /v1/session: `{key}` (JSON or a form). */
export const CreateSessionRequest = strictBody({
  key: z.string({ error: 'key is required' }).min(1, { error: 'key is required' }).max(200, { error: 'key is not an API key' }).describe('an API key (a user key or a bootstrap key)'),
});
export type CreateSessionRequestBody = z.infer<typeof CreateSessionRequest>;
