/**
 * Keys limited to collections (issue 56, item 7b). A service key may be created with the list of collections it may
 * address; every endpoint it can call checks the collection it names (403) or the collection of the event it addresses
 * by id (404, as for one that does not exist). Whether a caller limited to `scope` (null/undefined = every collection)
 * may address `collection`: exact names, as collection names are stored (two spellings of one name are refused when the
 * key is created, and the service refuses a second spelling of an existing collection).
 */
export function inCollectionScope(scope: readonly string[] | null | undefined, collection: string): boolean {
  return !scope || scope.includes(collection);
}
