// The Lease contract, on every store: exclusive (also across two connections), renewed while held,
// lost with a signal, fencing tokens strictly increasing, and fenced writes refused once stale.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Leases } from '../../src/store/lease.ts';
import type { Store } from '../../src/store/store.ts';

export function leaseContract(
  name: string,
  open: () => Promise<{ store: Store; reopen: () => Promise<Store>; cleanup: () => Promise<void> }>,
): void {
  describe(`lease contract: ${name}`, () => {
    let store: Store;
    let other: Store;
    let cleanup: () => Promise<void>;
    const k = (s: string) => `lease-test:${randomUUID()}:${s}`;

    before(async () => {
      let reopen: () => Promise<Store>;
      ({ store, reopen, cleanup } = await open());
      other = await reopen();
    });
    after(async () => {
      await other.close();
      await store.close();
      await cleanup();
    });

    test('exclusive: of many racing takers one wins, also over a second connection', async () => {
      const key = k('x');
      const a = new Leases(store, { ttlMs: 5000 });
      const b = new Leases(other, { ttlMs: 5000 });
      const got = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).tryAcquire(key)),
      );
      const winners = got.filter((g) => g !== undefined);
      assert.equal(winners.length, 1);
      const waiting = b.acquire(key, 5000);
      await winners[0]?.release();
      const next = await waiting;
      assert.ok(next.token > (winners[0]?.token ?? 0));
      await assert.rejects(a.acquire(key, 50), /stayed held by another/);
      await next.release();
    });

    test('renewed: a held lease outlives its TTL many times over', async () => {
      const key = k('renew');
      const a = new Leases(store, { ttlMs: 300, renewMs: 50 });
      const held = await a.acquire(key, 1000);
      await sleep(1500);
      assert.equal(held.signal.aborted, false);
      assert.equal(await new Leases(other, { ttlMs: 300 }).tryAcquire(key), undefined);
      assert.equal(await a.isCurrent(held.fence), true);
      await held.release();
    });

    test('lost with a signal: a holder whose lease is taken over is told and fenced off', async () => {
      const key = k('lost');
      const a = new Leases(store, { ttlMs: 5000, renewMs: 30 });
      const held = await a.acquire(key, 1000);
      // Another process takes it (as after a stall past the TTL).
      const was = await other.leases.holder(key);
      assert.equal(was?.token, held.token);
      await other.leases.release(key, was?.holder ?? '', was?.token ?? 0);
      const intruder = await new Leases(other, { ttlMs: 5000 }).tryAcquire(key);
      assert.ok(intruder);
      await once(held.signal, 'abort');
      assert.equal(await a.isCurrent(held.fence), false);
      assert.equal(await a.isCurrent(intruder.fence), true);
      await held.release();
      assert.equal((await store.leases.holder(key))?.token, intruder.token, 'not released');
      await intruder.release();
    });

    test('a holder that stops renewing lapses; the next taker gets a higher token', async () => {
      const key = k('lapse');
      // Taken at the backend: nothing renews it, as in a frozen process.
      const stalled = await store.leases.acquire(key, 'frozen', 200);
      assert.ok(stalled);
      const next = await new Leases(other, { ttlMs: 5000 }).acquire(key, 5000);
      assert.ok(next.token > stalled);
      assert.equal(await store.leases.renew(key, 'frozen', stalled, 200), false);
      await next.release();
    });

    test('fencing tokens strictly increase per key', async () => {
      const key = k('tokens');
      const a = new Leases(store, { ttlMs: 5000 });
      const b = new Leases(other, { ttlMs: 5000 });
      const tokens: number[] = [];
      for (let i = 0; i < 6; i++) {
        const held = await (i % 2 ? a : b).acquire(key, 1000);
        tokens.push(held.token);
        await held.release();
      }
      assert.deepEqual(
        tokens,
        [...tokens].sort((x, y) => x - y),
      );
      assert.equal(new Set(tokens).size, tokens.length);
    });

    test('a fenced write: written once while current, refused when stale, once per marker', async () => {
      const key = k('fenced');
      const a = new Leases(store, { ttlMs: 5000 });
      const held = await a.acquire(key, 1000);
      const value = { messages: [{ type: 'human', text: '한국어 ✓' }], n: 1 };
      const once = `once:${key}`;
      assert.equal(await store.leases.wrote(once), false);
      const guard = { ...held.fence, once };
      assert.equal(
        await store.leases.writeFenced(
          [
            [`${key}:v`, value],
            [`${key}:w`, [1, 2]],
          ],
          guard,
        ),
        'written',
      );
      assert.deepEqual(await store.kv.get(`${key}:v`), value, 'readable as a kv value');
      assert.deepEqual(await other.kv.get(`${key}:w`), [1, 2]);
      assert.equal(await store.leases.wrote(once), true);
      assert.equal(await store.leases.writeFenced([[`${key}:v`, { n: 2 }]], guard), 'repeated');
      await held.release();
      const next = await a.acquire(key, 1000);
      assert.equal(await store.leases.writeFenced([[`${key}:v`, { n: 3 }]], held.fence), 'fenced');
      assert.deepEqual(await store.kv.get(`${key}:v`), value, 'nothing written by the stale run');
      await next.release();
    });
  });
}
