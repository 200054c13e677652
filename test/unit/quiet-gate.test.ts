import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QuietGate } from '../../src/util/quiet-gate.ts';

/** Lets every callback and promise that is due run (setImmediate is not mocked). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

test('no work starts while a request is still being answered; it starts once that one is answered', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  // The hold is far beyond the test: only the open request keeps the work back.
  const gate = new QuietGate(1, 60_000, Number.POSITIVE_INFINITY, () => Date.now());
  let started = false;
  gate.arrived();
  const work = gate.wait().then(() => {
    started = true;
  });
  // Many quiet periods pass, the request still open.
  for (let i = 0; i < 30; i += 1) {
    t.mock.timers.tick(1);
    await settle();
  }
  assert.equal(started, false, 'work started while a request was open');
  gate.answered();
  t.mock.timers.tick(1);
  await settle();
  assert.equal(started, true, 'work starts one quiet period after the answer');
  await work;
});

test('a burst is released in arrival order, a slice at a time, each on a turn of the event loop of its own', async () => {
  const gate = new QuietGate(1, 60_000, 2);
  // Counts the event loop's turns (the poll phase, where requests are read, runs once per turn).
  let turn = 0;
  let counting = true;
  const count = () => {
    turn += 1;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  const started: { i: number; turn: number }[] = [];
  await Promise.all(
    Array.from({ length: 5 }, (_, i) => gate.wait().then(() => started.push({ i, turn }))),
  );
  counting = false;
  assert.deepEqual(
    started.map((s) => s.i),
    [0, 1, 2, 3, 4],
  );
  const turns = started.map((s) => s.turn);
  assert.equal(turns[0], turns[1], 'one slice starts together');
  assert.equal(turns[2], turns[3]);
  assert.ok((turns[1] ?? 0) < (turns[2] ?? 0), 'the next slice waits for a later turn');
  assert.ok((turns[3] ?? 0) < (turns[4] ?? 0));
});

test('a steady stream of requests holds work back for the hold at most', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const gate = new QuietGate(60_000, 20, Number.POSITIVE_INFINITY, () => Date.now());
  gate.arrived();
  let started = false;
  const work = gate.wait().then(() => {
    started = true;
  });
  // Never answered and never quiet: the hold alone releases it, long before a quiet period.
  t.mock.timers.tick(19);
  await settle();
  assert.equal(started, false, 'released before the hold was over');
  t.mock.timers.tick(1);
  await settle();
  assert.equal(started, true, 'still held once the hold was over');
  await work;
});
