import { Prisma } from '../generated/client';

/**
 * The boundary between typed JSON columns and Prisma's JsonValue. Writing: a typed object is valid
 * JSON by construction, null/undefined becomes SQL NULL. Reading: each repository's row mapper
 * asserts the column's type once, here, because Postgres only holds what these repositories wrote.
 */
export function jsonValue(v: object): Prisma.InputJsonValue {
  return v as Prisma.InputJsonValue;
}

export function toJson(v: object | null | undefined): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return v === null || v === undefined ? Prisma.DbNull : jsonValue(v);
}

export function fromJson<T>(v: Prisma.JsonValue | null): T | null {
  return v === null ? null : (v as unknown as T);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Ids that are not UUIDs are simply not found (Postgres would refuse them as a uuid). */
export const isUuid = (s: string): boolean => UUID.test(s);

export const isUniqueViolation = (e: unknown): boolean => e instanceof Prisma.PrismaClientKnownRequestError && e.code === 'P2002';
