import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { QuietGate } from '../../src/util/quiet-gate.ts';

test('no work starts while a request is still being answered; it starts once that one is answered', async () => {
  // The hold is far beyond the test: only the open request keeps the work back.
  const gate = new QuietGate(1, 60_000);
  let started = false;
  gate.arrived();
  const work = gate.wait().then(() => {
    started = true;
  });
  await sleep(30);
  assert.equal(started, false, 'work started while a request was open');
  gate.answered();
  await work;
  assert.equal(started, true);
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

test('a steady stream of requests holds work back for the hold at most', async () => {
  const gate = new QuietGate(60_000, 20);
  gate.arrived();
  // Never answered and never quiet: the hold alone releases it.
  await gate.wait();
});
