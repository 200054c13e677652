// An ingress (split roles) taking bursts, with a worker beside it in this process and a Redis of
// the test's own: the messages of a burst in one thread are each answered once, and a wave
// acknowledged before the next one arrives is answered before it (numbered in arrival order,
// claimed and queued in shared round trips); a file shared through the ingress is read on the
// worker, never where the message arrived.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RunningApp } from '../../src/compose/app.ts';
import type { SlackMessage } from '../emulators/slack/index.ts';
import { watchFileEvents } from '../support/file-events.ts';
import type { Harness } from '../support/harness.ts';
import { botReplies, callsTo, waitForReply } from '../support/slack-helpers.ts';
import { type SplitHarness, startSplitHarness } from '../support/split-harness.ts';
import { lastQuestionTag } from './tagged-answers.ts';

const QUEUE = `burst-test-${process.pid}`;
const WAVE = 8;

describe('ingress bursts', () => {
  let split: SplitHarness;
  let h: Harness;
  let worker: RunningApp;

  before(async () => {
    split = await startSplitHarness({
      overrides: { scale: { queue: { name: QUEUE, orderPollMs: 20 } } },
    });
    ({ h, worker } = split);
    h.llm.setResponder((body) => {
      const tag = lastQuestionTag(body) ?? 'q-none';
      return { content: `Answer for ${tag}. END-${tag}` };
    });
  });

  after(async () => {
    await split?.close();
  });

  /** The bot's finished answers in a thread, oldest first, as the tags they end with. */
  const answered = (channel: string, ts: string): string[] =>
    botReplies(h.slack, channel, ts)
      .filter((m: SlackMessage) => !m.streaming)
      .flatMap((m) => [...m.text.matchAll(/END-(q-[\w-]+)/g)].map((x) => x[1] ?? ''));

  test('a burst in one thread: each message answered once; an acknowledged wave before the next', async () => {
    const channel = 'C900';
    const first = await h.slack.postUserMessage({
      channel,
      user: 'U1',
      text: 'q-start please answer',
      mention: true,
    });
    await waitForReply(h.slack, channel, first.ts, 'END-q-start', 20_000);
    const wave = async (name: string) => {
      const sent = await Promise.all(
        Array.from({ length: WAVE }, (_, i) =>
          h.slack.postUserMessage({
            channel,
            thread_ts: first.ts,
            user: `U${i}`,
            text: `q-${name}${i} and then?`,
            mention: true,
          }),
        ),
      );
      for (const d of sent.flatMap((s) => s.deliveries)) assert.equal(d.status, 200);
      // Slack's retry of what it thinks was missed: the same events again.
      for (const s of sent.slice(0, 3)) await h.slack.redeliverEvents(s.ts, { retryNum: 1 });
      return Array.from({ length: WAVE }, (_, i) => `q-${name}${i}`);
    };
    const a = await wave('a');
    const b = await wave('b');
    const tags = await h.slack.waitFor(() => {
      const got = answered(channel, first.ts);
      return got.length >= 1 + 2 * WAVE ? got : undefined;
    }, 60_000);
    // Nothing doubled, nothing lost.
    assert.deepEqual([...tags].sort(), ['q-start', ...a, ...b].sort());
    // Every message of the first wave (acknowledged before the second was sent) came first.
    const lastA = Math.max(...a.map((t) => tags.indexOf(t)));
    const firstB = Math.min(...b.map((t) => tags.indexOf(t)));
    assert.ok(lastA < firstB, `answers in the thread: ${tags.join(' ')}`);
    // One turn after another, in the thread's order: each turn's prompt holds the answer before it.
    for (let i = 1; i < tags.length; i++) {
      const req = h.llm.requests.find((r) => r.body && lastQuestionTag(r.body) === tags[i]);
      assert.ok(
        JSON.stringify(req?.body).includes(`END-${tags[i - 1]}`),
        `${tags[i]} was answered knowing ${tags[i - 1]}'s answer`,
      );
    }
  });

  test('a file shared through the ingress is read on the worker, before the question with it', async () => {
    const onIngress: string[] = [];
    h.app.core.events.on('files', (e: { messageId: string }) => onIngress.push(e.messageId));
    const onWorker = watchFileEvents(worker.core);
    const file = h.slack.uploadFile({
      name: 'rota.txt',
      bytes: Buffer.from('The on-call rota: Ada on Mondays, Grace on Tuesdays.\n'),
    });
    const ask = await h.slack.postUserMessage({
      channel: 'C901',
      user: 'U1',
      text: 'q-file who is on call on Mondays?',
      mention: true,
      files: [file],
    });
    await onWorker.done(ask.ts, 1, 30_000);
    await h.slack.waitFor(() =>
      callsTo(h.slack, 'reactions.add').find(
        (c) => c.args.timestamp === ask.ts && c.args.name === 'white_check_mark',
      ),
    );
    await waitForReply(h.slack, 'C901', ask.ts, 'END-q-file', 20_000);
    assert.deepEqual(onIngress, [], 'the ingress read no file');
    // The question came with the file and was answered after it was read: the prompt lists it.
    const req = h.llm.requests.find((r) => r.body && lastQuestionTag(r.body) === 'q-file');
    assert.match(JSON.stringify(req?.body), /rota\.txt/);
  });
});
