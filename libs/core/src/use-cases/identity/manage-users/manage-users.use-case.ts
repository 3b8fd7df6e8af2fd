import { ConflictError, echoInput, NotFoundError } from '../../../domain/errors';
import { isUuid } from '../../../domain/store-point';
import { parseRequest } from '../../../domain/request-schema';
import type { UserRepository, UserRow } from '../../../ports/repositories';
import { USERS } from '../../../ports/tokens';
import type { InjectMap } from '../../../use-case';
import { CreateUserRequest } from '../manage-keys/identity.schema';

export interface ManageUsersDeps { users: UserRepository }

/** What the API and the CLI show of a user. */
export interface UserView { id: string; name: string; role: UserRow['role']; createdAt: Date; createdBy: string; disabledAt: Date | null; disabledBy: string | null }
export const userView = (u: UserRow): UserView => ({ id: u.id, name: u.name, role: u.role, createdAt: u.createdAt, createdBy: u.createdBy, disabledAt: u.disabledAt, disabledBy: u.disabledBy });


/** A user by id or name; NotFoundError otherwise. */
export async function findUser(users: UserRepository, ref: string): Promise<UserRow> {
  const u = (isUuid(ref) ? await users.get(ref) : null) ?? await users.findByName(ref);
  if (!u) throw new NotFoundError(`user ${echoInput(ref)} does not exist`);
  return u;
}

/** Creates a user with a role (audited `user.created`); a taken name is a 409. */
export class CreateUserUseCase {
  static readonly inject: InjectMap<ManageUsersDeps> = { users: USERS };
  constructor(private readonly deps: ManageUsersDeps) {}

  async execute(cmd: { body: unknown; actor: string }): Promise<UserView> {
    const { name, role } = parseRequest(CreateUserRequest, cmd.body);
    if (await this.deps.users.findByName(name)) throw new ConflictError(`user ${name} exists`);
    return userView(await this.deps.users.create({ name, role, createdBy: cmd.actor }));
  }
}

export class ListUsersUseCase {
  static readonly inject: InjectMap<ManageUsersDeps> = { users: USERS };
  constructor(private readonly deps: ManageUsersDeps) {}

  async execute(): Promise<UserView[]> {
    return (await this.deps.users.list()).map(userView);
  }
}

/** Disables a user (by id or name): their keys and sessions stop working at the next request. Audited once. */
export class DisableUserUseCase {
  static readonly inject: InjectMap<ManageUsersDeps> = { users: USERS };
  constructor(private readonly deps: ManageUsersDeps) {}

  async execute(cmd: { ref: string; actor: string }): Promise<UserView> {
    const u = await findUser(this.deps.users, cmd.ref);
    return userView(await this.deps.users.disable(u.id, cmd.actor));
  }
}
