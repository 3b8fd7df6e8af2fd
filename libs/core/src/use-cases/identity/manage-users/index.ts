export * from './manage-users.use-case';
