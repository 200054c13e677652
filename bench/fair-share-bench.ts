// Sharing the GPU (issue 22): the flood scenario's first-token wait for the quiet channels, FIFO
// vs fair, in token time (each turn holds a slot for 400 tokens; 8 slots); the scheduler's own
// cost per admission; and the cost of booking one model call's usage (SQLite, and Redis when
// TEST_REDIS_URL is set).
import { randomBytes } from 'node:crypto';
import { FairSlots } from '../src/core/fair-slots.ts';
import { UsageAccounting } from '../src/core/usage-accounting.ts';
import { createLogger } from '../src/log/logger.ts';
import { createMetrics } from '../src/log/metrics.ts';
import { RedisUsageLedger } from '../src/store/redis-usage-ledger.ts';
import { SqliteUsageLedger } from '../src/store/sqlite-usage-ledger.ts';
import type { UsageLedger } from '../src/store/usage-ledger.ts';
import { floodScenario, percentileOf, simulate } from '../test/support/fair-sim.ts';

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
    lines.push(
      ...(await usageWrites(
        'Redis',
        new RedisUsageLedger(redis, `tm:bench:${randomBytes(4).toString('hex')}`),
      )),
    );
  }
  return lines;
}
