// Reading the conversation, platform by platform where the platforms differ: Slack's paginated
// conversations.replies under a 429 and the channel's history for a top-level mention; Discord's
// reply chains and forwarded messages.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../support/harness.ts';

type Req = { messages: { role: string; content: unknown }[] };

function lastUserText(h: Harness, needle: string): string {
  const r = h.llm.requests.findLast((x) => JSON.stringify(x.body.messages).includes(needle));
  assert.ok(r, `no model request mentions ${needle}`);
  return String((r.body as Req).messages.findLast((m) => m.role === 'user')?.content ?? '');
}

describe('Slack: reading threads and channels', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({
      overrides: {
        channels: { overrides: { 'slack:T0EMU00001:C0CTX3': { channelContext: 3 } } },
      },
    });
  });
  after(async () => {
    await h?.close();
  });

  test('a 250-message thread is read page by page, through a rate limit, every message in order', async () => {
    const channel = 'C0LONG1';
    const root = await h.slack.postUserMessage({ channel, user: 'U0AAA1', text: 'line-001' });
    for (let i = 2; i <= 250; i++)
      await h.slack.postUserMessage({
        channel,
        user: i % 2 ? 'U0AAA1' : 'U0BBB2',
        thread_ts: root.ts,
        text: `line-${String(i).padStart(3, '0')}`,
      });
    h.slack.failNext('conversations.replies', { error: 'ratelimited', retryAfterSec: 1 });
    const before = h.slack.callsTo('conversations.replies').length;
    const ask = await h.slack.postUserMessage({
      channel,
      user: 'U0CCC3',
      thread_ts: root.ts,
      text: `<@${h.slack.botUserId}> count the lines`,
    });
    await h.handled(ask.ts, ask.deliveries.length, 20_000);
    const replies = h.slack.callsTo('conversations.replies').slice(before);
    assert.equal(replies[0]?.status, 429, 'the first read was rate limited');
    assert.ok(replies.length >= 3, 'retried, then a second page');
    const text = lastUserText(h, 'count the lines');
    let at = -1;
    for (let i = 1; i <= 250; i++) {
      const here = text.indexOf(`line-${String(i).padStart(3, '0')}`);
      assert.ok(here > at, `line ${i} quoted in order`);
      at = here;
    }
  });

  test('a top-level mention reads the channel’s latest messages, as many as the channel says', async () => {
    const team = h.slack.teamId;
    assert.equal(team, 'T0EMU00001', 'the override above names this workspace');
    for (let i = 1; i <= 5; i++)
      await h.slack.postUserMessage({ channel: 'C0CTX3', user: 'U0AAA1', text: `chan-${i}` });
    const ask = await h.slack.postUserMessage({
      channel: 'C0CTX3',
      user: 'U0BBB2',
      text: `<@${h.slack.botUserId}> what were they saying?`,
    });
    await h.handled(ask.ts, ask.deliveries.length);
    const text = lastUserText(h, 'what were they saying?');
    assert.match(text, /chan-3[\s\S]*chan-4[\s\S]*chan-5/);
    assert.doesNotMatch(text, /chan-2/, 'only the last 3');
  });
});

describe('Discord: reply chains and forwarded messages', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ discord: true });
  });
  after(async () => {
    await h?.close();
  });

  test('a mention replying to a message reads the chain it answers, oldest first', async () => {
    const d = h.discord;
    assert.ok(d);
    const guild = d.guilds[0];
    const channelId = guild?.channels[1]?.id ?? '';
    const [alice, bob, mina] = d.users;
    const first = await d.userMessage({
      guildId: guild?.id ?? '',
      channelId,
      userId: alice?.id ?? '',
      content: 'chain-1 the retry limit is 5',
    });
    const second = await d.userMessage({
      guildId: guild?.id ?? '',
      channelId,
      userId: bob?.id ?? '',
      content: 'chain-2 no, it is 3',
      replyTo: first.id,
    });
    await d.userMessage({
      guildId: guild?.id ?? '',
      channelId,
      userId: bob?.id ?? '',
      content: 'unrelated chatter',
    });
    const ask = await d.userMessage({
      guildId: guild?.id ?? '',
      channelId,
      userId: mina?.id ?? '',
      content: 'who is right?',
      mentionsBot: true,
      replyTo: second.id,
    });
    await h.handled(ask.id);
    const text = lastUserText(h, 'who is right?');
    assert.match(text, /from="Alice[^"]*"[^>]*>\nchain-1[\s\S]*from="Bob[^"]*"[^>]*>\nchain-2/);
    assert.doesNotMatch(text, /unrelated chatter/, 'the chain, not the channel');
  });

  test('a forwarded message in a thread is read with its words', async () => {
    const d = h.discord;
    assert.ok(d);
    const guild = d.guilds[0];
    const [channelA, channelB] = [guild?.channels[0]?.id ?? '', guild?.channels[1]?.id ?? ''];
    const [alice, bob] = d.users;
    const original = await d.userMessage({
      guildId: guild?.id ?? '',
      channelId: channelA,
      userId: alice?.id ?? '',
      content: 'FORWARDED-WORDS the outage began at 09:12',
    });
    const thread = await d.userThread({ channelId: channelB, userId: bob?.id ?? '', name: 'fwd' });
    await d.userMessage({
      guildId: guild?.id ?? '',
      channelId: thread.id,
      userId: bob?.id ?? '',
      content: '',
      forwardOf: { channelId: channelA, messageId: original.id },
    });
    const ask = await d.userMessage({
      guildId: guild?.id ?? '',
      channelId: thread.id,
      userId: bob?.id ?? '',
      content: 'when did it start?',
      mentionsBot: true,
    });
    await h.handled(ask.id);
    assert.match(lastUserText(h, 'when did it start?'), /\[forwarded message\]\nFORWARDED-WORDS/);
  });
});
