// Runs questions through FairSlots as a GPU would serve them, in token time rather than wall-clock
// time: each turn holds its slot for `cost` tokens, then releases it with what it used. Start
// times are what a person waits before the first token (their arrival is 0 unless given).
import { FairSlots } from '../../src/core/fair-slots.ts';

export interface SimQuestion {
  channel: string;
  person: string;
  weight?: number;
  /** Tokens the turn uses (default `cost`). */
  tokens?: number;
}

export interface SimResult {
  /** Start time (token time) of each question, by index. */
  startAt: number[];
  /** Indexes in the order they got a slot. */
  order: number[];
}

const flush = () => new Promise<void>((r) => setImmediate(r));

export async function simulate(
  questions: readonly SimQuestion[],
  o: { slots: number; mode: 'fair' | 'fifo'; cost: number },
): Promise<SimResult> {
  const slots = new FairSlots({ slots: o.slots, mode: o.mode, estimateTokens: o.cost });
  const startAt: number[] = [];
  const order: number[] = [];
  const running: { end: number; tokens: number; release: (t?: number) => void }[] = [];
  let now = 0;
  questions.forEach((q, i) => {
    void slots
      .acquire({ channel: q.channel, person: q.person, weight: q.weight ?? 1 })
      .then((release) => {
        startAt[i] = now;
        order.push(i);
        const tokens = q.tokens ?? o.cost;
        running.push({ end: now + tokens, tokens, release });
      });
  });
  await flush();
  while (running.length > 0) {
    running.sort((a, b) => a.end - b.end);
    const done = running.shift();
    if (!done) break;
    now = done.end;
    done.release(done.tokens);
    await flush();
  }
  return { startAt, order };
}

export function percentileOf(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0
  );
}

/** The flood scenario: `flood` questions from one channel first, then `quiet` from each of two. */
export function floodScenario(flood: number, quiet: number): SimQuestion[] {
  const qs: SimQuestion[] = [];
  for (let i = 0; i < flood; i++) qs.push({ channel: 'A', person: `a${i % 3}` });
  for (let i = 0; i < quiet; i++) {
    qs.push({ channel: 'B', person: 'b' });
    qs.push({ channel: 'C', person: 'c' });
  }
  return qs;
}

/** A question held by one of several workers (split roles: BullMQ decides which). */
export interface WorkerQuestion extends SimQuestion {
  worker: number;
}

/** Until no worker has an admission step under way (the shared counters answer over Redis). */
async function settle(workers: readonly FairSlots[]): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    await flush();
    if (workers.every((w) => w.settled)) {
      await flush();
      if (workers.every((w) => w.settled)) return;
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  throw new Error('the workers did not settle');
}

/**
 * The same in token time over several workers, each with its own FairSlots (and slots), all of
 * them perhaps sharing counters: the questions arrive in order at time 0, each at its worker.
 */
export async function simulateWorkers(
  questions: readonly WorkerQuestion[],
  workers: readonly FairSlots[],
  cost: number,
): Promise<SimResult> {
  const startAt: number[] = [];
  const order: number[] = [];
  const running: { end: number; tokens: number; release: (t?: number) => void }[] = [];
  let now = 0;
  for (const [i, q] of questions.entries()) {
    const slots = workers[q.worker];
    if (!slots) throw new Error(`no worker ${q.worker}`);
    void slots
      .acquire({ channel: q.channel, person: q.person, weight: q.weight ?? 1 })
      .then((release) => {
        startAt[i] = now;
        order.push(i);
        const tokens = q.tokens ?? cost;
        running.push({ end: now + tokens, tokens, release });
      });
    // Arrivals are one at a time, as jobs reach their workers.
    await settle(workers);
  }
  while (running.length > 0) {
    running.sort((a, b) => a.end - b.end);
    const done = running.shift();
    if (!done) break;
    now = done.end;
    done.release(done.tokens);
    await settle(workers);
  }
  return { startAt, order };
}

export interface ClusterOptions {
  /** Each worker's scheduler (its slots: turns running at once on it). */
  workers: readonly FairSlots[];
  /** Jobs one worker holds at once (BullMQ concurrency): running or waiting for its slots. */
  concurrency: number;
  /** Channels take turns in the queue (BullMQ priority: place among the channel's waiting jobs). */
  fairIntake: boolean;
  cost: number;
}

/**
 * Split roles in token time: the questions arrive in order at time 0 in the shared queue; a worker
 * takes the next job whenever it holds fewer than `concurrency`, and its scheduler gives it a slot.
 */
export async function simulateCluster(
  questions: readonly SimQuestion[],
  o: ClusterOptions,
): Promise<SimResult> {
  const waitingOf = new Map<string, number>();
  const queue = questions.map((q, i) => {
    const place = (waitingOf.get(q.channel) ?? 0) + 1;
    waitingOf.set(q.channel, place);
    return { i, q, priority: o.fairIntake ? place : 0 };
  });
  queue.sort((a, b) => a.priority - b.priority || a.i - b.i);
  const held = o.workers.map(() => 0);
  const startAt: number[] = [];
  const order: number[] = [];
  const running: { end: number; tokens: number; worker: number; release: (t?: number) => void }[] =
    [];
  let now = 0;
  const pull = async () => {
    for (let w = 0; w < o.workers.length; w++) {
      const slots = o.workers[w] as FairSlots;
      while ((held[w] ?? 0) < o.concurrency && queue.length > 0) {
        const job = queue.shift();
        if (!job) break;
        held[w] = (held[w] ?? 0) + 1;
        const { q, i } = job;
        void slots
          .acquire({ channel: q.channel, person: q.person, weight: q.weight ?? 1 })
          .then((release) => {
            startAt[i] = now;
            order.push(i);
            const tokens = q.tokens ?? o.cost;
            running.push({ end: now + tokens, tokens, worker: w, release });
          });
        await settle(o.workers);
      }
    }
  };
  await pull();
  while (running.length > 0) {
    running.sort((a, b) => a.end - b.end);
    const done = running.shift();
    if (!done) break;
    now = done.end;
    held[done.worker] = (held[done.worker] ?? 1) - 1;
    done.release(done.tokens);
    await settle(o.workers);
    await pull();
  }
  return { startAt, order };
}
