// The gateway's session is saved fenced with its lease's token: a holder that lost the lease
// without noticing yet (stalled past its renewal while a standby took over) cannot overwrite the
// session the new holder saved, which is the one the next takeover must resume. Real Redis.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createStore } from '../../src/compose/create-store.ts';
import type { GatewaySessionInfo } from '../../src/model/gateway-session.ts';
import { GatewaySessionFenced, StoreGatewaySessions } from '../../src/queue/gateway-session.ts';
import { Leases } from '../../src/store/lease.ts';
import type { Fence } from '../../src/store/lease-backend.ts';
import type { Store } from '../../src/store/store.ts';
import { startTestRedis, type TestRedis } from '../support/redis-server.ts';

let redis: TestRedis;
let store: Store;
const app = `fence-test-${process.pid}`;

before(async () => {
  redis = await startTestRedis();
  store = await createStore(redis.url);
});

after(async () => {
  await store?.close();
  await redis?.stop();
});

const session = (id: string, sequence: number): GatewaySessionInfo => ({
  sessionId: id,
  sequence,
  resumeURL: 'wss://gateway.example/',
  shardId: 0,
  shardCount: 1,
  savedAt: Date.now(),
});

test('a gateway that lost its lease cannot overwrite the new holder’s session', async () => {
  const leases = new Leases(store, { ttlMs: 60_000 });
  const key = `gateway-lease:discord:${app}`;
  const first = await leases.acquire(key, 1000);
  let firstFence: Fence | undefined = first.fence;
  const stalled = new StoreGatewaySessions(store, app, () => firstFence);
  await stalled.save(session('old', 10));
  assert.equal((await stalled.load())?.sessionId, 'old');

  // Its lease went to a standby (the stalled holder has not noticed: it still has its token).
  await first.release();
  const second = await leases.acquire(key, 1000);
  const active = new StoreGatewaySessions(store, app, () => second.fence);
  await active.save(session('new', 3));
  firstFence = first.fence;
  await assert.rejects(stalled.save(session('old', 11)), GatewaySessionFenced);
  assert.deepEqual(
    { id: (await active.load())?.sessionId, seq: (await active.load())?.sequence },
    { id: 'new', seq: 3 },
    'the new holder’s session stands',
  );

  // Without the lease nothing is saved either.
  const none = new StoreGatewaySessions(store, app, () => undefined);
  await assert.rejects(none.save(session('none', 1)), GatewaySessionFenced);
  await second.release();
  await active.clear();
  assert.equal(await active.load(), undefined);
});
