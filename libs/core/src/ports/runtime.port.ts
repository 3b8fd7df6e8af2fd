/** Small runtime ports: time, crash-test failpoints, BiRD's neighbour-list cache. */
export interface Clock { now(): Date }

/** Named points where crash-safety tests kill the worker; a no-op in production. */
export interface Failpoints { hit(name: string): void }

/**
 * BiRD's backward neighbour lists depend only on the collection's content, so they may be cached
 * per (collection, store revision, text id); a new revision drops the collection's lists.
 */
export interface NeighbourLists {
  recall(collection: string, revision: string | null, id: string): string[] | undefined;
  remember(collection: string, revision: string | null, id: string, list: string[]): void;
}
