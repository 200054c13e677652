import { RedisStore } from '../store/redis-store.ts';
import { SqliteStore } from '../store/sqlite-store.ts';
import type { Store } from '../store/store.ts';

/** `sqlite://relative/or/absolute.db`, `sqlite://:memory:` or `redis://host:port`. */
export async function createStore(url: string): Promise<Store> {
  if (url.startsWith('sqlite://')) return new SqliteStore(url.slice('sqlite://'.length));
  if (url.startsWith('redis://') || url.startsWith('rediss://')) {
    const store = new RedisStore(url);
    await store.ping();
    return store;
  }
  throw new Error(`STORE_URL must start with sqlite:// or redis://, got "${url}"`);
}
