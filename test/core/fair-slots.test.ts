// Fair admission: a channel flooding questions does not hold up quiet channels, one person
// flooding a channel does not hold up another person there, and a channel's weight buys it a
// larger share. Measured in token time and admission order, never the wall clock.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FairSlots } from '../../src/core/fair-slots.ts';
import { floodScenario, percentileOf, type SimQuestion, simulate } from '../support/fair-sim.ts';

const COST = 400;
const quietWaits = (qs: readonly SimQuestion[], startAt: number[]) =>
  qs.flatMap((q, i) => (q.channel === 'A' ? [] : [startAt[i] ?? Number.NaN]));

describe('fair admission', () => {
  it('3 channels, one floods 100: the quiet ones wait within 1.5× of their wait without the flood', async () => {
    const alone = floodScenario(0, 5);
    const flood = floodScenario(100, 5);
    for (const slots of [1, 8]) {
      const base = quietWaits(
        alone,
        (await simulate(alone, { slots, mode: 'fair', cost: COST })).startAt,
      );
      const fair = await simulate(flood, { slots, mode: 'fair', cost: COST });
      const fifo = await simulate(flood, { slots, mode: 'fifo', cost: COST });
      const withFlood = quietWaits(flood, fair.startAt);
      const fifoWaits = quietWaits(flood, fifo.startAt);
      const p95 = (v: number[]) => percentileOf(v, 95);
      // Turns are not preempted: the flood, first to arrive, holds every slot for one turn. The
      // bound is 1.5× plus that turn.
      const bound = 1.5 * p95(base) + COST;
      assert.ok(
        p95(withFlood) <= bound,
        `slots ${slots}: p95 ${p95(withFlood)} with the flood vs ${p95(base)} without`,
      );
      // FIFO, as before: they wait for the whole flood.
      assert.ok(Math.min(...fifoWaits) >= Math.floor(100 / slots) * COST, `slots ${slots}: fifo`);
      // After the turns already running, the three channels take turns: the quiet channels' ten
      // questions are all admitted within the next fifteen (two of every three).
      const quietAt = fair.order.flatMap((i, pos) => (flood[i]?.channel === 'A' ? [] : [pos]));
      assert.ok(Math.max(...quietAt) < slots + 15, `positions ${quietAt.join(',')}`);
    }
  });

  it('one person flooding a channel does not starve another person in it', async () => {
    const qs: SimQuestion[] = [
      ...Array.from({ length: 50 }, () => ({ channel: 'A', person: 'flood' })),
      ...Array.from({ length: 3 }, () => ({ channel: 'A', person: 'other' })),
    ];
    const { order } = await simulate(qs, { slots: 1, mode: 'fair', cost: COST });
    const positions = order.flatMap((i, pos) => (qs[i]?.person === 'other' ? [pos] : []));
    assert.deepEqual(positions, [1, 3, 5]);
  });

  it('a channel that used more tokens waits behind one that used fewer', async () => {
    const qs: SimQuestion[] = [
      { channel: 'A', person: 'a', tokens: 4000 },
      { channel: 'B', person: 'b', tokens: 100 },
      { channel: 'A', person: 'a' },
      { channel: 'B', person: 'b' },
      { channel: 'B', person: 'b' },
    ];
    const { order } = await simulate(qs, { slots: 1, mode: 'fair', cost: COST });
    // A's first turn used ten times the estimate: B's next two go first.
    assert.deepEqual(order, [0, 1, 3, 4, 2]);
  });

  it('weight 2 gets twice the turns while both wait', async () => {
    const qs: SimQuestion[] = Array.from({ length: 30 }, (_, i) => ({
      channel: i % 2 ? 'heavy' : 'light',
      person: 'p',
      weight: i % 2 ? 2 : 1,
    }));
    const { order } = await simulate(qs, { slots: 1, mode: 'fair', cost: COST });
    const first12 = order.slice(0, 12).map((i) => qs[i]?.channel);
    assert.equal(first12.filter((c) => c === 'heavy').length, 8);
  });

  it('says how many turns are ahead of a waiting one, and the count moves', async () => {
    const slots = new FairSlots({ slots: 1, mode: 'fair', estimateTokens: COST });
    const claim = (channel: string) => ({ channel, person: channel.toLowerCase(), weight: 1 });
    const first = await slots.acquire(claim('A'));
    const a2 = claim('A');
    const a3 = claim('A');
    const b1 = claim('B');
    for (const c of [a2, a3, b1]) void slots.acquire(c);
    assert.equal(slots.ahead(b1), 0, 'B has used nothing: next');
    assert.equal(slots.ahead(a2), 1);
    assert.equal(slots.ahead(a3), 2);
    first(COST);
    await new Promise((r) => setImmediate(r));
    assert.equal(slots.ahead(b1), undefined, 'B runs');
    assert.equal(slots.ahead(a2), 0, 'moved up');
    assert.equal(slots.waiting, 2);
  });

  it('a turn that reports no usable token count does not stall the turns waiting after it', async () => {
    const slots = new FairSlots({ slots: 1, mode: 'fair', estimateTokens: COST });
    const claim = { channel: 'C1', person: 'U1', weight: 1 };
    const first = await slots.acquire(claim);
    const next = slots.acquire(claim);
    first(Number.NaN);
    const second = await next;
    const after = slots.acquire({ channel: 'C2', person: 'U2', weight: 1 });
    second(COST);
    (await after)();
    assert.equal(slots.waiting, 0);
  });

  it('a turn withdrawn while it waits never starts, and the ones behind it move up', async () => {
    const slots = new FairSlots({ slots: 1, mode: 'fair', estimateTokens: COST });
    const first = await slots.acquire({ channel: 'A', person: 'a', weight: 1 });
    const gone = { channel: 'B', person: 'b', weight: 1 };
    const behind = { channel: 'A', person: 'a', weight: 1 };
    let started = false;
    void slots.acquire(gone).then(() => {
      started = true;
    });
    const next = slots.acquire(behind);
    assert.equal(slots.ahead(behind), 1);
    assert.equal(slots.withdraw(gone), true);
    assert.equal(slots.ahead(behind), 0, 'moved up');
    assert.equal(slots.withdraw(gone), false, 'only once');
    first(COST);
    (await next)(COST);
    await new Promise((r) => setImmediate(r));
    assert.equal(started, false);
    assert.equal(slots.waiting, 0);
  });

  it('forgets idle channels and people: what it keeps does not grow with everyone who ever asked', async () => {
    let now = 0;
    const slots = new FairSlots({
      ...{ slots: 1, mode: 'fair', estimateTokens: COST },
      ...{ forgetIdleMs: 10 * 60_000, now: () => now },
    });
    for (let i = 0; i < 500; i++) {
      now += 60_000;
      (await slots.acquire({ channel: `C${i}`, person: `U${i}`, weight: 1 }))(COST * (1 + (i % 3)));
    }
    // Pruned every 64 admissions: at most the last 64 + 10 minutes' channels, and their people.
    assert.ok(slots.known <= 2 * (64 + 10), `${slots.known} kept`);
  });
});
