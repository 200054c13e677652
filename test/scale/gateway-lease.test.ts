// The Discord gateway lease on a real Redis store: one holder at a time; a holder whose lease is
// taken from it is told (and stops competing); a standby takes a lease its holder gave up.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { createStore } from '../../src/compose/create-store.ts';
import { createLogger } from '../../src/log/logger.ts';
import { GatewayLease } from '../../src/queue/gateway-lease.ts';
import type { Store } from '../../src/store/store.ts';
import { startPrivateRedis, type TestRedis } from '../support/redis-server.ts';

let redis: TestRedis;
let store: Store;
const log = createLogger('silent');
const timing = { leaseMs: 1000, renewMs: 200, pollMs: 50 };

before(async () => {
  redis = await startPrivateRedis();
  store = await createStore(redis.url);
});

after(async () => {
  await store?.close();
  await redis?.stop();
});

/** Resolves once the key's TTL has gone up `n` times (each a renewal). */
async function renewals(key: string, n: number): Promise<void> {
  const client = new Redis(redis.url);
  try {
    const found = (await client.keys(`tm:lease:${key}`))[0];
    assert.ok(found, 'the lease is in Redis');
    let last = await client.pttl(found);
    for (let seen = 0; seen < n; ) {
      await new Promise((r) => setTimeout(r, 20));
      const ttl = await client.pttl(found);
      if (ttl > last) seen++;
      last = ttl;
    }
  } finally {
    client.disconnect();
  }
}

function watched(lease: GatewayLease) {
  const seen: string[] = [];
  const waiters: Array<() => void> = [];
  const on = (what: string) => async () => {
    seen.push(what);
    for (const w of waiters.splice(0)) w();
  };
  lease.start({ acquired: on('acquired'), lost: on('lost') });
  const until = (what: string) =>
    new Promise<void>((resolve) => {
      const check = () => (seen.includes(what) ? resolve() : waiters.push(check));
      check();
    });
  return { seen, until };
}

test('one holder; a standby takes over when the holder stops; a lease taken away is reported', async () => {
  const key = `gateway-lease:test:${process.pid}`;
  const a = new GatewayLease(store, { key, ...timing }, log);
  const wa = watched(a);
  await wa.until('acquired');
  assert.equal((await store.leases.holder(key))?.holder, a.holder);

  const b = new GatewayLease(store, { key, ...timing }, log);
  const wb = watched(b);
  // The holder renews: seen as the key's TTL going up, often enough to outlive the first TTL
  // while the standby polls.
  await renewals(key, Math.ceil((timing.leaseMs * 1.5) / timing.renewMs));
  assert.equal((await store.leases.holder(key))?.holder, a.holder);
  assert.deepEqual(wb.seen, []);

  await a.stop();
  await wb.until('acquired');
  assert.equal((await store.leases.holder(key))?.holder, b.holder);

  // Someone else gets the key (a partition healed the wrong way): the holder is told, and stops.
  await store.leases.release(key, b.holder, (await store.leases.holder(key))?.token ?? 0);
  assert.ok(await store.leases.acquire(key, 'intruder', timing.leaseMs));
  await wb.until('lost');
  assert.equal(b.active, false);
  await b.stop();
  assert.equal(
    (await store.leases.holder(key))?.holder,
    'intruder',
    'a lost lease is not released by its old holder',
  );
});
