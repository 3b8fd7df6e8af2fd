export * from './reader.features';
export * from './reader-judge.fit';
