import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LatestWrites } from '../../src/util/latest-writes.ts';

/** A store whose writes finish only when the test lets them; it records what reached it. */
function heldStore() {
  const done: string[] = [];
  const held: (() => void)[] = [];
  const step = (what: string) =>
    new Promise<void>((resolve) => {
      held.push(() => {
        done.push(what);
        resolve();
      });
    });
  return {
    done,
    release: () => held.shift()?.(),
    waiting: () => held.length,
    set: (key: string, value: unknown) => step(`set ${key}=${String(value)}`),
    delete: (key: string) => step(`delete ${key}`),
  };
}

const turn = () => new Promise((r) => setImmediate(r));

test('changes made while a key is written go out in one more write of the latest value', async () => {
  const store = heldStore();
  const w = new LatestWrites(store);
  let value = 1;
  const first = w.write('a', () => value);
  value = 2;
  const second = w.write('a', () => value);
  value = 3;
  const third = w.write('a', () => value);
  assert.equal(store.waiting(), 1);
  store.release();
  await turn();
  store.release();
  await Promise.all([first, second, third]);
  assert.deepEqual(store.done, ['set a=1', 'set a=3']);
});

test('keys are written independently, and undefined deletes the key', async () => {
  const store = heldStore();
  const w = new LatestWrites(store);
  const a = w.write('a', () => 'x');
  const b = w.write('b', () => undefined);
  assert.equal(store.waiting(), 2);
  store.release();
  store.release();
  await Promise.all([a, b]);
  assert.deepEqual(store.done, ['set a=x', 'delete b']);
});

test('flush waits for every write, a failed one too, and a failed key can be written again', async () => {
  let fail = true;
  const written: string[] = [];
  const w = new LatestWrites({
    set: async (key: string, value: unknown) => {
      if (fail) throw new Error('store down');
      written.push(`${key}=${String(value)}`);
    },
    delete: async () => undefined,
  });
  const failed = w.write('a', () => 1);
  await assert.rejects(failed, /store down/);
  await w.flush();
  fail = false;
  await w.write('a', () => 2);
  await w.flush();
  assert.deepEqual(written, ['a=2']);
});
