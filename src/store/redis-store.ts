// Redis store for running several replicas: keyv through @keyv/redis, claims with SET NX PX.
import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';
import type { Store } from './store.ts';

// Compare-and-act scripts: only the holder may renew or release its claim.
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  readonly kv: Keyv;
  private readonly adapter: KeyvRedis<unknown>;

  constructor(url: string) {
    this.adapter = new KeyvRedis(url, {
      namespace: 'tm',
      throwOnConnectError: true,
      throwOnErrors: true,
      connectionTimeout: 5000,
    });
    // The adapter prefixes keys itself; keyv must not add a second prefix.
    this.kv = new Keyv({ store: this.adapter, useKeyPrefix: false });
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

  async ping(): Promise<void> {
    const client = await this.client();
    await client.ping();
  }

  async close(): Promise<void> {
    await this.adapter.disconnect();
  }
}
