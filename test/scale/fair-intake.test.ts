// Fair intake in split roles: channels take turns in the BullMQ queue itself, so a quiet channel's
// questions do not wait behind a flooding channel's whole burst for a worker to take them. One
// worker slot (a BullMQ worker of concurrency 1) takes the jobs in the order the queue gives.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { type Job, Worker } from 'bullmq';
import type { InboundMessage } from '../../src/model/incoming.ts';
import {
  channelOf,
  PREFIX,
  queueRedis,
  type TurnJobData,
  TurnQueue,
} from '../../src/queue/turn-queue.ts';
import { REF } from '../support/mock-port.ts';

const url = process.env.TEST_REDIS_URL;
if (!url) throw new Error('TEST_REDIS_URL is required');

function ask(channelId: string, i: number): InboundMessage {
  const ref = { ...REF, channelId, sessionId: `${channelId}-${i}` };
  return {
    ...{ ref, to: { ref, context: {} }, principal: `U-${channelId}`, text: `question ${i}` },
    ...{ messageId: `${channelId}.${i}`, receivedAt: 0, traceId: `t${i}`, addressed: 'mention' },
    dedupe: [`${channelId}.${i}`],
  };
}

/** 30 questions from channel A, then 3 from B; the channels in the order one worker takes them. */
async function takenOrder(fairIntake: boolean): Promise<string[]> {
  const name = `fair-intake-${randomBytes(4).toString('hex')}`;
  const redis = queueRedis(url as string);
  const queue = new TurnQueue(redis, { name, attempts: 1, backoffMs: 10, fairIntake });
  const ids = [
    ...Array.from({ length: 30 }, (_, i) => queue.enqueue(ask('A', i), undefined)),
    ...Array.from({ length: 3 }, (_, i) => queue.enqueue(ask('B', i), undefined)),
  ];
  await Promise.all(ids);
  const order: string[] = [];
  const taker = queueRedis(url as string);
  let worker: Worker<TurnJobData> | undefined;
  await new Promise<void>((done) => {
    worker = new Worker<TurnJobData>(
      name,
      async (job: Job<TurnJobData>) => {
        order.push(channelOf(job.data).split(':').at(-1) ?? '');
        if (order.length === ids.length) done();
      },
      { connection: taker, prefix: PREFIX, concurrency: 1 },
    );
  });
  await worker?.close();
  await queue.queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
  taker.disconnect();
  return order;
}

describe('fair intake (split roles)', () => {
  it("a quiet channel's questions are taken among the flood's first, not after it", async () => {
    const fair = await takenOrder(true);
    const positions = fair.flatMap((c, i) => (c === 'B' ? [i] : []));
    // The channels take turns: B's three go right after A's first three.
    assert.deepEqual(positions, [1, 3, 5]);
    const fifo = await takenOrder(false);
    assert.deepEqual(
      fifo.flatMap((c, i) => (c === 'B' ? [i] : [])),
      [30, 31, 32],
    );
  });
});
