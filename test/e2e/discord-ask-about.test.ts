// "Ask threadmind about this", the Discord message command: used on someone's message, it starts
// a thread from that message and answers there, with the message read as quoted material.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../support/harness.ts';

describe('Ask threadmind about this (Discord)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ discord: true });
  });
  after(() => h.close());

  test('the message command answers in a thread started from the message, which it knows', async () => {
    const d = h.discord as NonNullable<Harness['discord']>;
    const guild = d.guilds[0] as (typeof d.guilds)[number];
    const channel = guild.channels[0]?.id ?? '';
    const [alice, bob] = d.users.map((u) => u.id) as [string, string];
    const msg = await d.userMessage({
      guildId: guild.id,
      channelId: channel,
      userId: alice,
      content: 'Rollout of v2 is paused until the cache bug is fixed',
    });
    h.llm.setResponder(() => ({ content: 'It says the v2 rollout is paused.' }));
    const ask = await d.messageCommand({
      channelId: channel,
      messageId: msg.id,
      userId: bob,
      name: 'Ask threadmind about this',
    });
    const thread = await d.waitFor(() => d.threads().find((t) => t.parentId === channel));
    assert.equal(thread.id, msg.id, 'a thread started from the message');
    await d.waitFor(() =>
      d
        .messages(thread.id)
        .find((m) => m.author.id === d.botUserId && m.content.includes('rollout is paused')),
    );
    const said = await d.waitFor(
      () => d.interactions().find((i) => i.id === ask.id && i.original?.content)?.original,
    );
    assert.equal(said.content, `I am answering in <#${thread.id}>.`);
    const human = JSON.stringify(h.llm.requests.at(-1)?.body.messages.at(-1));
    assert.match(
      human,
      new RegExp(`<data source=\\\\"thread message\\\\" from=\\\\"[^"\\\\]*\\(${alice}\\)`),
    );
    assert.match(human, /Rollout of v2 is paused/);
    assert.match(human, new RegExp(`Look at the message from [^.]*${alice}\\)? posted at`));
  });
});
