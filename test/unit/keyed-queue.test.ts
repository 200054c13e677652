import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeyedQueue } from '../../src/util/keyed-queue.ts';
import { Semaphore } from '../../src/util/semaphore.ts';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

test('tasks of one key run one at a time in arrival order; other keys are not held up', async () => {
  const q = new KeyedQueue(10);
  const log: string[] = [];
  const gate = deferred();
  const a1 = q.push('a', async () => {
    log.push('a1 start');
    await gate.promise;
    log.push('a1 end');
  });
  const a2 = q.push('a', async () => {
    log.push('a2');
  });
  const b1 = q.push('b', async () => {
    log.push('b1');
  });
  await b1;
  assert.deepEqual(log, ['a1 start', 'b1']);
  assert.equal(q.pending('a'), 2);
  gate.resolve();
  await Promise.all([a1, a2]);
  assert.deepEqual(log, ['a1 start', 'b1', 'a1 end', 'a2']);
  assert.equal(q.size, 0);
});

test('a failing task does not stop the ones behind it', async () => {
  const q = new KeyedQueue(10);
  const failed = q.push('a', async () => {
    throw new Error('boom');
  });
  const next = q.push('a', async () => 'ran');
  await assert.rejects(failed as Promise<unknown>, /boom/);
  assert.equal(await next, 'ran');
});

test('a key refuses tasks beyond its bound', async () => {
  const q = new KeyedQueue(2);
  const gate = deferred();
  const first = q.push('a', () => gate.promise);
  const second = q.push('a', async () => undefined);
  assert.equal(
    q.push('a', async () => undefined),
    undefined,
  );
  assert.ok(
    q.push('b', async () => undefined),
    'another key still has room',
  );
  gate.resolve();
  await Promise.all([first, second]);
  assert.ok(
    q.push('a', async () => undefined),
    'room again once drained',
  );
});

test('without a bound every task is taken, still one at a time per key', async () => {
  const q = new KeyedQueue();
  let running = 0;
  let peak = 0;
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      q.run('a', async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setImmediate(r));
        running--;
        return i;
      }),
    ),
  );
  assert.equal(peak, 1);
  assert.deepEqual(
    results,
    Array.from({ length: 50 }, (_, i) => i),
  );
  assert.equal(q.size, 0);
});

test('the semaphore never lets more than its permits run, first come first served', async () => {
  const sem = new Semaphore(2);
  let running = 0;
  let peak = 0;
  const order: number[] = [];
  await Promise.all(
    Array.from({ length: 10 }, async (_, i) => {
      const release = await sem.acquire();
      order.push(i);
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setImmediate(r));
      running--;
      release();
    }),
  );
  assert.equal(peak, 2);
  assert.deepEqual(
    order,
    [...order].sort((a, b) => a - b),
  );
});
