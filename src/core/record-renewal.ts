// A stored credential renewed once for every replica: a rotating token whose refresh token is
// single use (Slack's bot tokens with token rotation). In one process concurrent readers share one
// renewal; across replicas the one that claims the renewal in the store spends the refresh token
// and stores the result, and the others wait for that record (the old token still works until it
// expires, so nobody is stopped meanwhile).
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { SealedRecords } from '../model/sealed-records.ts';

/** Store claims, so that of several replicas only one spends a (single-use) refresh token. */
export interface RenewalClaims {
  claim(key: string, holder: string, ttlMs: number): Promise<boolean>;
  release(key: string, holder: string): Promise<void>;
}

export interface RecordRenewalOptions<T> {
  records: SealedRecords;
  claims: RenewalClaims;
  /** How long one replica may hold a record's renewal before another may try. */
  claimMs: number;
  /** Whether the record must be renewed now. */
  due(record: T): boolean;
  /** The renewed record (spends the refresh token); the record itself when it has nothing to renew with. */
  renew(record: T): Promise<T>;
  /** Called once a renewed record is stored (drop what was derived from the old one). */
  renewed(): void;
}

export class RecordRenewal<T> {
  readonly #o: RecordRenewalOptions<T>;
  /** Renewals running in this process, by record key: concurrent readers share one. */
  readonly #running = new Map<string, Promise<T>>();

  constructor(o: RecordRenewalOptions<T>) {
    this.#o = o;
  }

  /** The record as read under `key`, renewed first when it is due. */
  current(key: string, record: T): Promise<T> {
    if (!this.#o.due(record)) return Promise.resolve(record);
    let running = this.#running.get(key);
    if (!running) {
      running = this.#renew(key, record).finally(() => this.#running.delete(key));
      this.#running.set(key, running);
    }
    return running;
  }

  async #renew(key: string, seen: T): Promise<T> {
    const { records, claims, claimMs, due } = this.#o;
    const holder = randomUUID();
    const claimKey = `${key}:renewing`;
    const deadline = Date.now() + claimMs;
    while (!(await claims.claim(claimKey, holder, claimMs))) {
      await delay(100);
      const now = await records.get<T>(key);
      if (!now || !due(now)) return now ?? seen;
      if (Date.now() > deadline) return now;
    }
    try {
      const current = (await records.get<T>(key)) ?? seen;
      if (!due(current)) return current;
      const renewed = await this.#o.renew(current);
      if (renewed === current) return current;
      await records.set(key, renewed);
      this.#o.renewed();
      return renewed;
    } finally {
      await claims.release(claimKey, holder);
    }
  }
}

/** What an OAuth 2 refresh answers (RFC 6749, section 5.1). */
export interface RefreshAnswer {
  access_token?: string;
  refresh_token?: string;
  expires_in?: number;
}

const nowSec = () => Math.floor(Date.now() / 1000);

/** Whether a token that expires at `expiresAt` (epoch seconds) has `marginSec` or less left. */
export function expiresWithin(expiresAt: number | undefined, marginSec: number): boolean {
  return expiresAt !== undefined && expiresAt - nowSec() <= marginSec;
}

/** A refresh's new token, its new (single-use) refresh token and when it expires (epoch s). */
export function rotatedTokens(r: RefreshAnswer): {
  token: string;
  refreshToken: string;
  expiresAt: number;
} {
  if (!r.access_token || !r.refresh_token || r.expires_in === undefined)
    throw new Error('a token refresh answered without new tokens');
  return {
    token: r.access_token,
    refreshToken: r.refresh_token,
    expiresAt: nowSec() + r.expires_in,
  };
}
