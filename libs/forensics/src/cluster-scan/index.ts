export * from './cluster-scan';
export * from './lsh-knn';
