// Redis store for running several replicas: keyv through @keyv/redis, claims with SET NX PX.
import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';
import { globPrefix } from '../util/redis-glob.ts';
import { deserializeKeyv, serializeKeyv } from './keyv-json.ts';
import type { LeaseBackend } from './lease-backend.ts';
import { RedisLeases } from './redis-leases.ts';
import type { Store } from './store.ts';

// Compare-and-act scripts: only the holder may renew or release its claim.
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/** Keys one SCAN step asks for and one UNLINK removes: big enough to be quick, small enough not to block. */
const SCAN_BATCH = 500;

/** The two commands prefix deletion needs, as node-redis's single client has them. */
interface Scanner {
  scan(
    cursor: string,
    o: { MATCH: string; COUNT: number },
  ): Promise<{ cursor: unknown; keys: unknown[] }>;
  unlink(keys: string[]): Promise<unknown>;
}

export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  readonly kv: Keyv;
  readonly leases: LeaseBackend;
  private readonly adapter: KeyvRedis<unknown>;

  constructor(url: string) {
    this.adapter = new KeyvRedis(url, {
      namespace: 'tm',
      throwOnConnectError: true,
      throwOnErrors: true,
      connectionTimeout: 5000,
    });
    // The adapter prefixes keys itself; keyv must not add a second prefix.
    this.kv = new Keyv({
      store: this.adapter,
      useKeyPrefix: false,
      serialize: serializeKeyv,
      deserialize: deserializeKeyv,
    });
    this.leases = new RedisLeases({
      client: () => this.client(),
      kvKey: (key) => this.adapter.createKeyPrefix(key, this.adapter.namespace),
      serialize: async (value) =>
        String(await this.kv.serializeData({ value, expires: undefined })),
      claimKey: (key) => this.claimKey(key),
      unlinkStarting: (start) => this.unlinkStarting(start, new Set()),
    });
  }

  private claimKey(key: string): string {
    return `tm:claim:${key}`;
  }

  private async client() {
    return this.adapter.getClient();
  }

  async claim(key: string, holder: string, ttlMs: number): Promise<boolean> {
    const client = await this.client();
    const res = await client.set(this.claimKey(key), holder, {
      condition: 'NX',
      expiration: { type: 'PX', value: Math.max(1, Math.round(ttlMs)) },
    });
    return res === 'OK';
  }

  async renew(key: string, holder: string, ttlMs: number): Promise<boolean> {
    const client = await this.client();
    const res = await client.eval(RENEW, {
      keys: [this.claimKey(key)],
      arguments: [holder, String(Math.max(1, Math.round(ttlMs)))],
    });
    return Number(res) === 1;
  }

  async release(key: string, holder: string): Promise<void> {
    const client = await this.client();
    await client.eval(RELEASE, { keys: [this.claimKey(key)], arguments: [holder] });
  }

  async holder(key: string): Promise<string | undefined> {
    const client = await this.client();
    const v = await client.get(this.claimKey(key));
    return v === null ? undefined : String(v);
  }

  async deletePrefix(prefix: string, keep: readonly string[] = []): Promise<number> {
    // As the adapter names keys in Redis (keyv hands it its own namespace: `keyv::<key>`).
    const stored = (key: string) => this.adapter.createKeyPrefix(key, this.adapter.namespace);
    return this.unlinkStarting(stored(prefix), new Set(keep.map(stored)));
  }

  async deleteClaims(prefix: string): Promise<number> {
    return this.unlinkStarting(this.claimKey(prefix), new Set());
  }

  /** SCAN + UNLINK in batches; a key written meanwhile may survive, as with any SCAN. */
  private async unlinkStarting(start: string, keep: ReadonlySet<string>): Promise<number> {
    const client = await this.client();
    // A cluster would need a SCAN per master; threadmind runs on one Redis (or a replicated one).
    if (this.adapter.isCluster() || !('scan' in client))
      throw new Error('deleting by prefix needs a non-cluster Redis');
    const redis = client as unknown as Scanner;
    let deleted = 0;
    let cursor = '0';
    do {
      const page = await redis.scan(cursor, { MATCH: globPrefix(start), COUNT: SCAN_BATCH });
      cursor = String(page.cursor);
      // The pattern is exact already; the check keeps a mistake in escaping from over-matching.
      const doomed = page.keys.map(String).filter((k) => k.startsWith(start) && !keep.has(k));
      if (doomed.length > 0) deleted += Number(await redis.unlink(doomed));
    } while (cursor !== '0');
    return deleted;
  }

  async ping(): Promise<void> {
    const client = await this.client();
    await client.ping();
  }

  async close(): Promise<void> {
    await this.adapter.disconnect();
  }
}
