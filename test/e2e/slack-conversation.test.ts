// A person's view of the Slack path: mention, follow-ups, DMs, memory across restarts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../support/harness.ts';
import { botReplies, callsTo, waitForReply } from '../support/slack-helpers.ts';

describe('Slack conversations', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  test('a top-level mention is answered in a new thread under that message, streamed', async () => {
    const { ts } = await h.slack.postUserMessage({
      channel: 'C100',
      user: 'U1',
      text: `<@${h.slack.botUserId}> what is a monad?`,
    });
    const replies = await waitForReply(h.slack, 'C100', ts, 'what is a monad?');
    assert.equal(replies.length, 1);
    assert.equal(replies[0]?.thread_ts, ts, 'answer sits in the thread under the mention');
    assert.ok(callsTo(h.slack, 'chat.startStream').length >= 1, 'used Slack streaming');
    assert.ok(callsTo(h.slack, 'chat.stopStream').length >= 1, 'stream was closed');
    // The bot's own mention is not part of the question the model saw.
    const lastUser = h.llm.requests.at(-1)?.body.messages.at(-1);
    assert.doesNotMatch(String(lastUser.content), new RegExp(h.slack.botUserId));
    assert.equal(
      h.slack.messages('C100').filter((m) => m.bot_id).length,
      0,
      'nothing posted at the channel top level',
    );
  });

  test('a mention inside a thread is answered in that thread; a follow-up needs no mention', async () => {
    const { ts: root } = await h.slack.postUserMessage({
      channel: 'C101',
      user: 'U2',
      text: 'deploy failed again',
    });
    await h.slack.postUserMessage({
      channel: 'C101',
      user: 'U2',
      thread_ts: root,
      text: `<@${h.slack.botUserId}> why would a deploy fail?`,
    });
    await waitForReply(h.slack, 'C101', root, 'why would a deploy fail?');
    await h.slack.postUserMessage({
      channel: 'C101',
      user: 'U3',
      thread_ts: root,
      text: 'and how do I roll back?',
    });
    const replies = await waitForReply(h.slack, 'C101', root, 'how do I roll back?');
    assert.equal(replies.length, 2);
    // The follow-up was answered with the thread's history in the prompt.
    const prompt = h.llm.requests
      .at(-1)
      ?.body.messages.map((m: { content: string }) => m.content)
      .join('\n');
    assert.match(prompt, /why would a deploy fail\?/);
    assert.match(prompt, /\(from u3 \(U3\)\)/, 'the asker by display name and id');
  });

  test('messages in threads the bot never joined are left alone', async () => {
    const { ts: root } = await h.slack.postUserMessage({
      channel: 'C102',
      user: 'U2',
      text: 'lunch?',
    });
    const before = h.llm.requests.length;
    const reply = await h.slack.postUserMessage({
      channel: 'C102',
      user: 'U4',
      thread_ts: root,
      text: 'sure, noon',
    });
    const chatter = await h.slack.postUserMessage({
      channel: 'C102',
      user: 'U4',
      text: 'top-level chatter without a mention',
    });
    for (const m of [reply, chatter]) {
      const handled = await h.handled(m.ts, m.deliveries.length);
      assert.ok(handled.every((e) => e.handled.status === 'ignored'));
    }
    assert.equal(h.llm.requests.length, before);
    assert.equal(botReplies(h.slack, 'C102', root).length, 0);
  });

  test('a direct message is answered, and each DM thread is its own session', async () => {
    const { ts: a } = await h.slack.postUserMessage({
      channel: 'D200',
      channelType: 'im',
      user: 'U5',
      text: 'remember the number 42',
    });
    await waitForReply(h.slack, 'D200', a, 'remember the number 42');
    const { ts: b } = await h.slack.postUserMessage({
      channel: 'D200',
      channelType: 'im',
      user: 'U5',
      text: 'a new topic',
    });
    await waitForReply(h.slack, 'D200', b, 'a new topic');
    const prompt = h.llm.requests
      .at(-1)
      ?.body.messages.map((m: { content: string }) => m.content)
      .join('\n');
    assert.doesNotMatch(prompt, /42/, 'the second DM thread does not carry the first one');
  });

  test('two messages to one busy session are both answered, in order', async () => {
    const { ts: root } = await h.slack.postUserMessage({
      channel: 'C103',
      user: 'U1',
      text: `<@${h.slack.botUserId}> first question`,
    });
    h.llm.enqueue({ content: 'answer one', delayMs: 400 }, { content: 'answer two' });
    // Wait until the first turn reached the model, then send the second while it is busy.
    await h.slack.waitFor(() =>
      h.llm.requests.some((r) => JSON.stringify(r.body).includes('first question')),
    );
    await h.slack.postUserMessage({
      channel: 'C103',
      user: 'U1',
      thread_ts: root,
      text: 'second question',
    });
    const replies = await waitForReply(h.slack, 'C103', root, 'answer two');
    assert.deepEqual(
      replies.map((m) => m.text.trim()),
      ['answer one', 'answer two'],
    );
    const secondPrompt = h.llm.requests.find((r) =>
      JSON.stringify(r.body).includes('second question'),
    );
    assert.match(
      JSON.stringify(secondPrompt?.body),
      /answer one/,
      'second turn saw the first answer',
    );
  });

  test('20 sessions at once are all answered, each in its own thread', async () => {
    h.llm.setResponder((req) => ({
      content: `reply to ${String(req.messages.at(-1).content).split('\n').at(-1)}`,
      delayMs: 50,
    }));
    const posted = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        h.slack.postUserMessage({
          channel: `C3${String(i).padStart(2, '0')}`,
          user: `U${i}`,
          text: `<@${h.slack.botUserId}> q${i}`,
        }),
      ),
    );
    for (const [i, p] of posted.entries()) {
      const replies = await waitForReply(
        h.slack,
        `C3${String(i).padStart(2, '0')}`,
        p.ts,
        `reply to q${i}`,
        15_000,
      );
      assert.equal(replies.length, 1);
      assert.equal(replies[0]?.text.trim(), `reply to q${i}`);
    }
  });

  test('the bot remembers a thread after a restart', async () => {
    h.llm.setResponder((req) => ({ content: `echo: ${String(req.messages.at(-1).content)}` }));
    const { ts: root } = await h.slack.postUserMessage({
      channel: 'C104',
      user: 'U1',
      text: `<@${h.slack.botUserId}> the codename is BLUEFIN`,
    });
    await waitForReply(h.slack, 'C104', root, 'BLUEFIN');
    await h.restart();
    await h.slack.postUserMessage({
      channel: 'C104',
      user: 'U1',
      thread_ts: root,
      text: 'what was the codename?',
    });
    await waitForReply(h.slack, 'C104', root, 'what was the codename?');
    const prompt = JSON.stringify(h.llm.requests.at(-1)?.body.messages);
    assert.match(prompt, /BLUEFIN/);
  });
});
