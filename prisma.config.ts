import { defineConfig } from 'prisma/config';

// Used by the Prisma CLI (generate; migrate deploy where Prisma's engines are available).
// The service itself applies prisma/migrations at start (libs/infra/src/prisma/migrator.ts).
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/forensics' },
});
