// The turn queue between an ingress and a worker (in this process, on a Redis of the test's own):
// a message that fails on every attempt is retried with backoff, then told in its thread, kept in
// the failed set and counted, and its thread goes on; a job that is not a message fails clearly
// and the worker carries on; a worker told to stop finishes the answer it is streaming.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import type { RunningApp } from '../../src/compose/app.ts';
import type { HandledEvent } from '../../src/model/handled.ts';
import { jobIdOf, orderKey, PREFIX, type TurnJobData } from '../../src/queue/turn-queue.ts';
import type { Harness } from '../support/harness.ts';
import type { TestRedis } from '../support/redis-server.ts';
import { waitForReply } from '../support/slack-helpers.ts';
import { type SplitHarness, startSplitHarness } from '../support/split-harness.ts';

const QUEUE = `queue-test-${process.pid}`;

describe('turn queue (ingress → BullMQ → worker)', () => {
  let split: SplitHarness;
  let redis: TestRedis;
  let h: Harness;
  let worker: RunningApp;
  const seen: HandledEvent[] = [];
  /** Resolves when the worker has handled the message with this id (before or after the call). */
  const workerHandled = (messageId: string) =>
    new Promise<HandledEvent>((resolve) => {
      const hit = seen.find((e) => e.messageId === messageId);
      if (hit) return resolve(hit);
      const on = (e: HandledEvent) => {
        if (e.messageId !== messageId) return;
        worker.core.events.off('handled', on);
        resolve(e);
      };
      worker.core.events.on('handled', on);
    });

  before(async () => {
    split = await startSplitHarness({
      overrides: {
        scale: {
          ingressDrainMs: 1000,
          queue: { name: QUEUE, attempts: 2, backoffMs: 50, lockMs: 2000, orderPollMs: 20 },
        },
        server: { shutdownGraceMs: 10_000 },
      },
    });
    ({ redis, h, worker } = split);
    worker.core.events.on('handled', (e: HandledEvent) => seen.push(e));
  });

  after(async () => {
    await split?.close();
  });

  test('the ingress queues the message and the worker answers it in the thread', async () => {
    const { ts } = await h.slack.postUserMessage({
      channel: 'C1',
      user: 'U1',
      text: 'what is a queue?',
      mention: true,
    });
    // One mention arrives as two events (message and app_mention): one is queued.
    const events = await h.handled(ts, 2);
    assert.deepEqual(
      events.map((e) => e.handled.status).filter((s) => s === 'queued'),
      ['queued'],
    );
    await waitForReply(h.slack, 'C1', ts, 'what is a queue?');
  });

  test('failing on every attempt: retried, then told in the thread, failed set, metric; the thread goes on', async () => {
    const root = await h.slack.postUserMessage({
      channel: 'C2',
      user: 'U1',
      text: 'first question',
      mention: true,
    });
    await waitForReply(h.slack, 'C2', root.ts, 'first question');
    // "forget this thread" reads the thread's first message; Slack refuses that read every time.
    h.slack.failNext('conversations.replies', { error: 'internal_error', times: 20 });
    const forget = await h.slack.postUserMessage({
      channel: 'C2',
      thread_ts: root.ts,
      user: 'U1',
      text: 'forget this thread',
      mention: true,
    });
    await waitForReply(h.slack, 'C2', root.ts, 'even after several tries');
    const queue = new Queue(QUEUE, { connection: { url: redis.url }, prefix: 'threadmind' });
    try {
      const failed = await queue.getFailed();
      const job = failed.find((j) => j.data.msg.messageId === forget.ts);
      assert.ok(job, 'the job is in the failed set');
      assert.equal(job.attemptsMade, 2, 'tried as often as configured');
    } finally {
      await queue.close();
    }
    const metrics = await worker.metrics.registry.getSingleMetricAsString(
      'threadmind_queue_jobs_failed_total',
    );
    assert.match(metrics, /threadmind_queue_jobs_failed_total 1$/m);
    // The next message of the same thread is not held behind the failed one.
    const next = await h.slack.postUserMessage({
      channel: 'C2',
      thread_ts: root.ts,
      user: 'U1',
      text: 'still there?',
      mention: true,
    });
    await waitForReply(h.slack, 'C2', root.ts, 'still there?');
    const done = await workerHandled(next.ts);
    assert.equal(done.handled.status, 'turn');
  });

  test('erasing the workspace removes its queued, failed and finished jobs from Redis', async () => {
    const queue = new Queue(QUEUE, { connection: { url: redis.url }, prefix: 'threadmind' });
    const ofTeam = async () =>
      (await queue.getJobs(['wait', 'delayed', 'failed', 'completed'])).filter(
        (j) => j?.data?.msg?.ref?.projectId === h.slack.teamId,
      );
    const conn = new Redis(redis.url);
    const jobClaims = () => conn.keys(`${PREFIX}:${QUEUE}:job-for:slack:${h.slack.teamId}:*`);
    try {
      assert.ok((await jobClaims()).length > 0, 'answered messages hold their job claims');
      // The earlier tests left this workspace's messages in the failed and completed sets.
      assert.ok(
        (await ofTeam()).some((j) => j.failedReason),
        'a failed job with its text',
      );
      // And one waiting that no worker has taken yet.
      await queue.add(
        'turn',
        {
          session: `slack:${h.slack.teamId}:C9:1.000`,
          seq: 1,
          msg: { ref: { projectId: h.slack.teamId } },
        },
        { delay: 60_000 },
      );
      const other = await queue.add(
        'turn',
        { session: 'slack:TOTHER:C9:1.000', seq: 1, msg: {} },
        { delay: 60_000 },
      );
      h.slack.setUser('U0QADMIN1', { is_admin: true });
      const views = h.slack.openedViews().length;
      await h.slack.slashCommand({
        command: '/threadmind',
        user: 'U0QADMIN1',
        channel: 'C2',
        text: 'erase-workspace',
      });
      const modal = await h.slack.waitFor(() => h.slack.openedViews().slice(views)[0]);
      const seen = h.slack.ephemeralMessages().length;
      await h.slack.submitView({
        viewId: modal.id,
        user: 'U0QADMIN1',
        values: { word: { value: 'ERASE' } },
      });
      await h.slack.waitFor(() =>
        h.slack
          .ephemeralMessages()
          .slice(seen)
          .find((e) => /Erased what threadmind stored/.test(e.text)),
      );
      assert.deepEqual(await ofTeam(), [], 'nothing of the workspace is left in the queue');
      assert.deepEqual(await jobClaims(), [], "nor its messages' job claims");
      assert.ok(await queue.getJob(other.id ?? ''), "another workspace's job stays");
      await (await queue.getJob(other.id ?? ''))?.remove();
    } finally {
      conn.disconnect();
      await queue.close();
    }
  });

  test('a message queued twice (its first claim lapsed before the replay) is answered once', async () => {
    const { ts } = await h.slack.postUserMessage({
      channel: 'C5',
      user: 'U1',
      text: 'queued twice?',
      mention: true,
    });
    await waitForReply(h.slack, 'C5', ts, 'queued twice?');
    const opts = { connection: { url: redis.url }, prefix: PREFIX };
    const queue = new Queue<TurnJobData>(QUEUE, opts);
    const events = new QueueEvents(QUEUE, opts);
    const conn = new Redis(redis.url);
    const asked = h.llm.requests.length;
    try {
      await events.waitUntilReady();
      // The answer is posted a moment before its job is marked completed.
      const completed = async () =>
        (await queue.getJobs(['completed'])).find((j) => j.data.msg.messageId === ts);
      let first = await completed();
      for (let i = 0; !first && i < 100; i++) {
        await new Promise((r) => setTimeout(r, 50));
        first = await completed();
      }
      assert.ok(first, 'the first copy was queued and answered');
      // The replay's copy takes the session's next number, as the ingress numbers every message.
      const seq = await conn.hincrby(orderKey(QUEUE, first.data.session), 'seq', 1);
      const again = await queue.add(
        'turn',
        { ...first.data, seq, queuedAt: Date.now() },
        { jobId: jobIdOf(first.data.session, seq) },
      );
      assert.equal(await again.waitUntilFinished(events), 'duplicate');
    } finally {
      conn.disconnect();
      await events.close();
      await queue.close();
    }
    assert.equal(h.llm.requests.length, asked, 'the model was not asked again');
    const answers = h.slack
      .messages('C5', ts)
      .filter((m) => m.bot_id !== undefined && m.text.includes('queued twice?'));
    assert.equal(answers.length, 1, 'one answer in the thread');
  });

  test('a job that is not a message fails at once with a clear reason; the worker carries on', async () => {
    const opts = { connection: { url: redis.url }, prefix: 'threadmind' };
    const queue = new Queue(QUEUE, opts);
    const events = new QueueEvents(QUEUE, opts);
    try {
      await events.waitUntilReady();
      const job = await queue.add('turn', { session: 'x', seq: 1, msg: { text: 'no ref' } });
      await assert.rejects(job.waitUntilFinished(events), /the job is not a queued message/);
    } finally {
      await events.close();
      await queue.close();
    }
    const { ts } = await h.slack.postUserMessage({
      channel: 'C3',
      user: 'U1',
      text: 'after the bad job',
      mention: true,
    });
    await waitForReply(h.slack, 'C3', ts, 'after the bad job');
  });

  test('on stop a worker takes no new job and finishes the answer it is streaming', async () => {
    h.llm.enqueue({
      content: 'one two three four five six seven eight nine ten',
      chunkDelayMs: 60,
    });
    const { ts } = await h.slack.postUserMessage({
      channel: 'C4',
      user: 'U1',
      text: 'a slow one',
      mention: true,
    });
    await h.slack.waitFor(
      () =>
        h.slack.messages('C4', ts).some((m) => m.bot_id !== undefined && m.text.includes('two')) ||
        undefined,
    );
    await worker.stop();
    const replies = h.slack.messages('C4', ts).filter((m) => m.bot_id !== undefined);
    assert.equal(replies.length, 1);
    assert.match(replies[0]?.text ?? '', /ten$/);
    assert.equal(replies[0]?.streaming, false, 'the stream was finished before the worker stopped');
  });

  test('on stop an ingress answers 503 to readiness and to Slack, then closes', async () => {
    const port = h.app.port;
    const stopping = h.restart();
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`, {
      headers: { connection: 'close' },
    });
    assert.equal(ready.status, 503);
    assert.match(JSON.stringify(await ready.json()), /shutting down/);
    const late = await h.slack.deliverEvent({
      type: 'app_mention',
      channel: 'C5',
      user: 'U1',
      text: `<@${h.slack.botUserId}> too late`,
      ts: '1700000000.000100',
    });
    assert.equal(late.status, 503, 'Slack is told to deliver it again (to another replica)');
    await stopping;
  });
});

describe('turn queue with Slack Socket Mode (one connection feeding the queue)', () => {
  let split: SplitHarness;
  let h: Harness;

  before(async () => {
    split = await startSplitHarness({
      socketMode: true,
      overrides: { scale: { ingressDrainMs: 0, queue: { name: `${QUEUE}-socket` } } },
    });
    ({ h } = split);
  });

  after(async () => {
    await split?.close();
  });

  test('a mention over Socket Mode is queued by the ingress and answered by the worker', async () => {
    const { ts } = await h.slack.postUserMessage({
      channel: 'C9',
      user: 'U1',
      text: 'over the socket',
      mention: true,
    });
    const events = await h.handled(ts, 2);
    assert.ok(events.some((e) => e.handled.status === 'queued'));
    await waitForReply(h.slack, 'C9', ts, 'over the socket');
  });
});
