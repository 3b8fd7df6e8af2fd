export * from './cluster-scan';
