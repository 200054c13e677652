// Fair admission across workers (split roles): two schedulers, each with its own slot, share their
// counters in a real Redis. A heavy client keeps both workers busy; a light client whose questions
// sit on one of them is not starved: it gets its fair half of the GPU, where counters of its own
// worker alone would give it only half of that worker. Token time, never the wall clock.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { FairSlots } from '../../src/core/fair-slots.ts';
import { RedisFairCounters } from '../../src/store/redis-fair-counters.ts';
import { percentileOf, simulateWorkers, type WorkerQuestion } from '../support/fair-sim.ts';

const COST = 400;
const url = process.env.TEST_REDIS_URL;
if (!url) throw new Error('TEST_REDIS_URL is required');
const opened: RedisFairCounters[] = [];
after(() => Promise.all(opened.map((c) => c.close())));

function counters(prefix: string): RedisFairCounters {
  const c = new RedisFairCounters(url as string, { prefix, forgetIdleMs: 60_000 });
  opened.push(c);
  return c;
}

/** Two workers of one slot each; shared: both use one set of counters in Redis. */
function workers(shared: boolean): FairSlots[] {
  const prefix = `tm:test:fair:${randomBytes(4).toString('hex')}`;
  return [0, 1].map(
    () =>
      new FairSlots({
        slots: 1,
        mode: 'fair',
        estimateTokens: COST,
        shared: shared ? counters(prefix) : undefined,
      }),
  );
}

/** 20 heavy questions spread over both workers, then 5 light ones, all on worker 1. */
function scenario(heavy: number): WorkerQuestion[] {
  const qs: WorkerQuestion[] = [];
  for (let i = 0; i < heavy; i++) qs.push({ channel: 'heavy', person: 'h', worker: i % 2 });
  for (let i = 0; i < 5; i++) qs.push({ channel: 'light', person: 'l', worker: 1 });
  return qs;
}

const lightWaits = (qs: readonly WorkerQuestion[], startAt: number[]) =>
  qs.flatMap((q, i) => (q.channel === 'light' ? [startAt[i] ?? Number.NaN] : []));

describe('fair admission across workers (shared counters in Redis)', () => {
  it('a heavy client on two workers does not starve a light one: within 1.5× of its wait alone', async () => {
    const alone = scenario(0);
    const base = percentileOf(
      lightWaits(alone, (await simulateWorkers(alone, workers(true), COST)).startAt),
      95,
    );
    const qs = scenario(20);
    const shared = lightWaits(qs, (await simulateWorkers(qs, workers(true), COST)).startAt);
    const own = lightWaits(qs, (await simulateWorkers(qs, workers(false), COST)).startAt);
    assert.equal(shared.length, 5);
    assert.ok(shared.every(Number.isFinite), 'every light question started');
    // The heavy client's first turn holds the slot when the light questions arrive: 1.5× plus it.
    const p95 = percentileOf(shared, 95);
    assert.ok(p95 <= 1.5 * base + COST, `shared p95 ${p95} vs ${base} alone`);
    // Counters of each worker alone: the light client takes turns with the heavy one on its worker.
    assert.ok(percentileOf(own, 95) > p95, `own ${own.join(',')} vs shared ${shared.join(',')}`);
  });

  it('the heavy client still gets the slots nobody else wants', async () => {
    const qs = scenario(20);
    const { startAt } = await simulateWorkers(qs, workers(true), COST);
    assert.equal(startAt.filter(Number.isFinite).length, qs.length);
    // Worker 1 holds 15 questions of 400 tokens: its slot is never idle while one waits.
    assert.equal(Math.max(...startAt), 14 * COST);
  });
});
