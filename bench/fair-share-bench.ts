// Sharing the GPU (issue 22): the flood scenario's first-token wait for the quiet channels, FIFO
// vs fair, in token time (each turn holds a slot for 400 tokens; 8 slots); the scheduler's own
// cost per admission; and the cost of booking one model call's usage (SQLite, and Redis when
// TEST_REDIS_URL is set).
import { randomBytes } from 'node:crypto';
import { FairSlots } from '../src/core/fair-slots.ts';
import { UsageAccounting } from '../src/core/usage-accounting.ts';
import { createLogger } from '../src/log/logger.ts';
import { createMetrics } from '../src/log/metrics.ts';
import { RedisFairCounters } from '../src/store/redis-fair-counters.ts';
import { RedisUsageLedger } from '../src/store/redis-usage-ledger.ts';
import { SqliteUsageLedger } from '../src/store/sqlite-usage-ledger.ts';
import type { UsageLedger } from '../src/store/usage-ledger.ts';
import {
  floodScenario,
  percentileOf,
  type SimQuestion,
  simulate,
  simulateCluster,
  simulateWorkers,
  type WorkerQuestion,
} from '../test/support/fair-sim.ts';

const COST = 400;

async function floodFigures(slots: number): Promise<string[]> {
  const qs = floodScenario(100, 5);
  const alone = floodScenario(0, 5);
  const quiet = (startAt: number[], list = qs) =>
    list.flatMap((q, i) => (q.channel === 'A' ? [] : [startAt[i] ?? 0]));
  const base = quiet((await simulate(alone, { slots, mode: 'fair', cost: COST })).startAt, alone);
  const lines: string[] = [];
  const show = (label: string, v: number[]) =>
    `${label}: p50 ${percentileOf(v, 50)} tok, p95 ${percentileOf(v, 95)} tok`;
  lines.push(
    `${slots} slots, quiet channels (2 x 5 questions, n=10) ${show('without flood', base)}`,
  );
  for (const mode of ['fifo', 'fair'] as const) {
    const w = quiet((await simulate(qs, { slots, mode, cost: COST })).startAt);
    lines.push(
      `  with a 100-question flood, ${show(mode, w)} (p95 ${(percentileOf(w, 95) / Math.max(1, percentileOf(base, 95))).toFixed(2)}x)`,
    );
  }
  return lines;
}

/** Acquire (enqueue) and release (pick the next: least-used channel, then person) with N waiting. */
async function schedulerCost(waiting: number): Promise<string> {
  const slots = new FairSlots({ slots: 1, mode: 'fair', estimateTokens: COST });
  const granted: ((t?: number) => void)[] = [];
  const take = (i: number) =>
    void slots
      .acquire({ channel: `c${i % 10}`, person: `p${i % 40}`, weight: 1 })
      .then((r) => granted.push(r));
  take(0);
  await new Promise((r) => setImmediate(r));
  const acquire: number[] = [];
  for (let i = 1; i <= waiting; i++) {
    const t = performance.now();
    take(i);
    acquire.push(performance.now() - t);
  }
  const release: number[] = [];
  while (granted.length > 0) {
    const r = granted.shift();
    const t = performance.now();
    r?.(COST);
    release.push(performance.now() - t);
    await new Promise((done) => setImmediate(done));
  }
  const us = (v: number[], p: number) => `${(percentileOf(v, p) * 1000).toFixed(1)} µs`;
  return `scheduler, ${waiting} waiting over 10 channels x 40 people: acquire p50 ${us(acquire, 50)} p99 ${us(acquire, 99)}, release+pick-next p50 ${us(release, 50)} p99 ${us(release, 99)} (n=${waiting})`;
}

async function usageWrites(name: string, ledger: UsageLedger): Promise<string[]> {
  const times: number[] = [];
  const n = 2000;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await ledger.add({
      ...{ day: '2026-12-01', project: 'slack:T1', channel: `slack:T1:C${i % 20}` },
      ...{
        person: `slack:U${i % 50}`,
        model: 'qwen3-8b',
        kind: 'answer',
        prompt: 1200,
        completion: 300,
      },
    });
    times.push(performance.now() - t);
  }
  // What the turn itself waits for: the booking is handed to the ledger, not awaited.
  const usage = new UsageAccounting({
    ledger,
    metrics: createMetrics(),
    log: createLogger('silent'),
  });
  const tag = { project: 'slack:T1', channel: 'slack:T1:C1', person: 'slack:U1' };
  const inline: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    usage.book({
      ...{ tag: { ...tag, kind: 'answer', priority: 'interactive' }, kind: 'answer' },
      ...{ model: 'qwen3-8b', prompt: 1200, completion: 300, source: 'server' },
    });
    inline.push(performance.now() - t);
    if (i % 50 === 0) await usage.settled();
  }
  await usage.close();
  const f = (v: number) => `${v.toFixed(3)} ms`;
  return [
    `usage write (${name}), awaited: p50 ${f(percentileOf(times, 50))}, p99 ${f(percentileOf(times, 99))} per model call (n=${n})`,
    `usage booking (${name}), what the turn waits: p50 ${f(percentileOf(inline, 50))}, p99 ${f(percentileOf(inline, 99))} per model call (n=${n})`,
  ];
}

const quietOf = (qs: readonly SimQuestion[], startAt: number[], loud: string) =>
  qs.flatMap((q, i) => (q.channel === loud ? [] : [startAt[i] ?? Number.NaN]));
const p = (v: number[]) => `p50 ${percentileOf(v, 50)} tok, p95 ${percentileOf(v, 95)} tok`;

/** Two workers' schedulers; `shared`: their counters in Redis (one prefix), else each its own. */
function twoWorkers(slots: number, redis: string | undefined, opened: RedisFairCounters[]) {
  const prefix = `tm:bench:fair:${randomBytes(4).toString('hex')}`;
  return [0, 1].map(() => {
    const shared = redis
      ? new RedisFairCounters(redis, { prefix, forgetIdleMs: 600_000 })
      : undefined;
    if (shared) opened.push(shared);
    return new FairSlots({ slots, mode: 'fair', estimateTokens: COST, shared });
  });
}

/**
 * Split roles, two workers: (1) a heavy client's 20 questions spread over both workers and a light
 * client's 5 on one, each worker one slot: the light client's wait with each worker's own counters
 * vs counters shared in Redis; (2) the flood scenario through the queue (FIFO vs fair intake) to two
 * workers of 4 slots each.
 */
async function acrossWorkers(redis: string): Promise<string[]> {
  const opened: RedisFairCounters[] = [];
  const lines: string[] = [];
  const light = (heavy: number) => {
    const qs: WorkerQuestion[] = [];
    for (let i = 0; i < heavy; i++) qs.push({ channel: 'heavy', person: 'h', worker: i % 2 });
    for (let i = 0; i < 5; i++) qs.push({ channel: 'light', person: 'l', worker: 1 });
    return qs;
  };
  const alone = light(0);
  const base = quietOf(
    alone,
    (await simulateWorkers(alone, twoWorkers(1, redis, opened), COST)).startAt,
    'heavy',
  );
  const qs = light(20);
  const own = quietOf(
    qs,
    (await simulateWorkers(qs, twoWorkers(1, undefined, opened), COST)).startAt,
    'heavy',
  );
  const shared = quietOf(
    qs,
    (await simulateWorkers(qs, twoWorkers(1, redis, opened), COST)).startAt,
    'heavy',
  );
  const ratio = (v: number[]) =>
    (percentileOf(v, 95) / Math.max(1, percentileOf(base, 95))).toFixed(2);
  // The heavy client's waits in the same runs (its 20 questions, n=20).
  const heavyOf = (startAt: number[]) =>
    qs.flatMap((q, i) => (q.channel === 'heavy' ? [startAt[i] ?? Number.NaN] : []));
  const heavyOwn = heavyOf(
    (await simulateWorkers(qs, twoWorkers(1, undefined, opened), COST)).startAt,
  );
  const heavyShared = heavyOf(
    (await simulateWorkers(qs, twoWorkers(1, redis, opened), COST)).startAt,
  );
  lines.push(
    `2 workers x 1 slot, light client (5 questions on worker 2, n=5) alone: ${p(base)}`,
    `  beside a heavy client (20 over both): own counters per worker ${p(own)} (p95 ${ratio(own)}x); counters shared in Redis ${p(shared)} (p95 ${ratio(shared)}x)`,
    `  the heavy client's own waits (n=20): own counters ${p(heavyOwn)}; shared ${p(heavyShared)}`,
  );
  const flood = floodScenario(100, 5);
  const quiet = floodScenario(0, 5);
  for (const concurrency of [4, 16]) {
    const run = async (list: SimQuestion[], fairIntake: boolean, sharedRedis: string | undefined) =>
      quietOf(
        list,
        (
          await simulateCluster(list, {
            workers: twoWorkers(4, sharedRedis, opened),
            concurrency,
            fairIntake,
            cost: COST,
          })
        ).startAt,
        'A',
      );
    const b = await run(quiet, true, redis);
    const before = await run(flood, false, undefined);
    const after = await run(flood, true, redis);
    const r = (v: number[]) => (percentileOf(v, 95) / Math.max(1, percentileOf(b, 95))).toFixed(2);
    lines.push(
      `2 workers x 4 slots, queue concurrency ${concurrency}, quiet channels (n=10) without flood: ${p(b)}`,
      `  with a 100-question flood: before (FIFO queue, own counters) ${p(before)} (p95 ${r(before)}x); after (fair intake, shared counters) ${p(after)} (p95 ${r(after)}x)`,
    );
  }
  await Promise.all(opened.map((c) => c.close()));
  return lines;
}

/** One admission step on the shared counters (a Lua script over Redis), 10 channels waiting. */
async function sharedStepCost(redis: string): Promise<string> {
  const c = new RedisFairCounters(redis, {
    prefix: `tm:bench:fair:${randomBytes(4).toString('hex')}`,
    forgetIdleMs: 600_000,
  });
  const candidates = Array.from({ length: 10 }, (_, i) => ({
    channel: `c${i}`,
    weight: 1,
    people: [`p${i}`, `q${i}`, `r${i}`, `s${i}`],
  }));
  const times: number[] = [];
  const n = 2000;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const step = await c.step(
      [{ channel: `c${i % 10}`, person: `p${i % 10}`, channelTokens: 50, personTokens: 50 }],
      candidates,
      COST,
    );
    if (!step.pick) throw new Error('no pick');
    times.push(performance.now() - t);
  }
  await c.close();
  const ms = (v: number) => `${v.toFixed(3)} ms`;
  return `shared admission step (Redis Lua, 10 channels x 4 people waiting): p50 ${ms(percentileOf(times, 50))}, p99 ${ms(percentileOf(times, 99))} (n=${n})`;
}

export async function benchFairShare(): Promise<string[]> {
  const lines = [
    ...(await floodFigures(8)),
    ...(await floodFigures(1)),
    await schedulerCost(100),
    await schedulerCost(2000),
  ];
  lines.push(
    ...(await usageWrites(
      'SQLite file',
      new SqliteUsageLedger(`/tmp/tm-usage-bench-${randomBytes(4).toString('hex')}.db`),
    )),
  );
  const redis = process.env.TEST_REDIS_URL;
  if (redis) {
    lines.push(...(await acrossWorkers(redis)), await sharedStepCost(redis));
    lines.push(
      ...(await usageWrites(
        'Redis',
        new RedisUsageLedger(redis, `tm:bench:${randomBytes(4).toString('hex')}`),
      )),
    );
  }
  return lines;
}
