// `/ask` in split roles: the gateway only defers, shows the question, claims and queues; the
// worker that runs the turn opens the thread for the answer (named ahead by the reply's id, as a
// top-level mention's is). With no worker running, no thread is opened; once one runs, the answer
// is in the thread, once. Discord emulator, the real bot as a gateway on a Redis of the test's
// own, a worker beside it in this process.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RunningApp } from '../../src/compose/app.ts';
import type { HandledEvent } from '../../src/model/handled.ts';
import { type Harness, startHarness, startWorkerBeside } from '../support/harness.ts';
import { startPrivateRedis, type TestRedis } from '../support/redis-server.ts';

describe('/ask through a gateway', () => {
  let redis: TestRedis;
  let h: Harness;
  let d: NonNullable<Harness['discord']>;
  let worker: RunningApp | undefined;

  before(async () => {
    redis = await startPrivateRedis();
    h = await startHarness({
      discord: true,
      env: { THREADMIND_ROLE: 'gateway', STORE_URL: redis.url },
      overrides: { scale: { queue: { name: `ask-split-${process.pid}`, orderPollMs: 20 } } },
    });
    d = h.discord as NonNullable<Harness['discord']>;
    await d.waitFor(() => d.gatewaySessions().connected === 1 || undefined, 15_000);
    h.llm.setResponder(() => ({ content: 'A monad is a monoid in the category of endofunctors.' }));
  });

  after(async () => {
    await worker?.stop();
    await h?.close();
    await redis?.stop();
  });

  test('the worker opens the thread; the gateway only queues', async () => {
    const guild = d.guilds[0];
    const channel = guild?.channels[0]?.id ?? '';
    const queued = new Promise<HandledEvent>((resolve) =>
      h.app.core.events.on('handled', (e: HandledEvent) => {
        if (e.handled.status === 'queued') resolve(e);
      }),
    );
    const { id } = await d.slashCommand({
      guildId: guild?.id ?? '',
      channelId: channel,
      userId: d.users[0]?.id ?? '',
      name: 'ask',
      options: [{ name: 'question', type: 3, value: 'what is a monad?' }],
    });
    assert.equal((await queued).messageId, id);
    // The question is shown where it was asked; no thread yet: nothing runs turns.
    const shown = d.messages(channel).find((m) => m.content.includes('asked:** what is a monad?'));
    assert.ok(shown, 'the deferred reply shows the question');
    assert.equal(
      d.threads().filter((t) => t.parentId === channel).length,
      0,
      'the gateway opened no thread',
    );

    worker = await startWorkerBeside(h.config);
    const thread = await d.waitFor(() =>
      d.threads().find((t) => t.parentId === channel && t.name === 'what is a monad?'),
    );
    assert.equal(thread.id, shown.id, 'started from the reply that shows the question');
    const answers = await d.waitFor(() => {
      const bot = d.messages(thread.id).filter((m) => m.author.id === d.botUserId);
      return bot.some((m) => m.content.includes('endofunctors')) ? bot : undefined;
    }, 30_000);
    assert.equal(answers.filter((m) => m.content.includes('endofunctors')).length, 1);
    assert.equal(d.threads().filter((t) => t.parentId === channel).length, 1, 'one thread');
  });
});
