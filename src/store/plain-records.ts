// Records on the bot's store as they are (nothing secret in them; tokens use SealedRecords).
import type { Records } from '../model/records.ts';
import type { Store } from './store.ts';

export class StoreRecords implements Records {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  async get<T>(key: string): Promise<T | undefined> {
    return (await this.#store.kv.get<T>(key)) ?? undefined;
  }

  async set(key: string, value: unknown, ttlMs?: number): Promise<void> {
    await this.#store.kv.set(key, value, ttlMs);
  }
}
