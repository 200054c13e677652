import { RedisStore } from '../store/redis-store.ts';
import { RedisUsageLedger } from '../store/redis-usage-ledger.ts';
import { SqliteStore } from '../store/sqlite-store.ts';
import { SqliteUsageLedger } from '../store/sqlite-usage-ledger.ts';
import type { Store } from '../store/store.ts';
import type { UsageLedger } from '../store/usage-ledger.ts';

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

/** Where model usage is booked: beside the store (its SQLite file, or its Redis). */
export function createUsageLedger(url: string): UsageLedger {
  if (url.startsWith('sqlite://')) return new SqliteUsageLedger(url.slice('sqlite://'.length));
  return new RedisUsageLedger(url);
}
