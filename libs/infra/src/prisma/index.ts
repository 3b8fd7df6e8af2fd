export * from './prisma-client';
export * from './migrator';
export * from './repositories';
