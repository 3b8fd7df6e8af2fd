import { z } from 'zod';
import { strictBody } from '../../../domain/request-schema';
import { SERVICE_SCOPES, USER_ROLES } from './identity';

const NAME = 'name must be 1-64 characters: letters, digits, . _ @ -';
/** User and service-key names: shown in audit records as `user:<name>` / `service:<name>`. */
export const IdentityName = z.string({ error: NAME }).regex(/^[A-Za-z0-9._@-]{1,64}$/, { error: NAME });

const ROLE = `role must be one of ${USER_ROLES.join(', ')}`;
const SCOPES = `scopes must be a non-empty list of ${SERVICE_SCOPES.join(', ')}`;
export const UserRoleSchema = z.enum(USER_ROLES as ['admin', 'reviewer', 'viewer'], { error: ROLE });
export const ServiceScopesSchema = z.array(z.enum(SERVICE_SCOPES as ['ingest', 'feedback', 'answers'], { error: SCOPES }), { error: SCOPES })
  .min(1, { error: SCOPES }).transform((s) => [...new Set(s)]);

/** POST /v1/admin/users: `{name, role}`. */
export const CreateUserRequest = strictBody({
  name: IdentityName.describe('unique user name'),
  role: UserRoleSchema.describe('admin | reviewer | viewer'),
});
export type CreateUserRequestBody = z.infer<typeof CreateUserRequest>;

/**
 * POST /v1/admin/keys: a user's key `{name, role}` (the user is created with that role when new) or
 * a service key `{name, scopes}`. Exactly one of role / scopes.
 */
export const CreateApiKeyRequest = strictBody({
  name: IdentityName.describe('user name (with role) or service name (with scopes)'),
  role: UserRoleSchema.optional().describe("a user's key: the user's role (admin | reviewer | viewer)"),
  scopes: ServiceScopesSchema.optional().describe('a service key: ingest, feedback, answers'),
}).refine((b) => (b.role === undefined) !== (b.scopes === undefined), { error: 'send either role (a user key) or scopes (a service key), not both and not neither' });
export type CreateApiKeyRequestBody = z.infer<typeof CreateApiKeyRequest>;

/** POST /v1/session: `{key}` (JSON or a form). */
export const CreateSessionRequest = strictBody({
  key: z.string({ error: 'key is required' }).min(1, { error: 'key is required' }).max(200, { error: 'key is not an API key' }).describe('an API key (a user key or a bootstrap key)'),
});
export type CreateSessionRequestBody = z.infer<typeof CreateSessionRequest>;
