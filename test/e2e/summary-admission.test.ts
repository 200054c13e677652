// A summary on request is a turn like any other: it waits behind the session's running turn, and
// a shutdown waits for it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../support/harness.ts';
import { botReplies, waitForReply } from '../support/slack-helpers.ts';

describe('summaries go through admission', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  test('a summary asked while the thread is busy comes after the answer in progress', async () => {
    h.llm.enqueue(
      { content: 'the slow answer about the budget', delayMs: 500 },
      { content: '- Budget was discussed' },
    );
    const q = await h.slack.postUserMessage({
      channel: 'C300',
      user: 'U1',
      text: `<@${h.slack.botUserId}> what about the budget?`,
    });
    await h.slack.waitFor(() => h.llm.requests.length > 0 || undefined);
    const s = await h.slack.postUserMessage({
      channel: 'C300',
      user: 'U1',
      thread_ts: q.ts,
      text: `<@${h.slack.botUserId}> summarize`,
    });
    await h.handled(s.ts, s.deliveries.length);
    const texts = botReplies(h.slack, 'C300', q.ts).map((m) => m.text);
    const answer = texts.findIndex((t) => t.includes('the slow answer'));
    const summary = texts.findIndex((t) => t.includes('Summary of this thread so far'));
    assert.ok(answer >= 0 && summary > answer, `answer then summary: ${JSON.stringify(texts)}`);
  });

  test('a shutdown waits for a summary in progress', async () => {
    const q = await h.slack.postUserMessage({
      channel: 'C301',
      user: 'U1',
      text: `<@${h.slack.botUserId}> remember the code word TEAL`,
    });
    await waitForReply(h.slack, 'C301', q.ts, 'TEAL');
    await h.handled(q.ts, q.deliveries.length);
    h.llm.enqueue({ content: '- The code word is TEAL', delayMs: 600 });
    const asked = h.llm.requests.length;
    await h.slack.postUserMessage({
      channel: 'C301',
      user: 'U1',
      thread_ts: q.ts,
      text: `<@${h.slack.botUserId}> summarize`,
    });
    await h.slack.waitFor(() => h.llm.requests.length > asked || undefined);
    assert.equal(await h.app.runner.drain(10_000), true, 'drained');
    // Drained means finished: the summary is already in the thread.
    assert.ok(
      botReplies(h.slack, 'C301', q.ts).some((m) => /code word is TEAL/.test(m.text)),
      'summary posted before the drain returned',
    );
  });
});
