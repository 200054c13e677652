// An OAuth `state` kept server-side: random, single use, expiring. Whichever replica the
// installer's browser comes back to finds it in the store; of two callbacks with one state, only
// the one that deletes it goes on.
import { randomBytes } from 'node:crypto';
import type { SealedRecords } from '../model/sealed-records.ts';

/** 24 random bytes, base64url. */
const STATE_FORM = /^[A-Za-z0-9_-]{32}$/;

export class OneTimeStates<T> {
  readonly #records: SealedRecords;
  readonly #prefix: string;
  readonly #ttlMs: number;

  /** `prefix`: the store keys' (`slack:oauth-state:`). */
  constructor(records: SealedRecords, prefix: string, ttlMs: number) {
    this.#records = records;
    this.#prefix = prefix;
    this.#ttlMs = ttlMs;
  }

  /** A new state standing for `value`. */
  async issue(value: T, now: Date): Promise<string> {
    const state = randomBytes(24).toString('base64url');
    await this.#records.set(this.#prefix + state, { value, at: now.getTime() }, this.#ttlMs);
    return state;
  }

  /** The value a state stands for, once; undefined when malformed, unknown, used or expired. */
  async redeem(state: string, now: Date): Promise<T | undefined> {
    if (!STATE_FORM.test(state)) return undefined;
    const key = this.#prefix + state;
    const saved = await this.#records.get<{ value: T; at: number }>(key);
    if (!saved || !(await this.#records.delete(key))) return undefined;
    return now.getTime() - saved.at > this.#ttlMs ? undefined : saved.value;
  }
}
