// One contract, every store: the same behaviour on SQLite and on Redis.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { SessionHistory } from '../../src/store/session-history.ts';
import { SessionLock } from '../../src/store/session-lock.ts';
import type { Store } from '../../src/store/store.ts';

export function storeContract(
  name: string,
  open: () => Promise<{ store: Store; reopen: () => Promise<Store>; cleanup: () => Promise<void> }>,
): void {
  describe(`store contract: ${name}`, () => {
    let store: Store;
    let reopen: () => Promise<Store>;
    let cleanup: () => Promise<void>;
    const k = (s: string) => `${randomUUID()}:${s}`;

    before(async () => {
      ({ store, reopen, cleanup } = await open());
    });
    after(async () => {
      await store.close();
      await cleanup();
    });

    test('keeps values, overwrites them and deletes them', async () => {
      const key = k('v');
      assert.equal(await store.kv.get(key), undefined);
      await store.kv.set(key, { a: 1, text: '한국어 ✓' });
      assert.deepEqual(await store.kv.get(key), { a: 1, text: '한국어 ✓' });
      await store.kv.set(key, [1, 2]);
      assert.deepEqual(await store.kv.get(key), [1, 2]);
      assert.equal(await store.kv.delete(key), true);
      assert.equal(await store.kv.get(key), undefined);
    });

    test('forgets a value after its TTL', async () => {
      const key = k('ttl');
      await store.kv.set(key, 'x', 150);
      assert.equal(await store.kv.get(key), 'x');
      await sleep(300);
      assert.equal(await store.kv.get(key), undefined);
    });

    test('a claim is given to exactly one of many concurrent callers', async () => {
      const key = k('claim');
      const wins = await Promise.all(
        Array.from({ length: 25 }, (_, i) => store.claim(key, `h${i}`, 10_000)),
      );
      assert.equal(wins.filter(Boolean).length, 1);
      const winner = `h${wins.indexOf(true)}`;
      assert.equal(await store.holder(key), winner);
    });

    test('a claim frees itself after its TTL and can be renewed only by its holder', async () => {
      const key = k('claim-ttl');
      assert.equal(await store.claim(key, 'a', 200), true);
      assert.equal(await store.renew(key, 'b', 200), false);
      assert.equal(await store.renew(key, 'a', 400), true);
      await sleep(250);
      assert.equal(await store.claim(key, 'b', 200), false, 'renewed claim still held');
      await sleep(250);
      assert.equal(await store.claim(key, 'b', 200), true, 'expired claim taken over');
    });

    test('release frees a claim only for its holder', async () => {
      const key = k('release');
      await store.claim(key, 'a', 10_000);
      await store.release(key, 'b');
      assert.equal(await store.holder(key), 'a');
      await store.release(key, 'a');
      assert.equal(await store.holder(key), undefined);
      assert.equal(await store.claim(key, 'b', 10_000), true);
    });

    test('deletePrefix deletes exactly the keys under a prefix, whatever characters it holds', async () => {
      const b = randomUUID();
      // A project id with SQL LIKE wildcards (% _) and glob wildcards (* ? [ ]).
      const prefix = `${b}:p%_*?[x]:`;
      const doomed = [`${prefix}1`, `${prefix}nested:2`];
      const kept = `${prefix}installation`;
      const survivors = [
        `${b}:pAB*?[x]:1`, // what % and _ would match unescaped
        `${b}:p%_LONGQx:1`, // what *, ? and [x] would match unescaped
        `${b}:P%_*?[x]:1`, // another case: SQLite's LIKE ignores it
        `${b}:p%_*?[x]`, // the prefix without its separator
        `other:${prefix}1`, // the prefix later in a key
      ];
      for (const key of [...doomed, kept, ...survivors]) await store.kv.set(key, { key });
      await store.claim(`${prefix}claim`, 'h', 10_000);

      assert.equal(await store.deletePrefix(prefix, [kept]), doomed.length);
      for (const key of doomed) assert.equal(await store.kv.get(key), undefined, key);
      for (const key of [kept, ...survivors])
        assert.deepEqual(await store.kv.get(key), { key }, key);
      assert.equal(await store.holder(`${prefix}claim`), 'h', 'claims are not values');
      assert.equal(await store.deletePrefix(prefix, [kept]), 0);

      // A backslash is a character like any other (it is the escape in both patterns).
      await store.kv.set(`${b}:q\\%:1`, 1);
      await store.kv.set(`${b}:q\\Z:1`, 2);
      assert.equal(await store.deletePrefix(`${b}:q\\%:`), 1);
      assert.equal(await store.kv.get(`${b}:q\\Z:1`), 2);
    });

    test('deleteClaims frees exactly the claims under a prefix', async () => {
      const b = randomUUID();
      const prefix = `${b}:p%_*?[x]:`;
      await store.claim(`${prefix}ingest:f1`, 'a', 10_000);
      await store.claim(`${prefix}ingest:f2`, 'b', 10_000);
      await store.claim(`${b}:pAB*?[x]:ingest:f1`, 'c', 10_000);
      await store.claim(`${b}:p%_LONGQx:ingest:f1`, 'd', 10_000);
      await store.kv.set(`${prefix}value`, 'v');
      assert.equal(await store.deleteClaims(prefix), 2);
      assert.equal(await store.holder(`${prefix}ingest:f1`), undefined);
      assert.equal(await store.claim(`${prefix}ingest:f2`, 'e', 10_000), true);
      assert.equal(await store.holder(`${b}:pAB*?[x]:ingest:f1`), 'c');
      assert.equal(await store.holder(`${b}:p%_LONGQx:ingest:f1`), 'd');
      assert.equal(await store.kv.get(`${prefix}value`), 'v', 'values are not claims');
    });

    test('session history survives reopening the store', async () => {
      const key = k('history');
      const history = new SessionHistory(store, 100);
      await history.save(key, [new HumanMessage('hello'), new AIMessage('hi there')]);
      const again = await reopen();
      try {
        const loaded = await new SessionHistory(again, 100).load(key);
        assert.deepEqual(
          loaded.map((m) => [m.type, m.content]),
          [
            ['human', 'hello'],
            ['ai', 'hi there'],
          ],
        );
      } finally {
        await again.close();
      }
    });

    test('history beyond its cap is archived, not lost', async () => {
      const key = k('archive');
      const history = new SessionHistory(store, 2);
      await history.save(key, [
        new HumanMessage('1'),
        new AIMessage('2'),
        new HumanMessage('3'),
        new AIMessage('4'),
      ]);
      assert.deepEqual(
        (await history.load(key)).map((m) => m.content),
        ['3', '4'],
      );
      assert.deepEqual(
        (await history.archived(key)).map((m) => m.content),
        ['1', '2'],
      );
    });

    test('the session lock makes a second worker wait until the first releases', async () => {
      const lock = new SessionLock(store, { ttlMs: 5000, pollMs: 20 });
      const key = k('lock');
      const first = await lock.acquire(key, 1000);
      const order: string[] = [];
      const second = lock.acquire(key, 2000).then((held) => {
        order.push('second');
        return held;
      });
      await sleep(100);
      order.push('first-done');
      await first.release();
      await (await second).release();
      assert.deepEqual(order, ['first-done', 'second']);
      await assert.rejects(async () => {
        const held = await lock.acquire(key, 1000);
        try {
          await lock.acquire(key, 100);
        } finally {
          await held.release();
        }
      }, /locked by another worker/);
    });
  });
}
