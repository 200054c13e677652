// SealedRecords on the bot's store: every value is JSON sealed with AES-256-GCM, bound to its key
// (so a sealed value copied under another key will not open). A value sealed with an older key is
// sealed again with the current one the first time it is read.
import type { SealedRecords } from '../model/sealed-records.ts';
import type { SecretBox } from '../util/secret-box.ts';
import type { Store } from './store.ts';

export class StoreSealedRecords implements SealedRecords {
  readonly #store: Store;
  readonly #box: SecretBox;

  constructor(store: Store, box: SecretBox) {
    this.#store = store;
    this.#box = box;
  }

  async get<T>(key: string): Promise<T | undefined> {
    const sealed = await this.#store.kv.get<string>(key);
    if (typeof sealed !== 'string') return undefined;
    const { plaintext, stale } = this.#box.open(sealed, key);
    if (stale) await this.#store.kv.set(key, this.#box.seal(plaintext, key));
    return JSON.parse(plaintext) as T;
  }

  async set(key: string, value: unknown, ttlMs?: number): Promise<void> {
    await this.#store.kv.set(key, this.#box.seal(JSON.stringify(value), key), ttlMs);
  }

  async delete(key: string): Promise<boolean> {
    return this.#store.kv.delete(key);
  }
}
