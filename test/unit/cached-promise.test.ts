// A cached promise is shared by every caller until it fails; a failure is not kept, so the next
// caller reads again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cachedPromise } from '../../src/util/cached-promise.ts';

test('callers share one read; a failed read is tried again by the next caller', async () => {
  const cache = new Map<string, Promise<string[]>>();
  let reads = 0;
  const read = (fail: boolean) => async () => {
    reads += 1;
    if (fail) throw new Error('channel unreadable');
    return ['U1', 'U2'];
  };
  await assert.rejects(cachedPromise(cache, 'C1', read(true)), /unreadable/);
  await new Promise((r) => setImmediate(r));
  assert.equal(cache.has('C1'), false, 'the failure is not kept');
  const [a, b] = await Promise.all([
    cachedPromise(cache, 'C1', read(false)),
    cachedPromise(cache, 'C1', read(false)),
  ]);
  assert.deepEqual(a, ['U1', 'U2']);
  assert.equal(a, b);
  assert.equal(reads, 2);
});
