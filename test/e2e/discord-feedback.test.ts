// 👍/👎 on Discord answers through unmodified discord.js and the emulator: buttons on the answer's
// last message, the sources line under its text, a 👎 reason from a modal, and the admin export as
// an ephemeral file.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DiscordMessage } from '../emulators/discord/index.ts';
import { buildTextPdf } from '../fixtures/documents/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';

type Req = { messages: { role: string; content: unknown }[] };
const MANAGE_GUILD = String(1 << 5);

describe('feedback on Discord answers', () => {
  let h: Harness;
  let d: NonNullable<Harness['discord']>;
  let guildId: string;
  let channel: string;
  let alice: string;
  let bob: string;

  before(async () => {
    h = await startHarness({ discord: true });
    d = h.discord as NonNullable<Harness['discord']>;
    const guild = d.guilds[0] as (typeof d.guilds)[number];
    guildId = guild.id;
    channel = guild.channels[0]?.id ?? '';
    [alice, bob] = d.users.map((u) => u.id) as [string, string];
  });
  after(() => h.close());

  const withButtons = (m: DiscordMessage) =>
    JSON.stringify(m.components ?? []).includes('tm:fb:up:');
  const customIds = (m: DiscordMessage) =>
    (m.components ?? []).flatMap((row) =>
      ((row as { components?: { custom_id?: string }[] }).components ?? []).map(
        (c) => c.custom_id ?? '',
      ),
    );
  const response = (id: string) =>
    d.waitFor(() => {
      const rec = d.interactions().find((i) => i.id === id);
      return rec?.responseType !== undefined && rec.responseType !== 5 ? rec : undefined;
    });
  const deferredReply = (id: string) =>
    d.waitFor(() => d.interactions().find((i) => i.id === id && i.original?.content)?.original);

  test('an answer that used a PDF ends with 👍/👎 and a short sources line; votes are stored', async () => {
    const pdf = await buildTextPdf(['Intro.', 'Refunds take 14 days.']);
    h.llm.setResponder((req: Req) => {
      const last = req.messages.at(-1);
      if (last?.role === 'tool') return { content: 'Refunds take 14 days (policy.pdf, page 2).' };
      return { toolCalls: [{ name: 'search_attachment', arguments: { query: 'refunds' } }] };
    });
    await d.userMessage({
      guildId,
      channelId: channel,
      userId: alice,
      content: 'the policy',
      attachments: [{ filename: 'policy.pdf', bytes: pdf }],
    });
    await d.slashCommand({
      guildId,
      channelId: channel,
      userId: alice,
      name: 'ask',
      options: [{ name: 'question', type: 3, value: 'how long do refunds take?' }],
    });
    const thread = await d.waitFor(() =>
      d.threads().find((t) => t.name === 'how long do refunds take?'),
    );
    const answer = await d.waitFor(() =>
      d.messages(thread.id).findLast((m) => m.author.id === d.botUserId && withButtons(m)),
    );
    assert.match(answer.content, /Refunds take 14 days/);
    assert.match(answer.content, /Sources: `policy\.pdf, p\. 2`/);
    const [up, down] = customIds(answer);
    assert.ok(up?.startsWith('tm:fb:up:') && down?.startsWith('tm:fb:down:'));

    const click = await d.componentInteraction({
      channelId: thread.id,
      messageId: answer.id,
      userId: bob,
      customId: up ?? '',
    });
    const thanked = await response(click.id);
    assert.equal(thanked.ephemeral, true);
    assert.match(thanked.original?.content ?? '', /Thanks for the 👍/);

    const no = await d.componentInteraction({
      channelId: thread.id,
      messageId: answer.id,
      userId: alice,
      customId: down ?? '',
    });
    const modal = await response(no.id);
    assert.equal(modal.responseType, 9, 'a modal asks why');
    const sent = await d.modalSubmit({ interactionId: no.id, values: { reason: 'too slow' } });
    assert.match((await response(sent.id)).original?.content ?? '', /👎/);

    const refused = await d.slashCommand({
      guildId,
      channelId: channel,
      userId: bob,
      name: 'feedback-export',
      memberPermissions: '0',
    });
    assert.match(
      (await deferredReply(refused.id))?.content ?? '',
      /Only members with the Manage Server/,
    );

    const exported = await d.slashCommand({
      guildId,
      channelId: channel,
      userId: alice,
      name: 'feedback-export',
      options: [{ name: 'format', type: 3, value: 'csv' }],
      memberPermissions: MANAGE_GUILD,
    });
    const reply = await deferredReply(exported.id);
    assert.match(reply?.content ?? '', /2 votes from this server/);
    const file = reply?.attachments?.[0];
    assert.ok(file?.filename.endsWith('.csv'), JSON.stringify(reply?.attachments));
    const csv = await (await fetch(file?.url ?? '')).text();
    assert.match(csv, new RegExp(`,${bob},up,`));
    assert.match(csv, new RegExp(`,${alice},down,too slow,`));
  });
});
