/**
 * Runs `fn` over `items` with at most `concurrency` in flight; results keep input order. On a failure no
 * further item starts and the items in flight settle before the first error is thrown: nothing of the pool
 * still runs (and writes) once it has returned — a job that failed or was handed back leaves no call behind.
 */
export async function mapPool<T, R>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const workers = Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, async () => {
    while (!failure && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i], i);
      } catch (error) {
        failure ??= { error };
      }
    }
  });
  await Promise.all(workers);
  if (failure) throw (failure as { error: unknown }).error;
  return out;
}
