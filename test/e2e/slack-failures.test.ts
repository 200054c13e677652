// Nothing silent (ARCHITECTURE.md, "Invariants" 3): every failure reaches the thread, and other
// threads carry on.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../support/harness.ts';
import { callsTo, waitForReply } from '../support/slack-helpers.ts';

describe('Slack failures', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ overrides: { llm: { firstTokenTimeoutMs: 400, maxRetries: 0 } } });
  });
  after(async () => {
    await h.close();
  });

  test('the model server down: a clear message in the thread, and the next thread works', async () => {
    h.llm.setDown(true);
    const { ts } = await h.slack.postUserMessage({
      channel: 'C20',
      user: 'U1',
      text: `<@${h.slack.botUserId}> are you there?`,
    });
    const replies = await waitForReply(h.slack, 'C20', ts, "can't reach the language model");
    assert.equal(replies.length, 1);
    assert.match(replies[0]?.text ?? '', /⚠️/);
    h.llm.setDown(false);
    const other = await h.slack.postUserMessage({
      channel: 'C21',
      user: 'U2',
      text: `<@${h.slack.botUserId}> still alive?`,
    });
    await waitForReply(h.slack, 'C21', other.ts, 'still alive?');
  });

  test('a 500 from the model is reported, not swallowed', async () => {
    h.llm.enqueue({ fault: 'http500' });
    const { ts } = await h.slack.postUserMessage({
      channel: 'C22',
      user: 'U1',
      text: `<@${h.slack.botUserId}> boom`,
    });
    await waitForReply(h.slack, 'C22', ts, "can't reach the language model");
  });

  test('a model that never sends a first token times out with a message', async () => {
    h.llm.enqueue({ content: 'too late', delayMs: 5000 });
    const { ts } = await h.slack.postUserMessage({
      channel: 'C23',
      user: 'U1',
      text: `<@${h.slack.botUserId}> slow`,
    });
    const replies = await waitForReply(h.slack, 'C23', ts, 'did not respond in time');
    assert.doesNotMatch(replies.map((m) => m.text).join(' '), /too late/);
  });

  test('a connection reset mid-answer keeps the partial text and says what happened', async () => {
    h.llm.enqueue({ content: 'partial words then more words', fault: 'reset' });
    const { ts } = await h.slack.postUserMessage({
      channel: 'C24',
      user: 'U1',
      text: `<@${h.slack.botUserId}> reset`,
    });
    await waitForReply(h.slack, 'C24', ts, '⚠️');
  });

  test('an answer cut at the reply budget says so', async () => {
    // Longer than the default reply budget of 2,048 tokens: the server stops it mid-way.
    h.llm.enqueue({ content: Array.from({ length: 3000 }, (_, i) => `word${i}`).join(' ') });
    const { ts } = await h.slack.postUserMessage({
      channel: 'C25',
      user: 'U1',
      text: `<@${h.slack.botUserId}> long`,
    });
    await waitForReply(h.slack, 'C25', ts, 'cut off at the reply length limit');
  });

  test('Slack answering 429 is retried after Retry-After and the answer arrives', async () => {
    h.llm.enqueue({ content: 'after the rate limit' });
    h.slack.failNext('chat.startStream', { error: 'ratelimited', status: 429, retryAfterSec: 1 });
    const { ts } = await h.slack.postUserMessage({
      channel: 'C26',
      user: 'U1',
      text: `<@${h.slack.botUserId}> limited`,
    });
    const replies = await waitForReply(h.slack, 'C26', ts, 'after the rate limit');
    const attempts = callsTo(h.slack, 'chat.startStream').filter((c) => c.args.channel === 'C26');
    // Retried once, after the 429, and answered once. That the client waits Retry-After is shown
    // on a mocked clock in test/unit/slack-emulator-conversations.test.ts.
    assert.deepEqual(
      attempts.map((a) => a.status),
      [429, 200],
    );
    assert.equal(replies.filter((m) => m.text.includes('after the rate limit')).length, 1);
  });
});
