// A promise shared by every caller while it is cached (a channel's members, a model's discovery),
// dropped when it fails so that the next caller tries again rather than getting the old failure.

/** A Map, or an LRU cache with its own size and time limits. */
export interface PromiseCache<T> {
  get(key: string): Promise<T> | undefined;
  set(key: string, value: Promise<T>): unknown;
  delete(key: string): unknown;
}

/** The cached promise for `key`, or a new one from `make`, cached. */
export function cachedPromise<T>(
  cache: PromiseCache<T>,
  key: string,
  make: () => Promise<T>,
): Promise<T> {
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const made = make();
  cache.set(key, made);
  made.catch(() => cache.delete(key));
  return made;
}
